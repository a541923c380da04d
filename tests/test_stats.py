"""Statistics against small cases checked by hand."""

import numpy as np
import pytest
from scipy import stats as scipy_stats

from benchbook.analyse.numbers.stats import compare, min_detectable_n, share_interval, summarize


@pytest.mark.parametrize(
    ("values", "median", "low", "high", "confidence"),
    [
        # n = 5: no interval narrower than min..max reaches 95 %; min..max covers
        # 1 - 2·(1/2)^5 = 93.75 %.
        ([5, 1, 4, 2, 3], 3, 1, 5, 0.9375),
        # n = 6: min..max covers 1 - 2/64 = 96.875 %; [x2, x5] would cover only 78 %.
        ([6, 1, 5, 2, 4, 3], 3.5, 1, 6, 0.96875),
        # n = 10: [x2, x9] covers 1 - 2·11/1024 = 97.85 %; [x3, x8] only 89 %.
        (list(range(10, 0, -1)), 5.5, 2, 9, 1 - 2 * 11 / 1024),
    ],
)
def test_median_confidence_interval_from_order_statistics(
    values, median, low, high, confidence
) -> None:
    s = summarize(values)
    assert (s.median, s.low, s.high, s.n) == (median, low, high, len(values))
    assert s.confidence == pytest.approx(confidence)


def test_mann_whitney_exact_for_separated_samples() -> None:
    # Complete separation of 5 vs 5: one ordering in C(10, 5) = 252, two-sided p = 2/252.
    c = compare([10, 11, 12, 13, 14], [1, 2, 3, 4, 5])
    assert c.ratio == 12 / 3
    assert c.p_value == pytest.approx(2 / 252)
    assert c.significant


def test_mann_whitney_with_ties_is_not_significant_when_samples_overlap() -> None:
    # U = 15.5 of 25 with ties at 3 and 4: a normal approximation gives p ≈ 0.75.
    c = compare([1, 3, 4, 4, 6], [2, 3, 3, 4, 5])
    assert 0.6 < c.p_value < 0.9
    assert not c.significant


def test_smallest_sample_that_can_show_a_difference() -> None:
    # With 3 vs 3, complete separation gives p = 2/20 = 0.1: never below 0.05.
    assert min_detectable_n() == 4


def test_ratio_ci_uses_the_exact_mann_whitney_critical_rank() -> None:
    # n = m = 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3), so k = 3: the CI runs from the
    # 3rd smallest to the 3rd largest of the 25 pairwise ratios, covering 1 - 8/252.
    a, b = [10, 20, 30, 40, 50], [1, 2, 3, 4, 5]
    ratios = sorted(x / y for x in a for y in b)
    c = compare(a, b)
    assert (c.ratio_low, c.ratio_high) == pytest.approx((ratios[2], ratios[-3]))
    assert c.ratio_confidence == pytest.approx(1 - 8 / 252)


def test_with_three_runs_a_side_the_widest_interval_and_its_level() -> None:
    # No interval reaches 95 %: the widest, from the smallest to the largest of the 9
    # pairwise ratios, covers 1 - 2/20 = 90 %, and that level is what is reported.
    c = compare([1, 2, 3], [4, 5, 6])
    assert (c.ratio_low, c.ratio_high) == pytest.approx((1 / 6, 3 / 4))
    assert c.ratio_confidence == pytest.approx(0.9)


def test_the_ratio_is_the_estimate_its_interval_belongs_to() -> None:
    # Hodges-Lehmann: the median of the pairwise ratios, not the ratio of the medians.
    a, b = [10.0, 11.0, 30.0], [5.0, 10.0, 10.0]
    c = compare(a, b)
    assert c.ratio == pytest.approx(float(np.median([x / y for x in a for y in b])))
    assert c.ratio != pytest.approx(np.median(a) / np.median(b))
    assert c.ratio_low <= c.ratio <= c.ratio_high
    assert (c.median_a, c.median_b) == (11.0, 10.0)


@pytest.mark.parametrize(("a", "b"), [([], [1, 2, 3]), ([1.0, float("nan")], [1, 2])])
def test_no_verdict_without_runs_on_both_sides(a, b) -> None:
    with pytest.raises(ValueError, match="a verdict needs runs on both sides"):
        compare(a, b)


@pytest.mark.parametrize(("k", "n"), [(73, 80), (0, 12), (12, 12), (1, 2)])
def test_a_shares_interval_puts_2_5_percent_of_the_binomial_beyond_each_end(k: int, n: int) -> None:
    """Clopper–Pearson by its definition: at the upper end, k or fewer is 2.5 % likely; at
    the lower end, k or more is; an end at 0 or 1 where k is 0 or n."""
    low, high = share_interval(k, n)
    assert low <= k / n <= high
    if k < n:
        assert scipy_stats.binom.cdf(k, n, high) == pytest.approx(0.025, abs=1e-6)
    else:
        assert high == 1.0
    if k > 0:
        assert scipy_stats.binom.sf(k - 1, n, low) == pytest.approx(0.025, abs=1e-6)
    else:
        assert low == 0.0
    assert share_interval(0, 0) == (0.0, 1.0)
