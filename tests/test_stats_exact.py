"""The two-sample statistics against brute force, independent of scipy: every way to split
the pooled runs between the two sides (itertools.combinations), every sign assignment of
the rounds (itertools.product), and the n_a·n_b pairwise ratios themselves.

The two-sided p of an exact test here is 2·min(P(U ≤ u), P(U ≥ u)), at most 1: scipy's
exact convention and that of the paired test with ties (stats._signed_rank_p). Without
ties U is symmetric about n_a·n_b/2 and this is P(|U - n_a·n_b/2| ≥ |u - n_a·n_b/2|)."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from benchbook.analyse.numbers.pairing import comparison, too_few
from benchbook.analyse.numbers.stats import (
    ALPHA,
    compare,
    compare_paired,
    min_detectable_n,
    min_detectable_pairs,
)

# --- brute force ---------------------------------------------------------------------


def split_masks(n_a: int, n: int) -> np.ndarray:
    """One row per way to choose which n_a of n pooled runs are side A."""
    masks = np.zeros((math.comb(n, n_a), n), dtype=bool)
    for row, chosen in enumerate(itertools.combinations(range(n), n_a)):
        masks[row, list(chosen)] = True
    return masks


def doubled_u(a, b) -> int:
    """2·U of A over B: a pair counts 1 when A's run is larger, ½ when they tie."""
    return sum(2 * (x > y) + (x == y) for x in a for y in b)


def doubled_u_null(pool, n_a: int) -> np.ndarray:
    """2·U for every split of ``pool`` into n_a runs of A and the rest of B."""
    x = np.asarray(pool, dtype=float)
    wins = 2 * (x[:, None] > x[None, :]) + (x[:, None] == x[None, :])
    masks = split_masks(n_a, len(x)).astype(float)
    return np.rint(np.einsum("ci,ij,cj->c", masks, wins, 1 - masks)).astype(int)


def exact_p(a, b) -> float:
    """Two-sided permutation p of Mann-Whitney U, ties counted ½, over all splits."""
    us = doubled_u_null(list(a) + list(b), len(a))
    u = doubled_u(a, b)
    return min(1.0, 2 * min(np.mean(us <= u), np.mean(us >= u)))


def u_cdf_without_ties(n_a: int, n_b: int) -> np.ndarray:
    """P(U ≤ u), u = 0 … n_a·n_b, for distinct values, by enumerating the splits."""
    us = doubled_u_null(range(n_a + n_b), n_a) // 2
    return np.cumsum(np.bincount(us, minlength=n_a * n_b + 1)) / len(us)


def moses_rank(n_a: int, n_b: int, confidence: float = 0.95) -> tuple[int, float]:
    """Largest k ≥ 1 with P(U < k) ≤ (1 - confidence)/2, and its coverage 1 - 2·P(U < k)."""
    cdf = u_cdf_without_ties(n_a, n_b)
    k = 1
    while cdf[k] <= (1 - confidence) / 2:  # P(U < k + 1) still within the tail
        k += 1
    return k, 1 - 2 * cdf[k - 1]


# --- 1. the two-sample p under ties ---------------------------------------------------

TIED = [
    # (a, b, the exact p = 2·min(P(U ≤ u), P(U ≥ u)) over the C(n_a + n_b, n_a) splits,
    # written as a share of them; the comments say what a normal approximation gives)
    # 2 + 2
    ([1, 2], [3, 4], 2 / 6),
    ([1, 1], [2, 2], 2 / 6),  # a normal approximation says 0.19
    ([1, 3], [3, 4], 4 / 6),  # tie across the groups; normal approximation: 0.41
    ([2, 2], [2, 3], 1.0),
    ([2, 2], [2, 2], 1.0),  # nothing to rank
    # 3 + 5
    ([1, 2, 3], [4, 5, 6, 7, 8], 2 / 56),
    ([1, 2, 4], [4, 5, 5, 6, 6], 4 / 56),  # a normal approximation says 0.048 < ALPHA
    ([1, 3, 3], [3, 5, 5, 7, 8], 6 / 56),
    ([3, 3, 3], [1, 1, 3, 5, 5], 1.0),
    # 4 + 6
    ([10, 11, 12, 13], [1, 2, 3, 4, 5, 6], 2 / 210),
    ([7, 7, 8, 8], [1, 2, 3, 4, 5, 7], 6 / 210),
    ([5, 6, 6, 7], [1, 2, 3, 5, 5, 6], 20 / 210),
    ([4, 4, 4, 4], [1, 1, 1, 4, 4, 4], 70 / 210),
    ([9, 9, 9, 9], [1, 1, 1, 1, 1, 1], 2 / 210),
    # 5 + 5
    ([1, 3, 4, 4, 6], [2, 3, 3, 4, 5], 222 / 252),  # normal approximation: 0.83
    # 4 + 6 request rates, rounded as a load tool reports them, some repeated (normal
    # approximation: 0.063)
    ([812.0, 790.5, 805.25, 805.25], [790.5, 780.0, 781.0, 805.25, 779.5, 790.5], 20 / 210),
]


