"""Lesson 05's exercises: the delayed acknowledgement that Nagle's algorithm makes a
kept-alive HTTP client wait for, and a one-core gRPC server under ghz (Little's law until
the core is full)."""

from benchbook import measure
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring
from benchbook.runs.durations import parse_duration

NOTEBOOK = "05_grpc_vs_http"

# Linux's shortest delayed-ACK timeout (TCP_DELACK_MIN, HZ/25 in include/net/tcp.h): a
# receiver in interactive mode with nothing of its own to send holds its ACK this long.
# A constant of the model (the kernel's), not a measurement.
DELAYED_ACK_S = 0.040

# The 404 server of the article's loop, as the article had it (Nagle's algorithm on) and
# with TCP_NODELAY: it writes its headers and its body in two sends.
NAGLE, NODELAY = "http-not-found", "http-not-found-nodelay"
PYTHON_GRPC = "python-governance-grpc"

# ghz counts calls, not seconds: calls per second of exercise_duration, about what ghz
# gets from the Python gRPC server on this machine class (it sizes a run, nothing more).
GHZ_CALLS_PER_S = 3_000


def delayed_rate(in_flight: int, time_per_call_s: float, delay_s: float) -> float:
    """Little's law for a closed loop whose every call also waits ``delay_s``:
    in_flight / (time per call + delay), in calls per second."""
    if in_flight < 1 or time_per_call_s < 0 or delay_s < 0 or time_per_call_s + delay_s <= 0:
        raise ValueError(f"in flight {in_flight}, {time_per_call_s} s per call, {delay_s} s delay")
    return in_flight / (time_per_call_s + delay_s)


def bounded_rate(in_flight: int, time_per_call_s: float, cpu_per_call_s: float) -> float:
    """The asymptotic bound of a closed loop: Little's law with the time per call at one
    in flight (in_flight / time per call) until the busiest core is full (1 / its CPU time
    per call), whichever is lower, in calls per second."""
    if in_flight < 1 or time_per_call_s <= 0 or cpu_per_call_s <= 0:
        raise ValueError(
            f"in flight {in_flight}, {time_per_call_s} s per call, {cpu_per_call_s} s CPU"
        )
    return min(in_flight / time_per_call_s, 1 / cpu_per_call_s)


def ghz_calls(duration: str, calls_per_s: int = GHZ_CALLS_PER_S) -> int:
    """How many calls keep ghz busy about ``duration`` at ``calls_per_s``."""
    return max(1, round(parse_duration("exercise_duration", duration) * calls_per_s))


def delayed_ack(settings: Settings) -> Outcome:
    """wrk's 8 kept-alive connections against the 404 server with Nagle on, each reading
    every answer to its end: each call waits for the client's delayed ACK before the body
    is sent, so Little's law gives 8 / (time per call + the delayed-ACK timeout). The time
    per call is the same server's with TCP_NODELAY at one connection, in the same run."""
    connections = 8
    run = measuring.run(
        "05_delayed_ack",
        settings,
        servers=[NAGLE, NODELAY],
        loads={
            NAGLE: measure.tool(
                "wrk", connections=connections, threads=1, duration=settings.duration
            ),
            NODELAY: measure.tool("wrk", connections=1, threads=1, duration=settings.duration),
        },
        requests={NAGLE: ["HealthCheck"], NODELAY: ["HealthCheck"]},
        verify=False,  # both answer 404 by design: the article's backend
    )
    results = run.results()
    time_per_call_s = 1 / measuring.median(results, f"{NODELAY} HealthCheck", "rps")
    return Outcome(
        measured=measuring.median(results, f"{NAGLE} HealthCheck", "rps"),
        model=delayed_rate(connections, time_per_call_s, DELAYED_ACK_S),
        model_name=f"Little's law, {connections} in flight / ({time_per_call_s * 1000:.2f} ms "
        f"with TCP_NODELAY + {DELAYED_ACK_S * 1000:g} ms delayed ACK)",
        measured_how=f"wrk at {connections} connections, GET /health, the 404 server with "
        f"Nagle on, {measuring.rounds(settings)}",
        run_id=run.run_id,
    )


def core_bound(settings: Settings) -> Outcome:
    """ghz against the Python gRPC server at 1 and at 8 calls in flight: at 8, Little's
    law with the time per call at 1 in flight would give 8 / that time, far above what
    the server's one core can serve: 1 / its CPU time per call. That CPU time is the one
    at 8 in flight: at 1 the event loop wakes once per call and spends more per call."""
    in_flight = 8
    calls = ghz_calls(settings.duration)
    run = measuring.run(
        "05_core_bound",
        settings,
        servers=[PYTHON_GRPC],
        loads=[
            measure.tool("ghz", concurrency=1, calls=calls),
            measure.tool("ghz", concurrency=in_flight, calls=calls),
        ],
        requests={PYTHON_GRPC: ["HealthCheck"]},
    )
    results = run.results()
    target = f"{PYTHON_GRPC} HealthCheck"
    one = results[results["connections"] == 1]
    time_per_call_s = measuring.median(one, target, "lat_mean_ms") / 1000
    loaded = results[results["connections"] == in_flight]
    cpu_per_call_s = measuring.median(loaded, target, "server_cpu_ms_per_request") / 1000
    return Outcome(
        measured=measuring.median(loaded, target, "rps"),
        model=bounded_rate(in_flight, time_per_call_s, cpu_per_call_s),
        model_name=f"asymptotic bound, min({in_flight} / {time_per_call_s * 1000:.3f} ms per "
        f"call at 1 in flight, 1 / {cpu_per_call_s * 1000:.3f} ms of server CPU per call)",
        measured_how=f"ghz at {in_flight} calls in flight, HealthCheck, Python gRPC, "
        f"{measuring.rounds(settings)}",
        run_id=run.run_id,
    )


EXERCISES = [
    Exercise(
        key="05.delayed_ack",
        notebook=NOTEBOOK,
        title="Nagle's wait at 8 connections",
        variable="delayed_ack_rps",
        unit="req/s",
        # The jiffy the kernel's timer rounds up to, and the body's own trip, add a few ms
        # to each 40 ms wait: a student who uses the measured wait lands well inside.
        tolerance=0.2,
        explain="each call waited for a delayed acknowledgement; how long per call does the "
        "measured rate leave, how does that compare with Linux's 40 ms minimum, and what "
        "could add the rest?",
        measure=delayed_ack,
    ),
    Exercise(
        key="05.core_bound",
        notebook=NOTEBOOK,
        title="A one-core gRPC server at 8 calls in flight",
        variable="saturated_calls_per_s",
        unit="calls/s",
        # The core is never quite all the server's (the bound sits about 10 % above the
        # rate), and a student's inputs come from the notebook's own runs (the Go
        # benchmark's time per call, ghz at 16 in flight), not from this one.
        tolerance=0.25,
        explain="at 8 in flight, which bound set the rate: Little's law with the time per "
        "call at 1 in flight, or the server's core? How busy was that core, and why is the "
        "bound a little above the measured rate?",
        measure=core_bound,
    ),
]
