"""Lesson 02's exercises: Amdahl's law from a profile (FastAPI's access log) and Little's
law for a busy server (the latency wrk reports)."""

import math

from benchbook import measure
from benchbook.analyse.display import profiles
from benchbook.analyse.numbers import formatting as fmt
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring
from benchbook.measure import profiling

NOTEBOOK = "02_hello_world_locust"
WITH_LOG = "python-hello"  # FastAPI under uvicorn's defaults: access log on, as in the article
# The registry has no python-hello without its access log. python-iodelay is the same
# FastAPI under the same uvicorn with --no-access-log; at delay_ms = 0 its handler only
# yields to the event loop once (asyncio.sleep(0)) before answering, and the variant pins
# uvloop and httptools, which uvicorn's defaults pick when installed (as here).
WITHOUT_LOG, WITHOUT_LOG_VARIANT = "python-iodelay", "uvloop+httptools"
LOGGING = "logging"  # the profile's category for formatting and writing log lines


def amdahl_speedup(share: float, factor: float = math.inf) -> float:
    """Amdahl's law: the speed-up when a ``share`` of the time becomes ``factor`` times
    faster; removed entirely (the default, ``factor`` infinite), 1 / (1 − share)."""
    if not 0 <= share < 1:
        raise ValueError(f"share: {share}; give a share of the time, 0 ≤ share < 1")
    if factor <= 0:
        raise ValueError(f"factor: {factor}; give a speed-up factor above 0")
    return 1 / ((1 - share) + share / factor)


def profile_share(runs: object, target: str, category: str) -> float | None:
    """``target``'s share of its CPU samples under load spent in ``category``, from the
    profiled phase of ``runs`` (a run or a list, as ``profiles.section`` takes them); None
    when the phase holds no samples of it (switched off, or no profiler here)."""
    rows = profiles.with_profiles(profiles.profiled_rows(runs))
    if rows.empty or target not in set(rows["target"]):
        return None
    table = profiles.share_table(rows[rows["target"] == target])
    if target not in table or not table.loc["samples", target]:
        return None
    return float(table[target].get(category, 0.0))


def cpu_share_saved(cpu_ms_with: float, cpu_ms_without: float) -> float:
    """The share of the CPU time per request that turning a feature off saves: the p of
    Amdahl's law measured from both settings' CPU time per request."""
    if cpu_ms_with <= 0 or cpu_ms_without <= 0:
        raise ValueError(f"CPU per request: {cpu_ms_with}, {cpu_ms_without}; give both above 0")
    return max(0.0, 1 - cpu_ms_without / cpu_ms_with)


def access_log(settings: Settings) -> Outcome:
    """FastAPI with and without uvicorn's access log under wrk, in the same rounds: the
    measured speed-up beside Amdahl's 1 / (1 − p), p the log's share of FastAPI's CPU in
    a profile of the run (the profiled phase); with that phase off, p from both servers'
    CPU time per request instead (the model's name says which)."""
    connections, threads = 100, 1  # notebook 02's wrk load
    run = measuring.run(
        "02_access_log",
        settings,
        servers=[WITH_LOG, WITHOUT_LOG],
        variants={WITHOUT_LOG: [WITHOUT_LOG_VARIANT]},
        loads=measure.tool(
            "wrk", connections=connections, threads=threads, duration=settings.duration
        ),
        server_params={"delay_ms": 0},
        profiled=True,
    )
    profiling.profile(run, targets=[WITH_LOG], window=profiling.window_for(settings.duration))
    results = run.results()
    without = f"{WITHOUT_LOG} {WITHOUT_LOG_VARIANT}"
    measured = measuring.paired_ratio(results, without, WITH_LOG, "rps")
    share = profile_share(run, WITH_LOG, LOGGING)
    if share is not None:
        how = f"p = {fmt.percent(share)} of FastAPI's CPU samples in logging (its profile)"
    else:
        cpu_with = measuring.median(results, WITH_LOG, "server_cpu_ms_per_request")
        cpu_without = measuring.median(results, without, "server_cpu_ms_per_request")
        share = cpu_share_saved(cpu_with, cpu_without)
        how = f"p = {fmt.percent(share)} of FastAPI's CPU per request saved (no profile taken)"
    return Outcome(
        measured=measured,
        model=amdahl_speedup(share),
        model_name=f"Amdahl, 1 / (1 − p), {how}",
        measured_how=f"req/s without the log ÷ with it in the same round, wrk "
        f"-c{connections} -t{threads}, {measuring.rounds(settings)}",
        run_id=run.run_id,
    )


def busy_latency(settings: Settings) -> Outcome:
    """FastAPI under wrk with 10 connections, its one core saturated: Little's law says
    each request takes N / X — the connections over the measured throughput."""
    connections, threads = 10, 1
    run = measuring.run(
        "02_busy_latency",
        settings,
        servers=[WITH_LOG],
        loads=measure.tool(
            "wrk", connections=connections, threads=threads, duration=settings.duration
        ),
    )
    results = run.results()
    rps = measuring.median(results, WITH_LOG, "rps")
    return Outcome(
        measured=measuring.median(results, WITH_LOG, "lat_mean_ms"),
        model=connections / rps * 1000,
        model_name=f"Little's law, {connections} in flight / {fmt.count(rps)} req/s",
        measured_how=f"wrk's mean latency, FastAPI at {connections} connections, "
        f"{measuring.rounds(settings)}",
        run_id=run.run_id,
    )


EXERCISES = [
    Exercise(
        key="02.access_log",
        notebook=NOTEBOOK,
        title="Amdahl from a profile: FastAPI without its access log",
        variable="no_log_speedup_x",
        unit="× FastAPI's req/s with the log",
        # The log is about a fifth of FastAPI's CPU, so the whole effect is near 1.2×: a
        # wider tolerance would call "no change" (1×) close. The notebook's profile holds
        # about a hundred samples, so its p spreads by a few points; Amdahl with it lands
        # within about 10 %, and 12 % leaves room for the rounds' own spread.
        tolerance=0.12,
        explain="Amdahl assumes the CPU the log took is all that changes, and that FastAPI's "
        "one core was the limit in both runs. The server without the log is not the same "
        "program: what else does it do per request (look at servers/python/iodelay.py), and "
        "how many samples did the profile's share rest on?",
        measure=access_log,
    ),
    Exercise(
        key="02.busy_latency",
        notebook=NOTEBOOK,
        title="Little's law for a busy server: FastAPI's latency at 10 connections",
        variable="busy_latency_ms",
        unit="ms",
        # FastAPI's one core is saturated from a few connections on, so its req/s at 100
        # connections (the notebook's table) stands for the rate at 10; Little's law
        # with it lands within a few %, 25 % leaves room for short rounds' spread.
        tolerance=0.25,
        explain="FastAPI works on one request at a time; the other nine wait. How much of "
        "the latency is FastAPI's own CPU time per request and how much is waiting behind "
        "the others, and what would 100 connections do to it?",
        measure=busy_latency,
    ),
]