@pytest.mark.parametrize(("a", "b", "expected"), TIED)
@pytest.mark.parametrize("swap", [False, True], ids=["a_over_b", "b_over_a"])
def test_two_sample_p_is_the_exact_permutation_p_under_ties(a, b, expected, swap) -> None:
    if swap:
        a, b = b, a
    brute = exact_p(a, b)
    assert brute == pytest.approx(expected)  # the table agrees with the enumeration
    c = compare(a, b)
    assert c.p_value == pytest.approx(brute, rel=1e-9)
    assert c.significant == (brute < ALPHA)


@pytest.mark.parametrize("seed", range(4))
def test_exact_p_at_the_largest_pooled_size_it_is_computed_for(seed) -> None:
    # 10 + 10 runs of whole tenths, many ties: all 184 756 splits.
    rng = np.random.default_rng(seed)
    a, b = rng.integers(10, 16, 10) / 10, rng.integers(11, 17, 10) / 10
    assert compare(a, b).p_value == pytest.approx(exact_p(a, b), rel=1e-9)


# --- 2. the Hodges-Lehmann ratio and its Moses interval -------------------------------

MOSES = [
    # (n_a, n_b, k, coverage): k-th smallest to k-th largest of the n_a·n_b ratios
    (2, 2, 1, 1 - 2 / 6),
    (3, 3, 1, 1 - 2 / 20),
    (3, 5, 1, 1 - 2 / 56),  # P(U ≤ 0) = 1/56 ≤ 2.5 % < P(U ≤ 1) = 2/56: the widest
    (4, 4, 1, 1 - 2 / 70),  # P(U ≤ 1) = 2/70 = 2.9 % > 2.5 %
    (4, 6, 3, 1 - 8 / 210),  # P(U ≤ 2) = 4/210
    (5, 5, 3, 1 - 8 / 252),
    (6, 6, 6, 1 - 2 * 19 / 924),  # P(U ≤ 5) = 19/924
    (5, 8, 7, 1 - 2 * 29 / 1287),  # P(U ≤ 6) = 29/1287 = 2.25 %
]


@pytest.mark.parametrize(("n_a", "n_b", "k", "coverage"), MOSES)
def test_critical_rank_and_coverage_are_the_enumerations(n_a, n_b, k, coverage) -> None:
    brute_k, brute_coverage = moses_rank(n_a, n_b)
    assert (brute_k, brute_coverage) == (k, pytest.approx(coverage))
    c = compare(np.arange(1.0, n_a + 1), np.arange(1.0, n_b + 1) + 0.5)
    assert c.ratio_confidence == pytest.approx(brute_coverage)


