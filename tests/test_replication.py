"""The sessions behind a verdict, on constructed comparisons: the interval judged on is
the wider of this session's and the sessions' range, sessions that disagree on the
direction leave nothing to resolve, and a moved estimate says whether the machine's speed
changed too."""

import pytest

from benchbook.analyse.findings import NOT_RESOLVABLE, REPRODUCED, SAME_DIRECTION, reproduction
from benchbook.analyse.replication import (
    WITH_SPEED,
    conditions,
    moved_between_sessions,
    replication,
)
from benchbook.analyse.stats import compare_paired

BASE = [1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1250.0, 1050.0, 1150.0]
JITTER = [1.00, 1.01, 0.99, 1.02, 0.98, 1.01, 0.99, 1.00]


def paired(ratio: float):
    return compare_paired([v * ratio * j for v, j in zip(BASE, JITTER, strict=True)], BASE)


def session(ratio: float, low: float, high: float, go_s: float = 0.5, python_s: float = 0.5,
            date: str = "2026-11-23 19:00", current: bool = False) -> dict:  # fmt: skip
    return {"ratio": ratio, "ci_low": low, "ci_high": high, "go_s": go_s, "python_s": python_s,
            "date": date, "current": current, "same_conditions": True}  # fmt: skip


def test_one_session_is_judged_on_its_own_interval() -> None:
    c = paired(4.0)
    single = replication(c, [session(c.ratio, c.ratio_low, c.ratio_high, current=True)])
    assert single.sessions == 1 and single.judged(c) == (c.ratio_low, c.ratio_high)
    assert single.text() == "1 session"


def test_the_verdict_uses_the_wider_of_the_interval_and_the_sessions_range() -> None:
    c = paired(4.0)  # its interval is narrow: about 3.9–4.1×
    runs = [session(5.4, 4.8, 6.2), session(c.ratio, c.ratio_low, c.ratio_high, current=True)]
    sessions = replication(c, runs)
    assert sessions.sessions == 2 and (sessions.low, sessions.high) == (c.ratio, 5.4)
    assert sessions.judged(c) == (c.ratio_low, 5.4)
    # 5× lies outside this session's interval, inside the sessions' range: reproduced.
    assert reproduction(c, 5.0)[0] == SAME_DIRECTION
    verdict, why = reproduction(c, 5.0, sessions=sessions)
    assert verdict == REPRODUCED and "2 sessions: 4.0–5.4×" in why
    assert reproduction(c, 7.0, sessions=sessions)[0] == SAME_DIRECTION


def test_sessions_on_both_sides_of_one_are_not_resolvable() -> None:
    c = paired(1.3)
    runs = [session(0.8, 0.7, 0.9), session(c.ratio, c.ratio_low, c.ratio_high, current=True)]
    sessions = replication(c, runs)
    assert sessions.disagree()
    verdict, why = reproduction(c, 2.0, sessions=sessions)
    assert verdict == NOT_RESOLVABLE and "both sides of 1" in why


def test_sessions_under_other_conditions_do_not_count() -> None:
    c = paired(4.0)
    other = {**session(9.0, 8.0, 10.0), "same_conditions": False}
    assert replication(c, [other]).sessions == 1


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        # the estimates lie inside each other's intervals: nothing moved
        ([session(4.0, 3.5, 4.6), session(4.4, 3.9, 5.0)], ""),
        # apart, and the Go reference took 12 % longer in the higher session
        ([session(4.0, 3.8, 4.2, go_s=0.50), session(5.4, 5.0, 5.8, go_s=0.56)],
         f"{WITH_SPEED}: in the session with the higher ratio its Go reference ran 12 % slower "
         "and its Python reference at the same speed"),
        # apart while the reference stayed within 5 %
        ([session(4.0, 3.8, 4.2, python_s=0.50), session(5.4, 5.0, 5.8, python_s=0.51)],
         "while the machine's speed stayed within 5 %: something else changed"),
        # no speed recorded in one of them: nothing said
        ([session(4.0, 3.8, 4.2), {**session(5.4, 5.0, 5.8), "go_s": None}], ""),
    ],
)  # fmt: skip
def test_a_moved_estimate_says_whether_the_machines_speed_changed_too(runs, expected) -> None:
    text = moved_between_sessions(runs)
    assert (expected in text) if expected else text == ""
    if expected:
        assert text.startswith("Moved between sessions: 4.0× (2026-11-23 19:00) to 5.4×")


def test_the_conditions_ignore_rounds_other_targets_and_calibration() -> None:
    params = {"tools": ["wrk"], "loads": [{"connections": 100, "duration_s": 3.0}],
              "warmup_s": 1.0, "pinning": {"server_cpus": [0]}, "restart": True,
              "server_params": {"go": {"delay_ms": 1}, "py": {"workers": 1}, "other": {}},
              "repetitions": 6, "targets": ["go", "py", "other"],
              "calibration": {"run_id": "a"}}  # fmt: skip
    again = {**params, "repetitions": 12, "targets": ["go", "py"], "calibration": {"run_id": "b"}}
    assert conditions(params, {"go", "py"}) == conditions(again, {"go", "py"})
    longer = {**params, "loads": [{"connections": 100, "duration_s": 30.0}]}
    assert conditions(params, {"go", "py"}) != conditions(longer, {"go", "py"})
    unrestarted = {**params, "restart": None}
    assert conditions(params, {"go", "py"}) != conditions(unrestarted, {"go", "py"})
