"""The planner (analyse.sessions.planner) on synthetic variance components whose best allocation is
known in closed form, and the components and costs it reads from stored sessions."""

import math
import random

import pytest

from benchbook.analyse.sessions.machine_classes import UNRECORDED
from benchbook.analyse.sessions.planner import (
    NEXT_SESSION,
    POOLED,
    Components,
    Costs,
    components_from,
    costs_from,
    floor,
    half_width,
    plan,
)
from benchbook.analyse.words.sessions import levels_sentence


def cheapest_sessions(c: Components, costs: Costs, rounds: int, target: float) -> float:
    """The seconds of the fewest sessions of ``rounds`` rounds that reach ``target``."""
    sessions = next(k for k in range(2, 10_000) if half_width(c, POOLED, rounds, k) <= target)
    return sessions * costs.session_s(rounds)


def test_the_rounds_per_session_are_where_kalibera_and_jones_put_them() -> None:
    # n* = √(σ² · fixed / (tau² · per round)) = √(0.04 · 100 / (0.0004 · 10)) ≈ 31.6
    c = Components(round_var=0.04, session_var=0.0004, rounds=6, sessions=3)
    costs = Costs(fixed_s=100.0, round_s=10.0)
    best = math.sqrt(c.round_var * costs.fixed_s / (c.session_var * costs.round_s))
    found = plan(c, costs, target=0.02, interval=POOLED)
    assert found.rounds is not None and found.minutes is not None and found.reached is not None
    assert best / 1.3 <= found.rounds <= best * 1.3
    assert found.reached <= 0.02
    # and it costs no more than halving or doubling the rounds, each with its fewest sessions
    for rounds in (round(best / 2), round(best * 2)):
        assert found.minutes * 60 <= cheapest_sessions(c, costs, rounds, 0.02)


def test_without_session_variance_rounds_do_the_work() -> None:
    """Sessions that agree beyond their rounds: long sessions, few of them (the next
    session's interval still needs a few, t(k−1) being 12.7 at k = 2); sessions that
    disagree take shorter sessions and more of them."""
    costs = Costs(fixed_s=600.0, round_s=5.0)
    agree = plan(Components(0.01, 0.0, 6, 3), costs, target=0.05, interval=NEXT_SESSION)
    assert agree.sessions is not None and agree.sessions <= 5
    assert agree.rounds is not None and agree.rounds >= 40
    assert agree.floor == 0.0
    disagree = plan(Components(0.01, 0.0004, 6, 3), costs, target=0.08, interval=NEXT_SESSION)
    assert disagree.rounds is not None and disagree.sessions is not None
    assert disagree.rounds < agree.rounds and disagree.sessions > agree.sessions


def test_a_target_below_the_floor_is_refused_and_the_floor_named() -> None:
    tau = 0.10  # sessions disagree by 10 % (SD on the log scale) whatever their rounds
    c = Components(round_var=0.01, session_var=tau**2, rounds=6, sessions=4)
    found = plan(c, Costs(fixed_s=60.0, round_s=10.0), target=0.10, interval=NEXT_SESSION)
    assert found.rounds is None and found.sessions is None and found.minutes is None
    assert found.floor == pytest.approx(math.expm1(1.959964 * tau), rel=1e-4)  # ≈ 21.7 %
    assert floor(c, POOLED) == 0.0  # more sessions always narrow the pooled estimate
    assert plan(c, Costs(60.0, 10.0), target=0.10, interval=POOLED).sessions is not None


def test_more_rounds_or_sessions_never_widen_an_interval() -> None:
    c = Components(round_var=0.02, session_var=0.001, rounds=6, sessions=3)
    for interval in (POOLED, NEXT_SESSION):
        widths = [half_width(c, interval, n, 5) for n in (2, 4, 8, 16)]
        assert widths == sorted(widths, reverse=True)
        widths = [half_width(c, interval, 6, k) for k in (2, 3, 5, 10)]
        assert widths == sorted(widths, reverse=True)