def hodges_lehmann(a, b) -> tuple[float, list[float]]:
    """The sorted pairwise ratios and their median taken on the log scale: for an even
    count, the geometric mean of the middle two (the code averages log-ratios)."""
    ratios = sorted(x / y for x in a for y in b)
    m = len(ratios)
    middle = ratios[m // 2] if m % 2 else math.sqrt(ratios[m // 2 - 1] * ratios[m // 2])
    return middle, ratios


RATIO_CASES = [
    ([1.0, 10.0], [1.0, 2.0]),  # even count: √(1·5) = 2.24, not (1 + 5)/2 = 3
    ([12.0, 9.0, 30.0], [5.0, 10.0, 10.0]),  # ties among B
    ([1.1, 1.3, 0.9], [1.0, 1.2, 0.95, 1.05, 1.25]),
    ([812.0, 790.5, 805.25, 805.25], [790.5, 780.0, 781.0, 805.25, 779.5, 790.5]),
    ([100.0, 120.0, 90.0, 95.0, 130.0], [80.0, 99.0, 101.0, 70.0, 88.0]),
    ([3.0, 1.0, 4.0, 1.0, 5.0, 9.0], [2.0, 6.0, 5.0, 3.0, 5.0, 8.0]),
    ([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0]),
]


@pytest.mark.parametrize(("a", "b"), RATIO_CASES)
def test_ratio_and_interval_are_order_statistics_of_the_pairwise_ratios(a, b) -> None:
    middle, ratios = hodges_lehmann(a, b)
    k, coverage = moses_rank(len(a), len(b))
    c = compare(a, b)
    assert c.ratio == pytest.approx(middle, rel=1e-12)
    assert (c.ratio_low, c.ratio_high) == pytest.approx(
        (ratios[k - 1], ratios[len(ratios) - k]), rel=1e-12
    )
    assert c.ratio_confidence == pytest.approx(coverage)
    assert c.ratio_low <= c.ratio <= c.ratio_high
    reverse = compare(b, a)  # B over A: the reciprocals, bounds swapped
    assert (reverse.ratio, reverse.ratio_low, reverse.ratio_high) == pytest.approx(
        (1 / c.ratio, 1 / c.ratio_high, 1 / c.ratio_low), rel=1e-12
    )


@pytest.mark.parametrize(("n_a", "n_b"), [(2, 2), (3, 5), (4, 4), (4, 6), (5, 5)])
def test_the_interval_covers_1_in_the_share_of_splits_it_claims(n_a, n_b) -> None:
    # Under 'no difference' every split of the pooled runs is equally likely: the share
    # of splits whose interval contains the true ratio 1 is exactly the coverage claimed.
    pool = np.random.default_rng(n_a * n_b).lognormal(np.log(1000), 0.2, n_a + n_b)
    hits = []
    for mask in split_masks(n_a, n_a + n_b):
        c = compare(pool[mask], pool[~mask])
        hits.append(c.ratio_low < 1 < c.ratio_high)
    assert np.mean(hits) == pytest.approx(c.ratio_confidence)
    assert c.ratio_confidence == pytest.approx(moses_rank(n_a, n_b)[1])


# --- 3. the smallest p a design can reach ---------------------------------------------


def smallest_two_sample_p(n_a: int, n_b: int) -> float:
    """Over every split of n_a + n_b distinct values, the smallest exact p."""
    pool = np.arange(n_a + n_b, dtype=float)
    us = doubled_u_null(pool, n_a)
    return float(min(min(1.0, 2 * min(np.mean(us <= u), np.mean(us >= u))) for u in set(us)))


def smallest_signed_rank_p(n: int) -> float:
    """Over every sign assignment of ranks 1 … n, the smallest exact two-sided p."""
    sums = [
        sum(r for r, s in zip(range(1, n + 1), signs, strict=True) if s)
        for signs in itertools.product((0, 1), repeat=n)
    ]
    sums = np.array(sums)
    return float(min(min(1.0, 2 * min(np.mean(sums <= t), np.mean(sums >= t))) for t in sums))


DESIGNS = [
    # (n_a, n_b, the smallest p: both sides completely separated, 2 / C(n_a + n_b, n_a))
    (2, 2, 2 / 6),
    (3, 3, 2 / 20),
    (3, 4, 2 / 35),
    (3, 5, 2 / 56),  # below ALPHA although one side has 3 runs
    (2, 8, 2 / 45),
    (4, 4, 2 / 70),
    (4, 6, 2 / 210),
]


@pytest.mark.parametrize(("n_a", "n_b", "smallest"), DESIGNS)
def test_smallest_two_sample_p_is_the_enumerations(n_a, n_b, smallest) -> None:
    brute = smallest_two_sample_p(n_a, n_b)
    assert brute == pytest.approx(smallest)
    pool = np.arange(1.0, n_a + n_b + 1)
    reached = min(compare(pool[m], pool[~m]).p_value for m in split_masks(n_a, n_a + n_b))
    assert reached == pytest.approx(brute)
    # 'too few runs to tell' just when no outcome of this design could reach p < ALPHA
    separated = compare(pool[n_b:], pool[:n_b])
    assert separated.p_value == pytest.approx(brute)
    assert too_few(separated) == (brute >= ALPHA)


def test_fewest_runs_a_side_that_can_show_a_difference() -> None:
    n = next(n for n in range(2, 10) if smallest_two_sample_p(n, n) < ALPHA)
    assert (n, smallest_two_sample_p(n, n)) == (4, pytest.approx(2 / 70))
    assert min_detectable_n() == n


@pytest.mark.parametrize(("rounds", "smallest"), [(4, 2 / 16), (5, 2 / 32), (6, 2 / 64)])
def test_smallest_paired_p_is_the_enumerations(rounds, smallest) -> None:
    brute = smallest_signed_rank_p(rounds)
    assert brute == pytest.approx(smallest)
    magnitudes = np.arange(1, rounds + 1) / 100
    reached = min(
        compare_paired(np.exp(magnitudes * signs), np.ones(rounds)).p_value
        for signs in itertools.product((-1, 1), repeat=rounds)
    )
    assert reached == pytest.approx(brute)
    one_way = compare_paired(np.exp(magnitudes), np.ones(rounds))
    assert too_few(one_way) == (brute >= ALPHA)


def test_fewest_rounds_that_can_show_a_difference() -> None:
    n = next(n for n in range(2, 10) if smallest_signed_rank_p(n) < ALPHA)
    assert (n, smallest_signed_rank_p(n)) == (6, pytest.approx(2 / 64))
    assert min_detectable_pairs() == n


# --- 4. missing and non-positive values -----------------------------------------------

NAN = float("nan")


@pytest.mark.parametrize(
    ("a", "b"),
    [([1.0, NAN, 3.0], [2.0, 3.0, 4.0]), ([1.0, 2.0, 3.0], [2.0, NAN, 4.0]), ([NAN], [1.0])],
)
def test_compare_refuses_missing_values_by_name(a, b) -> None:
    with pytest.raises(ValueError, match=r"missing values"):
        compare(a, b)


NON_POSITIVE = [
    ([0.0, 5.0, 6.0, 7.0], [1.0, 2.0, 3.0, 4.0]),  # a zero numerator
    ([5.0, 6.0, 7.0, 8.0], [1.0, 0.0, 3.0, 4.0]),  # a zero denominator
    ([5.0, 6.0, 7.0, 8.0], [-1.0, 2.0, 2.0, 4.0]),
    ([0.0, 0.0, 7.0], [0.0, 2.0, 3.0, 4.0, 4.0]),
]


@pytest.mark.parametrize(("a", "b"), NON_POSITIVE)
def test_without_positive_values_no_ratio_but_an_exact_p(a, b) -> None:
    # A ratio to a zero is no number: NaN throughout, never inf, and no claimed coverage;
    # the rank test needs no ratio and still answers.
    c = compare(a, b)
    assert all(math.isnan(v) for v in (c.ratio, c.ratio_low, c.ratio_high))
    assert c.ratio_confidence == 0.0
    assert c.p_value == pytest.approx(exact_p(a, b), rel=1e-9)
    assert (c.median_a, c.median_b) == (np.median(a), np.median(b))


def table(a: list[float], b: list[float]) -> pd.DataFrame:
    """Runs of targets a and b, one a round (repetition), as rows.counted.valid_rows gives them."""
    return pd.DataFrame(
        [
            {"run_id": "r1", "repetition": r + 1, "target": target, "rps": value}
            for target, values in (("a", a), ("b", b))
            for r, value in enumerate(values)
        ]
    )


ROUNDS_A = [1050.0, 1155.0, 1260.0, 1365.0, 1470.0, 1312.5, 1102.5, 1207.5]
ROUNDS_B = [1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1250.0, 1050.0, 1150.0]


@pytest.mark.parametrize(
    ("side", "row", "paired", "kept"),
    [
        ("a", 2, True, [0, 1, 3, 4, 5, 6]),  # 6 rounds left: still paired, without round 3
        ("b", 0, True, [1, 2, 3, 4, 5, 6]),
        ("a", 1, False, [0, 2, 3]),  # 4 rounds: two samples, 3 runs of A against 4 of B
        ("b", 3, False, [0, 1, 2]),
    ],
)
def test_a_missing_value_drops_its_run(side, row, paired, kept) -> None:
    n = 7 if paired else 4
    a, b = list(ROUNDS_A[:n]), list(ROUNDS_B[:n])
    (a if side == "a" else b)[row] = NAN
    c = comparison(table(a, b), "a", "b")
    if paired:
        expected = compare_paired([a[r] for r in kept], [b[r] for r in kept])
    else:
        clean = [v for v in (a if side == "a" else b) if v == v]
        expected = compare(clean, b) if side == "a" else compare(a, clean)
    assert c == expected
    assert c.paired == paired and not math.isnan(c.ratio)


@pytest.mark.parametrize(("rounds", "paired"), [(8, True), (4, False)])
@pytest.mark.parametrize("side", ["a", "b"])
def test_a_zero_gives_no_ratio_in_a_comparison(rounds, paired, side) -> None:
    a, b = list(ROUNDS_A[:rounds]), list(ROUNDS_B[:rounds])
    (a if side == "a" else b)[1] = 0.0
    c = comparison(table(a, b), "a", "b")
    assert c.paired == paired and (c.n_a, c.n_b) == (rounds, rounds)
    assert all(math.isnan(v) for v in (c.ratio, c.ratio_low, c.ratio_high))
    assert 0 < c.p_value <= 1
