"""Lesson 00's exercises: a load tool's own ceiling from its CPU time per request, and
the think-time law for users that wait."""

import pandas as pd

from benchbook import measure
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring

NOTEBOOK = "00_load_generators"
SERVER = "go-hello"  # the fast server notebook 00 calibrates the HTTP tools against
USER_CLASS = "HttpUser"  # requests-based, as the articles use it: the slowest setting


def rows_with_users(results: pd.DataFrame, users: int) -> pd.DataFrame:
    """The rounds of the Locust load with ``users`` users (one experiment, two loads)."""
    rows = results[results["users"] == users]
    if rows.empty:
        raise ValueError(f"no rounds with {users} users; measured: {sorted(set(results['users']))}")
    return rows


def cpu_s_per_request(rows: pd.DataFrame) -> float:
    """The load tool's CPU seconds per request (median over rounds): its CPU share of one
    core ÷ its requests per second."""
    return float((rows["client_cpu_pct"] / 100 / rows["rps"]).median())


def client_ceiling(settings: Settings) -> Outcome:
    """One Locust process at full speed (no wait, 200 users) against Go's hello server:
    one process runs on one core, so it sends at most 1 / (its CPU seconds per request),
    that CPU time measured first at a light load (10 users waiting 10 ms each)."""
    light, full, wait = 10, 200, "10-10ms"
    locust = {"user_class": USER_CLASS, "processes": 1, "duration": settings.duration}
    run = measuring.run(
        "00_client_ceiling",
        settings,
        servers=[SERVER],
        loads=[
            measure.tool("locust", users=light, spawn_rate=light, wait=wait, **locust),
            measure.tool("locust", users=full, spawn_rate=full, wait="0-0ms", **locust),
        ],
    )
    results = run.results()
    demand_s = cpu_s_per_request(rows_with_users(results, light))
    return Outcome(
        measured=float(rows_with_users(results, full)["rps"].median()),
        model=1 / demand_s,
        model_name=f"one core ÷ Locust's CPU per request ({demand_s * 1000:.3g} ms, measured "
        f"at {light} users waiting 10 ms)",
        measured_how=f"Locust {USER_CLASS}, 1 process, {full} users, no wait, against "
        f"{SERVER}, {measuring.rounds(settings)}",
        run_id=run.run_id,
    )


def think_time(settings: Settings) -> Outcome:
    """100 Locust users, each waiting 50–150 ms (uniform: 100 ms on average) after every
    reply: the think-time law X = N / (Z + R) with the measured response time R."""
    users, wait_min_ms, wait_max_ms = 100, 50, 150
    run = measuring.run(
        "00_think_time",
        settings,
        servers=[SERVER],
        # every user started in the first 0.1 s, so the rate is not measured while ramping
        loads=measure.tool(
            "locust",
            users=users,
            spawn_rate=users * 10,
            wait=f"{wait_min_ms}-{wait_max_ms}ms",
            user_class=USER_CLASS,
            processes=1,
            duration=settings.duration,
        ),
    )
    results = run.results()
    think_s = (wait_min_ms + wait_max_ms) / 2 / 1000
    response_s = measuring.median(results, SERVER, "lat_mean_ms") / 1000
    return Outcome(
        measured=measuring.median(results, SERVER, "rps"),
        model=users / (think_s + response_s),
        model_name=f"think-time law, {users} users / ({think_s * 1000:g} ms wait + "
        f"{response_s * 1000:.2g} ms response)",
        measured_how=f"Locust {USER_CLASS}, 1 process, {users} users waiting "
        f"{wait_min_ms}–{wait_max_ms} ms, {measuring.rounds(settings)}",
        run_id=run.run_id,
    )


EXERCISES = [
    Exercise(
        key="00.client_ceiling",
        notebook=NOTEBOOK,
        title="A client-side ceiling: one Locust process, 200 users",
        variable="locust_ceiling_rps",
        unit="req/s",
        # The CPU time per request at full speed (the notebook's table) differs from the
        # one at a light load (the model's) by the tool's batching and queueing, and a
        # round from the next by about a tenth: a student who divides one core by it, and
        # does not scale it with the users, lands within 25 %.
        tolerance=0.25,
        explain="the model divides one core by Locust's CPU time per request measured at a "
        "light load. Did Locust spend more or less CPU per request at full speed, and what "
        "did 200 users instead of 50 change? Look at the server's CPU: who was the limit?",
        measure=client_ceiling,
    ),
    Exercise(
        key="00.think_time",
        notebook=NOTEBOOK,
        title="Users that wait: the think-time law for Locust",
        variable="waiting_users_rps",
        unit="req/s",
        # Z dominates: a prediction of N / Z (ignoring R and Locust's own time) is within
        # a few %; 20 % leaves room for the run-to-run spread of short rounds.
        tolerance=0.2,
        explain="each user spends its wait, the response time and Locust's own work per "
        "request (outside its timer) before sending again. Which of the three did the model "
        "leave out, and how far below Locust's ceiling in the notebook's table was this rate?",
        measure=think_time,
    ),
]