def test_components_are_recovered_from_simulated_sessions() -> None:
    """Sessions drawn from known σ² and tau² (many, so the estimates are close)."""
    rng = random.Random(7)
    round_var, session_var, rounds = 0.02, 0.0025, 6
    spread = []
    for i in range(400):
        shift = rng.gauss(0, math.sqrt(session_var))
        logs = [0.5 + shift + rng.gauss(0, math.sqrt(round_var)) for _ in range(rounds)]
        mean = sum(logs) / rounds
        variance = sum((y - mean) ** 2 for y in logs) / (rounds - 1) / rounds
        spread.append({"ratio": math.exp(mean), "log_variance": variance, "n": str(rounds),
                       "machine_class": "A", "same_conditions": True,
                       "current": i == 0})  # fmt: skip
    spread.append(
        {
            "ratio": 9.0,
            "log_variance": 0.01,
            "n": "6",
            "machine_class": "B",
            "same_conditions": True,
            "current": False,
        }
    )  # another class: left out
    c = components_from(spread)
    assert c is not None and c.sessions == 400 and c.rounds == 6
    # the median of a scaled chi-square(5) sits a little below its mean
    assert c.round_var == pytest.approx(round_var, rel=0.25)
    assert c.session_var == pytest.approx(session_var, rel=0.35)


def test_one_session_gives_no_components_and_two_samples_count_their_rounds() -> None:
    row = {"ratio": 2.0, "log_variance": 0.01, "n": "4+4", "machine_class": "A",
           "same_conditions": True, "current": True}  # fmt: skip
    assert components_from([row]) is None
    c = components_from([row, {**row, "ratio": 2.2, "current": False}])
    assert c is not None and c.rounds == 4 and c.round_var == pytest.approx(0.04)


def test_costs_come_from_the_runs_own_timestamps() -> None:
    manifest = {
        "created_utc": "2026-11-27T07:11:47+00:00",
        "completed_utc": "2026-11-27T07:13:56+00:00",  # 129 s
        "round_orders": [["a", "b"]] * 6,
        "machine_speed": {
            side: {"go_runs": [0.4, 0.4], "python_runs": [0.4, 0.3]} for side in ("before", "after")
        },  # fmt: skip
    }
    costs = costs_from(manifest)
    assert costs is not None
    assert costs.fixed_s == pytest.approx(3.0)  # the speed references, before and after
    assert costs.round_s == pytest.approx((129 - 3.0) / 6)
    assert costs_from({**manifest, "completed_utc": None}) is None


def test_the_appendix_says_what_more_rounds_and_one_more_session_would_narrow() -> None:
    row = {"ratio": 2.0, "log_variance": 0.01 / 6, "n": "6 rounds", "machine_class": "A",
           "same_conditions": True, "current": False}  # fmt: skip
    agreeing = [row | {"current": i == 0} for i in range(4)]  # no scatter beyond rounds
    sentence = levels_sentence(agreeing)
    assert "sessions on this machine class differ no more than their rounds explain" in sentence
    assert (
        "Twice the rounds per session would narrow both intervals by 29 %" in sentence
    )  # 1 − 1/√2
    assert "below" not in sentence  # no floor without between-session variance
    scattered = [
        r | {"ratio": ratio} for r, ratio in zip(agreeing, (1.6, 2.0, 2.5, 2.1), strict=True)
    ]
    sentence = levels_sentence(scattered)
    assert "beyond their rounds" in sentence and "takes the next session's below ±" in sentence
    assert levels_sentence(agreeing[:1]) == ""


def test_the_appendix_names_the_spread_between_machine_classes_where_there_are_several() -> None:
    row = {"ratio": 2.0, "log_variance": 0.01 / 6, "n": "6 rounds", "machine_class": "A",
           "same_conditions": True, "current": False}  # fmt: skip
    one_class = [row | {"current": i == 0} for i in range(3)]
    assert "machine classes" not in levels_sentence(one_class)
    other = row | {"machine_class": "B", "ratio": 2.0 * math.exp(0.1)}
    unrecorded = row | {"machine_class": UNRECORDED, "ratio": 9.0}  # no class: no level
    elsewhere = row | {"machine_class": "C", "ratio": 9.0, "same_conditions": False}
    sentence = levels_sentence([*one_class, other, other, unrecorded, elsewhere])
    # two class means 0.1 apart on the log scale: one SD of them is 0.1 / √2
    share = math.expm1(0.1 / math.sqrt(2))
    assert f"the mean ratios of 2 classes (5 sessions) differ by ±{100 * share:.1f} %" in sentence
