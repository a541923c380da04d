"""Lesson 01's exercises: Little's law and a server's CPU time per request."""

from benchbook import measure
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring

NOTEBOOK = "01_io_concurrency"


def littles_law(settings: Settings) -> Outcome:
    """Go's server at 10 connections, each request waiting 1 ms: Little's law says at most
    10 / 1 ms = 10,000 requests per second."""
    connections, delay_ms = 10, 1
    run = measuring.run(
        "01_littles_law",
        settings,
        servers=["go-iodelay"],
        loads=measure.tool("wrk", connections=connections, threads=2, duration=settings.duration),
        server_params={"delay_ms": delay_ms},
    )
    return Outcome(
        measured=measuring.median(run.results(), "go-iodelay", "rps"),
        model=connections / (delay_ms / 1000),
        model_name=f"Little's law, {connections} in flight / {delay_ms} ms each",
        measured_how=f"Go at {connections} connections, {measuring.rounds(settings)}",
        run_id=run.run_id,
    )


EXERCISES = [
    Exercise(
        key="01.littles_law",
        notebook=NOTEBOOK,
        title="Little's law at 10 connections",
        variable="littles_law_rps",
        unit="req/s",
        tolerance=0.2,
        explain="a request takes its 1 ms of waiting plus the time the server and wrk spend "
        "on it; how much time per request does the measured rate leave beyond the 1 ms, "
        "and where could it go?",
        measure=littles_law,
    ),
]
