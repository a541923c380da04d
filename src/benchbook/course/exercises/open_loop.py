"""Lesson 06's exercises: how much of a stall a closed loop's p90 hides (the pause
model), and the p99 an open loop meets at 50 % and at 80 % utilisation (M/M/1 against
M/D/1)."""

from functools import partial

import pandas as pd

from benchbook import measure
from benchbook.analyse.experiments import coordinated_omission as co
from benchbook.analyse.experiments.offered_load import closed_loop_maxima, offered_rates
from benchbook.analyse.models import queueing as q
from benchbook.analyse.numbers import formatting as fmt
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring
from benchbook.runs.columns import percentile_column

NOTEBOOK = "06_open_loop"

# Exercise 1: the freeze server stops for PAUSE_MS at the end of every PERIOD_MS. A period
# of 250 ms puts 20 % of scheduled requests in a pause (so the open loop's p90 shows it),
# while wrk's 10 connections, each sending about every 10 ms, meet it with about 1 in 20
# of their requests (so what wrk timed at p90 does not).
PAUSE_MS, PERIOD_MS = 50, 250
FREEZE_RATE = 1000  # vegeta -rate, req/s; the pause model does not depend on it
FREEZE_CONNECTIONS, FREEZE_THINK_MS = 10, 10
STALL_SHARE = 0.9  # the percentile compared: p90

# Exercises 2 and 3: one uvicorn process on one core, the nearest thing here to a single queue
# (notebook 06's runs: its CPU share follows ρ). μ is its closed-loop maximum, measured
# as the notebook measures it; the latency without queueing is its p99 at the notebook's
# lowest share of μ.
QUEUE_SERVER = "python-hello"
CLOSED_LOOP_CONNECTIONS = 100
UNLOADED_SHARE = 0.1


def hidden_stall_ms(
    pause_s: float, period_s: float, closed_stalled: float, share: float = STALL_SHARE
) -> float:
    """How much of a stall the ``share`` quantile of a closed loop hides against an open
    loop's, in ms. The open loop's is the pause model's (max(0, P − (1 − q)·T) above the
    fast path); the closed loop's, above its own fast path, is nothing while fewer than
    1 − q of its requests meet a pause (``closed_stalled``: one per connection per pause),
    else about the whole pause (a connection sends into a pause soon after it starts)."""
    open_ms = co.pause_model(pause_s, period_s, (share,))[share]
    closed_ms = 1000 * pause_s if closed_stalled > 1 - share else 0.0
    return open_ms - closed_ms


def coordinated_omission(settings: Settings) -> Outcome:
    """The freeze server (50 ms every 250 ms) under vegeta at 1,000 req/s and under wrk
    (10 connections, 10 ms think), runs interleaved as notebook 06 runs them: the open
    loop's p90 minus what wrk timed (before its fill-in) at p90."""
    pause_s, period_s = PAUSE_MS / 1000, PERIOD_MS / 1000
    run = measuring.run(
        "06_coordinated_omission",
        settings,
        servers=["go-freeze"],
        loads=[
            measure.tool("vegeta", rate=FREEZE_RATE, duration=settings.duration),
            measure.tool(
                "wrk",
                connections=FREEZE_CONNECTIONS,
                threads=1,
                duration=settings.duration,
                think=f"{FREEZE_THINK_MS}ms",
                uncorrected=True,
            ),
        ],
        server_params={"pause_ms": PAUSE_MS, "period_ms": PERIOD_MS},
    )
    runs = co.freeze_runs(run.results())
    column = percentile_column(STALL_SHARE)
    stalled = co.stalled_share(runs[runs["target"] == co.TIMED], period_s)
    return Outcome(
        measured=measuring.median(runs, co.OPEN, column) - measuring.median(runs, co.TIMED, column),
        model=hidden_stall_ms(pause_s, period_s, stalled),
        model_name=f"the pause model, open-loop p90 = {PAUSE_MS} − 0.1 × {PERIOD_MS} ms above "
        f"the fast path; wrk's p90 the fast path ({fmt.percent(stalled, 1)} of its requests "
        "met a pause)",
        measured_how=f"vegeta's p90 at {FREEZE_RATE:,} req/s − wrk's as timed "
        f"({FREEZE_CONNECTIONS} connections, {FREEZE_THINK_MS} ms think), "
        f"{measuring.rounds(settings)} each",
        run_id=run.run_id,
    )


def anchored_p99_ms(formula: q.Formula, rho: float, mu: float, unloaded_ms: float) -> float:
    """A queue's p99 at utilisation ``rho`` as notebook 06 predicts it: the latency
    without queueing plus what the model's p99 grows by from an idle server to ``rho``."""
    return float(q.predicted_ms(formula, rho, mu, unloaded_ms))


def p99_at(results: pd.DataFrame, rate: float) -> float:
    """The median p99 over the rounds vegeta offered ``rate``."""
    rows = results[results["target_rate"] == rate]
    if rows.empty:
        raise ValueError(
            f"no rounds at {rate:g} req/s; measured: {sorted(set(results['target_rate']))}"
        )
    return float(rows["lat_p99_ms"].median())


