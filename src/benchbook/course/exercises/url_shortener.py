"""Lesson 04's exercises: the think-time law under the author's Locust wait, bbolt's
create rate from this disk's sync time, and the author's two-step ids at 1 connection
against 400."""

import math
import os
import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd

from benchbook import measure
from benchbook.analyse.experiments import shortener
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring
from benchbook.runs.durations import parse_duration
from benchbook.runs.runlock import machine_lock

NOTEBOOK = "04_url_shortener"
MIX = {"create": 5, "get": 4, "redirect": 4}  # the author's locustfile, as the notebook's

# Exercise 1: the author's wait (between(0.01, 9): 4.5 s on average) for 50 users.
THINK_USERS = 50
THINK_WAIT_MS = (10, 9000)
CLASSROOM_ROUND_S = 5.0  # the classroom profile's exercise_duration
SPAWN_S = 1  # Locust starts all 50 users within its first second (spawn rate 50/s)
WAITS_COUNTED = 2  # mean waits counted after the first, which only settles the start-up burst

# Exercise 2: bbolt v1.5.0 syncs twice per commit (data pages, then the meta page).
SYNCS_PER_COMMIT = 2
PAGE = 4096  # bbolt's page size on this machine (the OS page)

# Exercise 3: the two loads of the author's two-step ids.
SERIAL, CONCURRENT = 1, 400


def think_time_load(settings: Settings) -> tuple[str, int]:
    """Exercise 1's Locust wait ('10-9000ms') and run length (whole seconds).

    The think-time law holds over several waits per user, not over a round's few
    seconds. A run lasts the round's duration or, if longer, the users' start, their
    first wait (not counted), ``WAITS_COUNTED`` more mean waits (counted) and Locust's
    last second (partial, so dropped): 16 s with the author's wait. Rounds shorter than
    the classroom's 5 s (the smoke test's 1 s) scale the wait down with them, so the
    same law is checked over the same number of waits in a run of a few seconds."""
    round_s = parse_duration("exercise_duration", settings.duration)
    scale = min(1.0, round_s / CLASSROOM_ROUND_S)
    low, high = (max(1, round(ms * scale)) for ms in THINK_WAIT_MS)
    wait = f"{low}-{high}ms"
    needed_s = SPAWN_S + (1 + WAITS_COUNTED) * shortener.mean_wait_s(wait) + 1
    return wait, math.ceil(max(round_s, needed_s))


def rounds_of(settings: Settings, run_s: float) -> str:
    """'median of 3 rounds of 16 s' (a run longer than the settings' own duration)."""
    plural = "round" if settings.repetitions == 1 else "rounds"
    return f"median of {settings.repetitions} {plural} of {run_s:g} s"


def think_time(settings: Settings) -> Outcome:
    """Go + bbolt under the author's mix, 50 Locust users each waiting 10 ms–9 s between
    requests: X = N / (Z + R) ≈ 50 / 4.5 s, whatever the server."""
    wait, run_s = think_time_load(settings)
    run = measuring.run(
        "04_think_time",
        settings,
        servers=["go-shortener"],
        loads=measure.tool(
            "locust",
            users=THINK_USERS,
            spawn_rate=THINK_USERS,
            wait=wait,
            duration=f"{run_s}s",
            user_class="HttpUser",
            processes=1,
        ),
        variants={"go-shortener": ["bolt"]},
        mix=MIX,
        records=10,
    )
    mean_wait = shortener.mean_wait_s(wait)
    # The notebook's own comparison: the rate once every user is past its first wait
    # (each user's first request, sent as it starts, would inflate it), against the law
    # with the measured response time.
    row = shortener.waiting_users(run.results(), mean_wait).iloc[0]
    if math.isnan(row["measured req/s"]):
        raise RuntimeError(f"Locust's {run_s} s runs were too short to settle: no rate")
    return Outcome(
        measured=float(row["measured req/s"]),
        model=float(row["predicted req/s"]),
        model_name=(
            f"think-time law, {THINK_USERS} users / ({mean_wait:g} s wait + "
            f"{row['mean response ms']:.1f} ms response)"
        ),
        measured_how=(
            f"Go + bbolt, {THINK_USERS} Locust users waiting {wait}, the rate after their "
            f"first wait, {rounds_of(settings, run_s)}"
        ),
        run_id=run.run_id,
    )


def sync_ms(directory: Path | None = None, samples: int = 200, budget_s: float = 2.0) -> float:
    """The median time, in ms, to write one page into a file and flush it to the disk
    (fdatasync, as bbolt does on Linux), in ``directory`` (default: the temp folder,
    where the harness keeps bbolt's file). At most ``samples`` times, and no longer than
    about ``budget_s`` on a slow disk (but at least 10 times)."""
    flush = getattr(os, "fdatasync", os.fsync)  # macOS has fsync only
    page, pages = os.urandom(PAGE), 16
    times: list[float] = []
    with tempfile.TemporaryFile(dir=directory) as file:
        fd = file.fileno()
        # Allocated and synced first, so each flush writes data, not a file growing.
        os.pwrite(fd, bytes(PAGE * pages), 0)
        os.fsync(fd)
        deadline = time.perf_counter() + budget_s
        while len(times) < samples and (len(times) < 10 or time.perf_counter() < deadline):
            start = time.perf_counter()
            os.pwrite(fd, page, (len(times) % pages) * PAGE)
            flush(fd)
            times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def bolt_creates_rate(sync_time_ms: float, cpu_ms: float) -> float:
    """Creates per second when each create, one at a time, takes its CPU time on the
    server's one core and then ``SYNCS_PER_COMMIT`` disk syncs, one after the other:
    1 / (CPU time + 2 × sync time)."""
    return 1000 / (cpu_ms + SYNCS_PER_COMMIT * sync_time_ms)


