"""Paired (round-by-round) statistics against independent references: brute-force
enumeration of all 2^n sign assignments (ranks counted by hand), scipy's permutation
test, and sorted Walsh averages, at the round counts the profiles use."""

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest
from scipy import stats as scipy_stats

from benchbook.analyse.numbers.stats import (
    ALPHA,
    compare,
    compare_paired,
    min_detectable_pairs,
    resolvable_ratio,
)
from benchbook.analyse.numbers.stats import _signed_rank_counts as signed_rank_counts

ROUNDS = (4, 5, 6, 8, 10)


def brute_force_null(n: int) -> np.ndarray:
    """Counts of T+ = 0 … n(n+1)/2 over all 2^n sign assignments of ranks 1 … n."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        counts[sum(rank for rank, sign in enumerate(signs, start=1) if sign)] += 1
    return counts


def brute_force_k(n: int) -> tuple[int, float]:
    """Largest k with P(T+ <= k - 1) <= 2.5 %, by enumeration, and 1 - 2·P(T+ <= k - 1)."""
    cdf = np.cumsum(brute_force_null(n)) / 2**n
    k = 1
    while cdf[k] <= 0.025:
        k += 1
    return k, 1 - 2 * cdf[k - 1]


def sorted_walsh(d: np.ndarray) -> list[float]:
    return sorted((x + y) / 2 for x, y in itertools.combinations_with_replacement(d, 2))


def rounds(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.lognormal(np.log(1000), 0.1, n)
    return a, a * rng.lognormal(0.02, 0.05, n)


@pytest.mark.parametrize("n", range(1, 11))
def test_signed_rank_null_distribution_equals_enumeration(n) -> None:
    np.testing.assert_array_equal(signed_rank_counts(n), brute_force_null(n))


def brute_force_p(d: Sequence[float]) -> float:
    """Two-sided p of the signed-rank test by enumeration: every |d| ranked by hand (ties
    share their mean rank, a zero is ranked and counts for neither side: Pratt), then T+
    (the ranks of the positive d) over all 2^m sign assignments of the m non-zero d."""
    size = [abs(x) for x in d]
    ranks = [1 + sum(y < x for y in size) + (sum(y == x for y in size) - 1) / 2 for x in size]
    t = sum(r for r, x in zip(ranks, d, strict=True) if x > 0)
    free = [r for r, x in zip(ranks, d, strict=True) if x != 0]
    assignments = itertools.product((0, 1), repeat=len(free))
    null = [sum(itertools.compress(free, signs)) for signs in assignments]
    at_most = sum(x <= t for x in null) / len(null)
    at_least = sum(x >= t for x in null) / len(null)
    return min(1.0, 2 * min(at_most, at_least))


def test_brute_force_p_by_hand() -> None:
    # Four rounds all one way: T+ = 10 of 10, reached by 1 of 16 sign assignments.
    assert brute_force_p([0.1, 0.2, 0.3, 0.4]) == 2 / 16
    # T+ = 1 + 4 = 5, the middle of 0 … 10: nothing to tell.
    assert brute_force_p([0.1, -0.2, -0.3, 0.4]) == 1.0
    # A zero keeps rank 1 and leaves 2^3 assignments; T+ = 2 + 3 + 4 = 9, all of the rest.
    assert brute_force_p([0.0, 0.2, 0.3, 0.4]) == 2 / 8


@pytest.mark.parametrize("n", ROUNDS)
@pytest.mark.parametrize("seed", range(5))
def test_p_value_is_the_enumerations(n, seed) -> None:
    a, b = rounds(n, seed)
    assert compare_paired(a, b).p_value == pytest.approx(brute_force_p(np.log(a / b)))


@pytest.mark.parametrize("n", ROUNDS)
@pytest.mark.parametrize("seed", range(5))
def test_zeros_and_ties_give_the_exact_p_of_pratts_method(n, seed) -> None:
    # Log-ratios of whole tenths (-0.2 … 0.2), as rounded measurements give, with zeros
    # and ties; scipy enumerates all 2^n sign assignments when n <= 13.
    rng = np.random.default_rng(seed)
    tenths = rng.integers(-2, 3, n)
    b = rng.lognormal(np.log(1000), 0.1, n)
    expected = scipy_stats.wilcoxon(
        tenths, zero_method="pratt", method=scipy_stats.PermutationMethod()
    ).pvalue
    p = compare_paired(b * np.exp(tenths / 10), b).p_value
    assert p == pytest.approx(expected)
    assert p == pytest.approx(brute_force_p(tenths.tolist()))


@pytest.mark.parametrize(
    ("n", "coverage"),
    # n <= 6: only the widest interval, covering 1 - 2/2^n; n = 8: P(T+ <= 3) = 5/256;
    # n = 10: P(T+ <= 8) = 25/1024.
    [(4, 0.875), (5, 0.9375), (6, 0.96875), (8, 1 - 10 / 256), (10, 1 - 50 / 1024)],
)
def test_coverage_is_the_enumerations(n, coverage) -> None:
    a, b = rounds(n, 0)
    reported = compare_paired(a, b).ratio_confidence
    assert reported == pytest.approx(brute_force_k(n)[1])
    assert reported == pytest.approx(coverage)


@pytest.mark.parametrize("n", ROUNDS)
def test_the_interval_covers_what_it_claims_over_all_sign_assignments(n) -> None:
    # Under 'no difference' every per-round log-ratio is as likely positive as negative:
    # over all 2^n sign assignments of fixed magnitudes, the share of intervals that
    # contain 1 is exactly the coverage reported.
    magnitudes = np.random.default_rng(n).uniform(0.01, 0.1, n)
    hits = []
    for signs in itertools.product((-1, 1), repeat=n):
        c = compare_paired(np.exp(magnitudes * signs), np.ones(n))
        hits.append(c.ratio_low < 1 < c.ratio_high)
    assert np.mean(hits) == pytest.approx(c.ratio_confidence)


@pytest.mark.parametrize("n", ROUNDS)
@pytest.mark.parametrize("seed", range(3))
def test_estimate_and_bounds_are_sorted_walsh_averages(n, seed) -> None:
    a, b = rounds(n, seed)
    walsh = sorted_walsh(np.log(a / b))
    k, _ = brute_force_k(n)
    c = compare_paired(a, b)
    assert c.ratio == pytest.approx(math.exp(float(np.median(walsh))))
    assert (c.ratio_low, c.ratio_high) == pytest.approx(
        (math.exp(walsh[k - 1]), math.exp(walsh[len(walsh) - k]))
    )
    assert c.ratio_low <= c.ratio <= c.ratio_high
    assert (c.n_a, c.n_b, c.paired) == (n, n, True)
    assert (c.median_a, c.median_b) == (np.median(a), np.median(b))


@pytest.mark.parametrize("n", (8, 10))
def test_a_constant_factor_is_recovered_within_its_interval(n) -> None:
    # B = A × 1.5 with 2 % noise per round, rounds differing a lot from one another: the
    # interval contains 1.5 in (about) the share of 400 such experiments it claims to.
    rng = np.random.default_rng(n)
    covered = []
    for _ in range(400):
        a = rng.lognormal(np.log(1000), 0.3, n)
        b = a * 1.5 * rng.lognormal(0, 0.02, n)
        c, reverse = compare_paired(b, a), compare_paired(a, b)
        assert c.ratio == pytest.approx(1.5, rel=0.05)
        assert c.significant
        assert (reverse.ratio_low, reverse.ratio_high) == pytest.approx(
            (1 / c.ratio_high, 1 / c.ratio_low)
        )
        covered.append(c.ratio_low <= 1.5 <= c.ratio_high)
    assert np.mean(covered) == pytest.approx(c.ratio_confidence, abs=0.03)


def test_pairing_sees_through_drift_between_rounds() -> None:
    # Each round is slower than the last; B is 5 % slower than A within every round. The
    # runs overlap, so comparing them unpaired finds nothing; round by round it is clear.
    drift = np.array([100.0, 140, 120, 180, 160, 200, 110, 150])
    a, b = drift, drift * 1.05
    assert not compare(b, a).significant
    c = compare_paired(b, a)
    assert c.significant
    assert c.ratio == pytest.approx(1.05)


def test_five_rounds_can_never_be_significant() -> None:
    # Every way 5 rounds of distinct differences can fall: at best T+ = 15 or 0, whose
    # two-sided p is 2/2^5 = 0.0625. Six rounds all one way give 2/64 = 0.03125.
    magnitudes = np.array([0.01, 0.02, 0.03, 0.04, 0.05])
    for signs in itertools.product((-1, 1), repeat=5):
        for order in itertools.permutations(magnitudes):
            p = compare_paired(np.exp(np.array(order) * signs), np.ones(5)).p_value
            assert p >= 0.0625
    assert compare_paired([2, 3, 4, 5, 6], [1, 1, 1, 1, 1]).p_value == pytest.approx(0.0625)
    six = compare_paired([2, 3, 4, 5, 6, 7], [1, 1, 1, 1, 1, 1])
    assert six.p_value == pytest.approx(2 / 64)
    assert six.significant


@pytest.mark.parametrize("seed", range(20))
def test_five_rounds_with_ties_or_zeros_are_not_significant_either(seed) -> None:
    tenths = np.random.default_rng(seed).integers(-2, 3, 5)
    assert compare_paired(np.exp(tenths / 10), np.ones(5)).p_value >= 0.0625


def test_fewest_rounds_that_can_show_a_difference() -> None:
    assert min_detectable_pairs() == 6
    assert 2 / 2**5 >= ALPHA > 2 / 2**6


def test_identical_sides_give_ratio_one() -> None:
    a = [812.0, 790.5, 805.25, 799.0, 820.0, 801.5]
    c = compare_paired(a, list(a))
    assert (c.ratio, c.ratio_low, c.ratio_high, c.p_value) == (1.0, 1.0, 1.0, 1.0)
    assert not c.significant


def test_rounds_with_a_missing_side_are_dropped() -> None:
    a, b = rounds(8, 1)
    a_gaps, b_gaps = a.copy(), b.copy()
    a_gaps[2], b_gaps[5] = np.nan, np.nan
    kept = [r for r in range(8) if r not in (2, 5)]
    assert compare_paired(a_gaps, b_gaps) == compare_paired(a[kept], b[kept])
    assert compare_paired(a_gaps, b_gaps).n_a == 6


@pytest.mark.parametrize(
    ("a", "b"),
    [([], []), ([1.0], [2.0]), ([1.0, float("nan")], [2.0, 3.0]), ([1.0, 2.0], [1.0])],
)
def test_no_paired_verdict_without_two_complete_rounds(a, b) -> None:
    with pytest.raises(ValueError, match="a paired comparison needs"):
        compare_paired(a, b)


def test_without_positive_values_no_ratio_but_a_p_from_differences() -> None:
    a, b = [0.0, 5, 6, 7, 8, 9], [1.0, 2, 2, 3, 3, 4]
    c = compare_paired(a, b)
    assert math.isnan(c.ratio) and c.ratio_confidence == 0.0
    expected = scipy_stats.wilcoxon(np.subtract(a, b), method="exact").pvalue
    assert c.p_value == pytest.approx(expected)


def test_unpaired_comparisons_say_so() -> None:
    assert compare([1, 2, 3], [4, 5, 6]).paired is False


def test_resolvable_ratio_is_the_farthest_bound_of_the_aa_interval() -> None:
    # Six rounds: the interval is the widest, from the smallest to the largest Walsh
    # average, i.e. from the smallest to the largest ratio: [0.97, 1.03]; 1/0.97 is
    # farther from 1 (in ratio terms) than 1.03.
    aa = [1.02, 0.97, 1.01, 0.99, 1.03, 0.98]
    assert resolvable_ratio(aa) == pytest.approx(1 / 0.97)
    assert resolvable_ratio([1 / r for r in aa]) == pytest.approx(1 / 0.97)


@pytest.mark.parametrize("n", ROUNDS)
def test_resolvable_ratio_against_walsh_averages(n) -> None:
    # A systematic offset between the two targets (A/A ratio ≈ 1.04) widens it too.
    rng = np.random.default_rng(n)
    aa = 1.04 * rng.lognormal(0, 0.02, n)
    walsh = sorted_walsh(np.log(aa))
    k, _ = brute_force_k(n)
    expected = math.exp(max(abs(walsh[k - 1]), abs(walsh[len(walsh) - k])))
    assert resolvable_ratio(aa) == pytest.approx(expected)
    assert resolvable_ratio(aa) > 1.04 * 0.98


def test_resolvable_ratio_of_a_perfect_control_is_one_and_needs_rounds() -> None:
    assert resolvable_ratio([1.0, 1.0, 1.0, float("nan")]) == 1.0
    with pytest.raises(ValueError, match="a paired comparison needs"):
        resolvable_ratio([1.0, float("nan")])
    with pytest.raises(ValueError, match="positive ratios"):
        resolvable_ratio([1.0, 0.0, 1.1])
