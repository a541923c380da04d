"""A verdict cannot be flipped by counting a session (verdicts' docstring): adding a session
equal to the pooled estimate never changes a verdict, k = 1…10 identical sessions keep one
verdict, and the issue's example (sessions at 7.6×, 7.7×, 7.8× against an article's 6.5×)
keeps one verdict however many of them are counted. Built through replication() itself, on
a seeded grid of estimates, article figures, A/A bands and kind spreads."""

import itertools
import math

import numpy as np
import pytest

from benchbook.analyse.replication import replication
from benchbook.analyse.stats import compare_paired
from benchbook.analyse.verdicts import reproduction

CLASS = "a class"
JITTER = [1.00, 1.01, 0.99, 1.02, 0.98, 1.01, 0.99, 1.00]


def session(ratio: float, index: int) -> dict:
    """A stored session of the headline as spread() gives it, ±3 % within."""
    return {
        "run_id": f"r{index:02d}", "current": index == 0, "same_conditions": True,
        "machine_class": CLASS, "ratio": ratio, "ci_low": ratio * 0.97,
        "ci_high": ratio * 1.03, "ci_level": 0.96, "log_variance": 1e-4,
        "headline": "this headline",
    }  # fmt: skip


def kinds(sd: float) -> dict:
    """Three other headlines of the kind on the class, spread ``sd`` about their means."""
    rng = np.random.default_rng(7)
    return {CLASS: {f"other {i}": list(np.exp(rng.normal(i, sd, 6))) for i in range(3)}}


def verdict(ratios: list[float], article: float, band: float | None, sd: float) -> str:
    c = compare_paired([r * j for r, j in zip([ratios[0]] * 8, JITTER, strict=True)], [1.0] * 8)
    runs = [session(r, i) for i, r in enumerate(ratios)]
    sessions = replication(c, runs, kinds=kinds(sd))
    return reproduction(c, article, band=band, sessions=sessions)[0]


GRID = list(
    itertools.product(
        [[2.0], [2.0, 2.3], [1.9, 2.2, 2.1], [1.02, 1.05, 0.99, 1.01], [0.5, 0.55, 0.6]],
        [0.5, 1.0, 1.1, 1.9, 2.1, 2.4, 3.0, 6.5],  # article figures
        [None, 1.08],  # A/A bands
        [0.03, 0.1],  # the kind's spread
    )
)


@pytest.mark.parametrize(("ratios", "article", "band", "sd"), GRID)
def test_a_session_at_the_estimate_changes_no_verdict(ratios, article, band, sd) -> None:
    mean = math.exp(float(np.mean(np.log(ratios))))
    before = verdict(ratios, article, band, sd)
    assert verdict([*ratios, mean], article, band, sd) == before
    assert verdict([*ratios, mean, mean, mean], article, band, sd) == before


@pytest.mark.parametrize(("ratio", "article"), [(2.0, 2.5), (2.0, 2.2), (1.03, 1.5), (7.7, 6.5)])
def test_identical_sessions_keep_one_verdict(ratio: float, article: float) -> None:
    verdicts = {verdict([ratio] * k, article, 1.08, 0.05) for k in range(1, 11)}
    assert len(verdicts) == 1, verdicts


def test_the_issue_example_keeps_one_verdict() -> None:
    """Sessions at 7.6×, 7.7×, 7.8× (±3 %) against 6.5×: one verdict at 1, 2, 3 and 4
    sessions (the fourth at their estimate), where the old rule said 'same direction',
    'reproduced', 'same direction'."""
    ratios = [7.6, 7.7, 7.8]
    mean = math.exp(float(np.mean(np.log(ratios))))
    counted = [ratios[:1], ratios[:2], ratios, [*ratios, mean]]
    found = [verdict(r, 6.5, 1.08, 0.05) for r in counted]
    assert len(set(found)) == 1, found