def bolt_creates(settings: Settings) -> Outcome:
    """Go + bbolt creating URLs with wrk at 10 connections. bbolt runs one write
    transaction at a time, each commit waiting for two disk syncs (timed on this disk
    first); the server's one core, busy with one create while no sync is pending and idle
    while one is (its CPU % stays well below a core), adds each create's CPU time (the
    run's own) to them: 1 / (CPU time + 2 × sync time)."""
    connections = 10  # always a write waiting for bbolt's lock: the disk never idles
    # Timed while holding the machine, as the run is: another session's run would share
    # the disk with the syncs.
    with machine_lock("exercise_04_sync_time"):
        sync = sync_ms()
    run = measuring.run(
        "04_bolt_creates",
        settings,
        servers=["go-shortener"],
        loads=measure.tool("wrk", connections=connections, threads=2, duration=settings.duration),
        variants={"go-shortener": ["bolt"]},
        requests={"go-shortener": ["create"]},
    )
    results, target = run.results(), "go-shortener bolt create"
    cpu = measuring.median(results, target, "server_cpu_ms_per_request")
    return Outcome(
        measured=measuring.median(results, target, "rps"),
        model=bolt_creates_rate(sync, cpu),
        model_name=(
            f"one create at a time, {cpu:.3g} ms of CPU + {SYNCS_PER_COMMIT} syncs of {sync:.3g} ms"
        ),
        measured_how=(
            f"Go + bbolt creates at {connections} connections, {measuring.rounds(settings)}"
        ),
        run_id=run.run_id,
    )


def kept_share(runs: pd.DataFrame) -> float:
    """The share of the records a store confirmed that it kept, over ``runs`` (rows with
    the data-loss counts: measure.data_loss): an id handed out to several records keeps
    one of them, and a sampled wrong read-back counts its share of the rest lost."""
    created, distinct = runs["created"].sum(), runs["distinct_ids"].sum()
    checked, wrong = runs["resolved_checked"].sum(), runs["resolved_wrong"].sum()
    if not created:
        raise ValueError("no record confirmed: nothing to keep or lose")
    read_right = 1 - wrong / checked if checked else 1.0
    return float(distinct / created * read_right)


def lost_updates(settings: Settings) -> Outcome:
    """aiohttp + Redis with the author's two-step ids (read the counter, then write it
    back): at 1 connection one create is in flight at a time (Little's law: N = 1), so
    no two reads of the counter overlap and the store keeps every URL it confirmed."""
    run = measuring.run(
        "04_lost_updates",
        settings,
        servers=["python-shortener"],
        loads=measure.tool(
            "wrk", connections=[SERIAL, CONCURRENT], threads=1, duration=settings.duration
        ),
        variants={"python-shortener": ["redis two-step"]},
        requests={"python-shortener": ["create"]},
        server_params={"workers": 1},
    )
    # Every row, flagged or not: a run flagged data_loss is what this exercise measures.
    rows = run.results().dropna(subset=["created"])
    serial, concurrent = (rows[rows["connections"] == n] for n in (SERIAL, CONCURRENT))
    return Outcome(
        measured=100 * kept_share(serial),
        model=100.0,
        model_name=f"Little's law, {SERIAL} create in flight: no two reads of the counter overlap",
        measured_how=(
            f"aiohttp + Redis two-step creates at {SERIAL} connection, "
            f"{measuring.rounds(settings)} (at {CONCURRENT} connections: "
            f"{100 * kept_share(concurrent):.3g} % kept)"
        ),
        run_id=run.run_id,
    )


EXERCISES = [
    Exercise(
        key="04.think_time",
        notebook=NOTEBOOK,
        title="The think-time law for 50 users and 4.5 s waits",
        variable="think_time_rps",
        unit="req/s",
        # Locust's rate over two waits of 50 users varies by about 7 % a run; ±25 % tells
        # the mean wait (right) from the longest (half the rate) or none at all.
        tolerance=0.25,
        explain="each user spends its wait plus one response time per request; how long "
        "is a response here next to the wait, and why does the server's speed barely "
        "matter to the rate?",
        measure=think_time,
    ),
    Exercise(
        key="04.bolt_creates",
        notebook=NOTEBOOK,
        title="Bolt's writes per second from a measured sync time",
        variable="bolt_creates_rps",
        unit="req/s",
        # The disk's sync time moves by tens of percent from minute to minute (other
        # work on the machine); ±30 % takes the model from a sync timed a minute apart
        # and rejects the syncs alone (about twice the rate) or the CPU alone.
        tolerance=0.3,
        explain="the model puts each create's CPU time and its two syncs one after the "
        "other; which of that work could overlap another create's sync, which cannot "
        "(bbolt's one writer), and does the gap say the syncs here took longer or "
        "shorter than the timed page?",
        measure=bolt_creates,
    ),
    Exercise(
        key="04.lost_updates",
        notebook=NOTEBOOK,
        title="Lost updates at 1 vs 400 connections",
        variable="kept_pct",
        unit="% of the confirmed URLs",
        # A count, not a noisy rate: at one connection the store keeps every URL or it
        # does not, so only a prediction of (almost) nothing lost is close.
        tolerance=0.02,
        explain="at 1 connection the two steps never overlap; at 400 (the measurement "
        "line gives what that run kept) how many creates are between their read of the "
        "counter and their write at once, and what happens to all but one of those that "
        "read the same value?",
        measure=lost_updates,
    ),
]
