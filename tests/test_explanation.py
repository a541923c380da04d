"""The side measurement that decides a verdict (notebook 05's loop against a 404
backend) is pooled over its sessions on this machine class like a headline, so one
session's number, or a session merely counted, cannot turn the verdict."""

import math
import re

import pytest

from benchbook.analyse.claims.explanation import EXPLAINS_WITHIN, measured_instead
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.words.verdicts import explanation_reason

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
    # A fresh session whose loop gave 72× (70–74×) turned the verdict by itself; pooled
    # with the stored sessions it is one of seven, and the verdict is read off the pooled
    # interval that the reason prints.
    fresh = (72.0, 70.0, 74.0)
    alone = measured_instead(WHY, this_session(*fresh), [session("now", *fresh, current=True)])
    assert not alone.explains(ARTICLE)
    pooled = explanation([*STORED, fresh])
    assert pooled.low < fresh[1] and pooled.high > ARTICLE and pooled.explains(ARTICLE)
    assert f"{len(STORED) + 1} sessions on this machine class" in explanation_reason(pooled)


@pytest.mark.parametrize("article", [ARTICLE, 3.1, 70.0, 140.0])
def test_the_verdict_is_read_off_the_printed_interval(article: float) -> None:
    found = explanation(STORED)
    printed = re.search(r"95 % CI ([\d.,]+)–([\d.,]+)×", explanation_reason(found))
    assert printed, explanation_reason(found)
    low, high = (float(x.replace(",", "")) for x in printed.groups())
    assert found.explains(article) == (low / EXPLAINS_WITHIN <= article <= high * EXPLAINS_WITHIN)


@pytest.mark.parametrize("value", [0.83, 60.0, 89.0, 140.0])
def test_sessions_added_move_a_verdict_once_at_most_from_explained_to_not(value: float) -> None:
    verdicts = [
        explanation([(value, value * 0.97, value * 1.03)] * k).explains(ARTICLE)
        for k in range(1, 11)
    ]
    assert verdicts == sorted(verdicts, reverse=True), verdicts  # True … True, False … False
    # ten sessions agreeing on one figure: explained where the machines' factor reaches it
    assert verdicts[-1] == (value / EXPLAINS_WITHIN <= ARTICLE <= value * EXPLAINS_WITHIN)


def test_without_a_reproduction_nothing_is_explained() -> None:
    found = measured_instead(WHY, None, [])
    assert math.isnan(found.reproduced) and not found.explains(ARTICLE)