def queue_p99(settings: Settings, rho: float) -> Outcome:
    """python-hello's closed-loop maximum μ (wrk, 100 connections) first, then vegeta at
    10 % of μ (the latency without queueing) and at ``rho`` of it: the p99 there against
    M/M/1's, anchored at the p99 at 10 % as notebook 06 anchors its queues."""
    maxima_run = measuring.run(
        "06_service_time",
        settings,
        servers=[QUEUE_SERVER],
        loads=measure.tool(
            "wrk", connections=CLOSED_LOOP_CONNECTIONS, threads=1, duration=settings.duration
        ),
    )
    mu = closed_loop_maxima(maxima_run.results())[QUEUE_SERVER]
    low_rate, rate = offered_rates({QUEUE_SERVER: mu}, [UNLOADED_SHARE, rho])[QUEUE_SERVER]
    run = measuring.run(
        f"06_queue_p99_rho_{100 * rho:.0f}",
        settings,
        servers=[QUEUE_SERVER],
        loads=measure.tool("vegeta", rate=[low_rate, rate], duration=settings.duration),
    )
    results = run.results()
    unloaded = p99_at(results, low_rate)
    offered = rate / mu  # ρ as offered: the rate is rounded to three digits
    md1 = anchored_p99_ms(q.md1_response_quantile, offered, mu, unloaded)
    return Outcome(
        measured=p99_at(results, rate),
        model=anchored_p99_ms(q.mm1_response_quantile, offered, mu, unloaded),
        model_name=f"M/M/1 at ρ = {offered:.2f}: p99 {fmt.milliseconds(unloaded)} ms at 10 % + "
        f"−ln(0.01)·S·(1/(1 − ρ) − 1), S = 1/μ = {fmt.milliseconds(1000 / mu)} ms "
        f"(M/D/1: {fmt.milliseconds(md1)} ms)",
        measured_how=f"vegeta at {fmt.count(rate)} req/s against {QUEUE_SERVER} "
        f"(μ = {fmt.count(mu)} req/s, wrk at {CLOSED_LOOP_CONNECTIONS} connections), "
        f"{measuring.rounds(settings)}",
        run_id=run.run_id,
    )


EXERCISES = [
    Exercise(
        key="06.coordinated_omission",
        notebook=NOTEBOOK,
        title="Coordinated omission with a 50 ms pause",
        variable="hidden_p90_ms",
        unit="ms",
        # The open loop's p90 sits a little above the model's (the requests queued in a
        # pause are served one after another when it ends), and wrk's p90 a little above
        # its fast path; both move the gap by a few ms of 25. Saying wrk hides nothing, or
        # the whole pause, is off by far more.
        tolerance=0.25,
        explain="the pause model puts the open loop's p90 at P − 0.1·T above the fast path, "
        "and wrk's at the fast path because fewer than 10 % of its requests met a pause. "
        "Which requests did vegeta send during each pause that wrk never sent, and why does "
        "the open loop's p90 sit a little above the model's (think of the requests queued "
        "during a pause)? From which percentile up would what wrk timed show the stall?",
        measure=coordinated_omission,
    ),
    Exercise(
        key="06.p99_at_rho_50",
        notebook=NOTEBOOK,
        title="p99 at half load (ρ = 0.5)",
        variable="p99_at_rho_50_ms",
        unit="ms",
        # Half loaded, either queue adds a fraction of a ms to a p99 of a ms or two: the
        # p99 without queueing, itself measured on a few dozen slow requests, sets the
        # spread. ±30 % keeps M/M/1 added to it inside in most sessions; the bare formula
        # (no latency without queueing) lands far below.
        tolerance=0.3,
        explain="at ρ = 0.5 either model adds only a fraction of a millisecond to the latency "
        "without queueing. How much of the measured p99 was that latency, how far apart are "
        "M/M/1 and M/D/1 here, and what makes a p99 at a light load (the 10 % run) vary "
        "from round to round?",
        measure=partial(queue_p99, rho=0.5),
    ),
    Exercise(
        key="06.p99_at_rho_80",
        notebook=NOTEBOOK,
        title="p99 at 80 % load (ρ = 0.8): M/M/1 or M/D/1",
        variable="p99_at_rho_80_ms",
        unit="ms",
        # With 20 % spare capacity any stall of the server (a garbage collection, another
        # process on its core) leaves a queue that drains slowly, and the p99 of a round
        # often lands well above M/M/1's (twice it or more, in stored sessions): a wide
        # band, and the gap is the lesson (the hockey stick's rare events).
        tolerance=0.35,
        explain="M/M/1 takes arrivals as random and service times as exponential, M/D/1 "
        "service times as constant; vegeta sends on a fixed schedule and a hello-world "
        "handler does the same work every time. Which model came closer, and what in the "
        "server (garbage collection, the access log, the event loop serving requests in "
        "batches) makes its service times vary? Why does a short stall of the server move "
        "the p99 at ρ = 0.8 so much more than at ρ = 0.5?",
        measure=partial(queue_p99, rho=0.8),
    ),
]
