"""The side measurement that decides a verdict (notebook 05's loop against a 404
backend) is pooled over its sessions on this machine class like a headline, so one
session's number, or a session merely counted, cannot turn the verdict."""

import math

import pytest

from benchbook.analyse.claims.explanation import EXPLAINS_WITHIN, measured_instead
from benchbook.analyse.numbers.stats import Comparison

CLASS = "AMD EPYC (family 25, model 17, stepping 1), 2 CPUs"
WHY = "its HTTP backend answered 404 to every call and its loop timed the failures"
# The CreateSession ratio of the article's loop (HTTP over gRPC time per call) in the six
# stored sessions of this class under the same conditions (data/runs, 2026-11-23 to
# 11-26), each with its own interval (2+2 runs: 66.7 %), typed in as constructed data.
STORED = [(102.4, 100.3, 104.6), (101.6, 96.1, 107.4), (101.0, 98.8, 103.1),
          (37.9, 30.2, 47.7), (100.4, 98.8, 101.9), (89.0, 87.9, 90.2)]  # fmt: skip
LEVEL = 2 / 3
ARTICLE = 106.0  # the article's CreateSession figure


def session(run_id: str, ratio: float, low: float, high: float, current: bool = False) -> dict:
    """One row of replication.spread."""
    return {"run_id": run_id, "machine_class": CLASS, "same_conditions": True,
            "current": current, "ratio": ratio, "ci_low": low, "ci_high": high,
            "ci_level": LEVEL}  # fmt: skip


def this_session(ratio: float, low: float, high: float) -> Comparison:
    return Comparison(ratio, low, high, LEVEL, 0.33, 2, 2, ratio, 1.0)


def explanation(sessions: list[tuple[float, float, float]]):
    """The sessions pooled, the last one this session's."""
    runs = [session(f"s{i}", *s) for i, s in enumerate(sessions[:-1])]
    runs.append(session("now", *sessions[-1], current=True))
    return measured_instead(WHY, this_session(*sessions[-1]), runs)


def test_one_sessions_side_measurement_does_not_decide_the_verdict() -> None:
    # A fresh session whose loop gave 72× (not within 1.3× of the article's 106×) turned
    # the verdict by itself; pooled with the stored sessions, it moves the estimate only.
    fresh = (72.0, 70.0, 74.0)
    alone = measured_instead(WHY, this_session(*fresh), [session("now", *fresh, current=True)])
    assert not alone.explains(ARTICLE)
    pooled = explanation([*STORED, fresh])
    assert pooled.explains(ARTICLE) == explanation(STORED).explains(ARTICLE)
    assert f"{len(STORED) + 1} sessions on this machine class" in pooled.why


@pytest.mark.parametrize("article", [ARTICLE, 3.1, 70.0, 140.0])
def test_a_session_equal_to_the_pooled_estimate_leaves_the_verdict(article: float) -> None:
    before = explanation(STORED)
    low, high = before.reproduced * 0.98, before.reproduced * 1.02
    after = explanation([(before.reproduced, low, high), *STORED])
    assert after.explains(article) == before.explains(article)
    assert after.reproduced == pytest.approx(before.reproduced, rel=0.01)


@pytest.mark.parametrize("value", [0.83, 60.0, 89.0, 140.0])
def test_any_number_of_identical_sessions_keeps_one_verdict(value: float) -> None:
    verdicts = set()
    for k in range(1, 11):
        found = explanation([(value, value * 0.97, value * 1.03)] * k)
        assert found.reproduced == pytest.approx(value)
        verdicts.add(found.explains(ARTICLE))
    assert verdicts == {1 / EXPLAINS_WITHIN <= value / ARTICLE <= EXPLAINS_WITHIN}


def test_without_a_reproduction_nothing_is_explained() -> None:
    found = measured_instead(WHY, None, [])
    assert math.isnan(found.reproduced) and not found.explains(ARTICLE)
