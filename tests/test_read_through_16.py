"""The rules read-through 16 found missing on a class's first session (AMD family 25
model 1): a lower bound prints rounded down, a busy machine names the figure that made it
busy, a too-small sample's 60 % interval is no "likely" difference, a sweep that peaked
before it settled is not called "a ceiling, not a peak", and a capacity placed between two
rates bounds a comparison from the rate it met, not from where it was placed."""

import math

import pandas as pd
import pytest

from benchbook.analyse.claims import bounds
from benchbook.analyse.experiments.capacity import CAPACITY
from benchbook.analyse.models.ceiling import Ceiling
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.rows.limits import SideLimit, busy_evidence
from benchbook.analyse.words import bounds as bound_words
from benchbook.analyse.words import conclusions, models
from benchbook.runs.limits import Limit


@pytest.mark.parametrize(
    ("value", "at_least", "at_most"),
    [(2.65, "2.6×", "2.7×"), (2.6, "2.6×", "2.6×"), (3.22, "3.2×", "3.3×"), (106.7, "106×", "107×"),
     (1.549, "1.54×", "1.55×"), (9.96, "9.9×", "10×")],
)  # fmt: skip
def test_a_bound_is_rounded_so_it_still_bounds(value: float, at_least: str, at_most: str) -> None:
    assert fmt.ratio_at_least(value) == at_least and fmt.ratio_at_most(value) == at_most
    assert float(at_least.rstrip("×")) <= value <= float(at_most.rstrip("×"))


def side(foreign: float | None, steal: float | None, processes: str = "") -> SideLimit:
    return SideLimit(Limit.MACHINE, 3, 3, 0.5, 1, 0.4, 1, "wrk", 10, 2.6, None, None, "", foreign,
                     processes, steal)  # fmt: skip


@pytest.mark.parametrize(
    ("foreign", "steal", "said"),
    [
        # notebook 07's runs on AMD 25/1: a shell at 1 %, the hypervisor at 13 %
        (0.45, 13.0, "the hypervisor took 13 % of the CPU time"),
        (180.0, 0.0, "other processes used 180 % of a core: yes (PID 4121) 97 %"),
        (150.0, 20.0, "other processes used 150 % of a core: yes (PID 4121) 97 %"),
        (4.0, None, "other processes used 4 % of a core: yes (PID 4121) 97 %"),
        (None, None, "other work was running when measuring began"),
    ],
)
def test_a_busy_machine_is_named_by_the_figure_that_made_it_busy(foreign, steal, said) -> None:
    assert busy_evidence(side(foreign, steal, "yes (PID 4121) 97 %, bash (PID 3) 0 %")) == said


def few(confidence: float) -> Comparison:
    # 1 run against 4 (notebook 07 over 10 ms): no test can reach p < 0.05
    return Comparison(
        ratio=0.921, ratio_low=0.905, ratio_high=0.928, ratio_confidence=confidence,
        p_value=0.4, n_a=1, n_b=4, median_a=12.3, median_b=13.3, paired=False,
    )  # fmt: skip


def test_only_an_interval_a_reader_can_lean_on_calls_a_difference_likely() -> None:
    weak = conclusions.verdict(few(0.60), "a", "b", "p50_ms", brief=True)
    assert weak.startswith("**Too few runs to tell**") and "likely" not in weak
    strong = conclusions.verdict(few(0.95), "a", "b", "p50_ms", brief=True)
    assert "an interval that does not hold 1: the difference is likely" in strong


def test_a_sweep_that_peaked_before_it_settled_says_so() -> None:
    # FastAPI (uvloop + httptools) on AMD 25/1: 4,985 req/s at 50 connections, then ≈ 3,361
    levels = {10: 2600, 25: 4100, 50: 4985, 100: 3900, 200: 3552, 800: 2955}
    points = pd.DataFrame(
        [{"connections": c, "rps": r * f} for c, r in levels.items() for f in (0.99, 1, 1.01)]
    )
    stretch = pd.Series({200: 3552.0, 800: 2955.0})
    ceiling = Ceiling(200, 3361.0, stretch, pd.DataFrame({"error": [0.1, -0.2]}),
                      pd.Series({200: 95.0, 800: 95.0}))  # fmt: skip
    said = models.ceiling_sentence("FastAPI", ceiling, ["a miss"], 18, 0,
                                   models._peak_before(points, ceiling))  # fmt: skip
    assert "after a peak at 50 connections (4,985 req/s), throughput settles at ≈ 3,361" in said
    assert "not a peak" not in said
    flat = points.assign(rps=points["rps"].clip(upper=3400))
    assert models._peak_before(flat, ceiling) is None
    assert math.isfinite(ceiling.rate)


def test_a_capacity_placed_between_two_rates_bounds_from_the_rate_it_met() -> None:
    # Go on AMD 25/1 (notebook 06): one run broke the SLO between 2,480 and 6,190 req/s and
    # was placed at 6,096; three stopped at 6,190 with the tool at its limit (lower bounds).
    # FastAPI broke it between 2,910 and 3,970. Go's floor is 2,480, not 6,096.
    at_least, at_most = CAPACITY + bounds.AT_LEAST, CAPACITY + bounds.AT_MOST
    valid = pd.DataFrame(
        [{"target": "go", CAPACITY: 6096.0, at_least: 2480.0, at_most: 6190.0}]
        + [{"target": "go", CAPACITY: 6190.0, at_least: math.nan, at_most: math.nan}] * 3
        + [{"target": "py", CAPACITY: 3031.0, at_least: 2910.0, at_most: 3970.0}] * 4
    )
    assert bounds.session_runs(valid, "go", "py", CAPACITY) == (2480.0, 3970.0)
    reduced = bounds.extremes("go", "py", CAPACITY)(valid.assign(flags="", limit="server"))
    assert sorted(reduced[CAPACITY]) == [2480.0, 3970.0]


def test_a_bound_below_one_is_said_to_bound_nothing() -> None:
    # notebook 06 on AMD 25/1: Go's floor 2,480 against FastAPI's 3,970 (0.625x)
    below = bounds.Bound(value=0.625, sessions=1, here=0.625, spread=1.08)
    said = bound_words.sentence(
        below, ("Go", "FastAPI"), "requests per second", "why", "2,480 vs 3,970"
    )
    assert "lay below FastAPI's highest, at 62 % of it" in said and "no farther than" not in said
    near = bounds.Bound(value=1.05, sessions=1, here=1.05, spread=1.08)
    assert "no farther than FastAPI's own runs differ (1.08×, its highest" in bound_words.sentence(
        near, ("Go", "FastAPI"), "requests per second", "why", "2,480 vs 2,360"
    )
