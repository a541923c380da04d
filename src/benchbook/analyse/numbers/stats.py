"""Few, honest numbers with their uncertainty, computed the way benchstat does.

A configuration is summarised by its median and a distribution-free confidence
interval from order statistics; two configurations are compared by a ratio with its own
confidence interval (see Comparison) and a two-sided Mann-Whitney U test. When the runs
come in rounds (every target measured once per round, seconds apart), compare_paired
compares them round by round instead: a Wilcoxon signed-rank test and the matching
one-sample Hodges-Lehmann ratio, so that drift from round to round cancels out.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import stats as scipy_stats

CONFIDENCE = 0.95
ALPHA = 0.05


@dataclass(frozen=True)
class Summary:
    median: float
    low: float
    high: float
    confidence: float  # achieved coverage of [low, high]; below CONFIDENCE when n is small
    n: int


def summarize(values: Sequence[float], confidence: float = CONFIDENCE) -> Summary:
    """Median and the narrowest order-statistic interval [x(k), x(n+1-k)] covering it
    with at least ``confidence``; for n < 6 no such interval exists at 95 %, so the
    full range is returned with the coverage it actually has (93.75 % for n = 5)."""
    x = np.sort(np.asarray(values, dtype=float))
    x = x[~np.isnan(x)]
    n = len(x)
    if n == 0:
        return Summary(float("nan"), float("nan"), float("nan"), 0.0, 0)
    # Coverage of [x(k), x(n+1-k)] (1-based) is 1 - 2·P(Binomial(n, ½) ≤ k-1).
    k, coverage = 1, 1 - 2 * scipy_stats.binom.cdf(0, n, 0.5)
    while k + 1 <= (n + 1) // 2:
        wider = 1 - 2 * scipy_stats.binom.cdf(k, n, 0.5)
        if wider < confidence:
            break
        k, coverage = k + 1, wider
    return Summary(float(np.median(x)), float(x[k - 1]), float(x[n - k]), float(coverage), n)


@dataclass(frozen=True)
class Comparison:
    """A over B. ``ratio`` is the Hodges-Lehmann estimate: the median of all n_a × n_b
    ratios between a run of A and a run of B. Its CI comes from the same ratios (Moses),
    so the estimate always lies inside its own interval. When ``paired`` (compare_paired),
    n_a = n_b = the number of rounds and the ratios are taken within rounds."""

    ratio: float
    ratio_low: float
    ratio_high: float
    ratio_confidence: float  # coverage of [ratio_low, ratio_high]: ≥ 95 %, or the most
    # that n_a and n_b allow when that is less
    p_value: float
    n_a: int
    n_b: int
    median_a: float
    median_b: float
    paired: bool = False
    # The variance of log(ratio) from this session's own runs (log_ratio_variance): what
    # the next session on the same machine would scatter by if nothing else changed. NaN
    # where the runs cannot give one (a side of one run, a value that is not positive).
    log_variance: float = float("nan")

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA


ESTIMATOR = (
    "ratio = the median of all ratios between a run of one side and a run of the other "
    "(Hodges-Lehmann estimate); its confidence interval comes from the same ratios "
    "(Moses' method, exact for small samples); p from a two-sided Mann-Whitney U test"
)


@cache
def _u_counts(n: int, m: int) -> tuple[float, ...]:
    """How many orderings of n + m distinct values give each U = 0 … n·m (exact null
    distribution of Mann-Whitney U): the largest value belongs to one sample or the
    other, which gives N(u; n, m) = N(u - m; n - 1, m) + N(u; n, m - 1)."""
    if n == 0 or m == 0:
        return (1.0,)
    counts = np.zeros(n * m + 1)
    with_a = _u_counts(n - 1, m)  # the largest value is in a: it beats all m of b
    counts[m : m + len(with_a)] += with_a
    with_b = _u_counts(n, m - 1)
    counts[: len(with_b)] += with_b
    return tuple(counts)


def _critical_rank(n: int, m: int, confidence: float) -> tuple[int, float]:
    """Largest k with P(U < k) <= (1 - confidence) / 2, and the coverage it gives;
    the CI of a shift is then [d(k), d(nm + 1 - k)] over the sorted pairwise differences.
    For n = m = 5 at 95 %: k = 3, coverage 96.8 %. When no k reaches ``confidence``
    (3 runs a side), k = 1, the widest interval, with the coverage it has (90 %).
    Beyond 50 a side, a normal approximation replaces the exact distribution."""
    if n <= 50 and m <= 50:
        cdf = np.cumsum(_u_counts(n, m)) / math.comb(n + m, n)
        tail = (1 - confidence) / 2
        k = max(1, int(np.searchsorted(cdf, tail, side="right")))  # P(U <= k-1) <= tail
        return k, float(1 - 2 * cdf[k - 1])
    z = scipy_stats.norm.ppf(1 - (1 - confidence) / 2)
    k = int(n * m / 2 - z * math.sqrt(n * m * (n + m + 1) / 12))
    return max(k, 1), confidence


def share_interval(
    successes: int, trials: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a share successes / trials, as independent
    trials: (0, 1) without any."""
    if trials == 0:
        return 0.0, 1.0
    ci = scipy_stats.binomtest(successes, trials).proportion_ci(confidence, method="exact")
    return float(ci.low), float(ci.high)


def log_ratio_variance(log_a: np.ndarray, log_b: np.ndarray, paired: bool) -> float:
    """The variance of a session's log ratio, from its runs: var(d) / n over the n paired
    per-round log ratios d, or var(log a) / n_a + var(log b) / n_b for runs compared as two
    samples (sample variances). Not read off the order-statistic interval: at a few runs that
    interval is the min–max, and reading it as a normal one inflates the variance 1.7–2.2×.
    NaN with fewer than two values on a side."""
    if paired:
        d = log_a - log_b
        return float(np.var(d, ddof=1) / len(d)) if len(d) >= 2 else float("nan")
    if len(log_a) < 2 or len(log_b) < 2:
        return float("nan")
    return float(np.var(log_a, ddof=1) / len(log_a) + np.var(log_b, ddof=1) / len(log_b))


EXACT_POOLED = 20  # two samples of at most this many runs together: the exact p of U


def _rank_sum_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p of the Mann-Whitney U test, exact with or without ties: the null
    distribution of the rank sum of a over all C(n_a + n_b, n_a) ways to split the pooled
    runs, with the mid-ranks actually present (doubled, so integral), as _signed_rank_p
    does for rounds; p = 2·min(P(U <= u), P(U >= u)), at most 1, scipy's exact convention.
    A subset of the ranks has the sum s with j of them in counts[j, s]; each rank in turn
    is either left out or taken, which gives N(j, s) += N(j - 1, s - r)."""
    ranks = np.rint(2 * scipy_stats.rankdata(np.concatenate([a, b]))).astype(int)
    counts = np.zeros((len(a) + 1, ranks.sum() + 1))
    counts[0, 0] = 1
    for r in ranks:
        counts[1:, r:] = counts[1:, r:] + counts[:-1, :-r]
    null = counts[len(a)] / counts[len(a)].sum()
    w = int(ranks[: len(a)].sum())
    return float(min(1.0, 2 * min(null[: w + 1].sum(), null[w:].sum())))


def compare(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> Comparison:
    """The ratio A/B with its CI (see Comparison) and a two-sided Mann-Whitney U test.
    Up to EXACT_POOLED runs together, p is exact even with tied values (_rank_sum_p):
    scipy's normal approximation, which it uses under ties, can be far off at a few runs
    a side (3+5 runs with a tie: 0.048 where the exact p is 4/56 = 0.071). With more runs,
    scipy's test (exact without ties when a side has at most 8 runs, as scipy chooses).
    A value that is not positive leaves no ratio (NaN, with its interval) but a p."""
    a_arr = np.asarray(a, dtype=float)
    b_arr = np.asarray(b, dtype=float)
    if not len(a_arr) or not len(b_arr) or np.isnan(a_arr).any() or np.isnan(b_arr).any():
        raise ValueError(
            f"cannot compare {len(a_arr)} with {len(b_arr)} values (empty or missing values): "
            "a verdict needs runs on both sides"
        )
    if len(a_arr) + len(b_arr) <= EXACT_POOLED:
        p = _rank_sum_p(a_arr, b_arr)
    else:
        p = scipy_stats.mannwhitneyu(a_arr, b_arr, alternative="two-sided").pvalue
    ratio = low = high = variance = float("nan")
    coverage = 0.0
    if (a_arr > 0).all() and (b_arr > 0).all():
        variance = log_ratio_variance(np.log(a_arr), np.log(b_arr), paired=False)
        diffs = np.sort(np.subtract.outer(np.log(a_arr), np.log(b_arr)).ravel())
        ratio = float(np.exp(np.median(diffs)))
        if len(diffs) > 1:
            k, coverage = _critical_rank(len(a_arr), len(b_arr), confidence)
            low, high = float(np.exp(diffs[k - 1])), float(np.exp(diffs[-k]))
    return Comparison(
        ratio=ratio,
        ratio_low=low,
        ratio_high=high,
        ratio_confidence=float(coverage),
        p_value=float(p),
        n_a=len(a_arr),
        n_b=len(b_arr),
        median_a=float(np.median(a_arr)),
        median_b=float(np.median(b_arr)),
        log_variance=variance,
    )


def min_detectable_n() -> int:
    """Smallest equal group size at which Mann-Whitney can reach p < ALPHA at all
    (complete separation): with fewer runs, 'no significant difference' is certain."""
    n = 2
    while scipy_stats.mannwhitneyu(range(n), range(n, 2 * n)).pvalue >= ALPHA:
        n += 1
    return n


PAIRED_ESTIMATOR = (
    "ratio = the median of the averages of every two per-round log-ratios, taken back "
    "from the logarithm (one-sample Hodges-Lehmann estimate); its confidence interval "
    "comes from the same averages (Tukey's method, exact for small samples); p from a "
    "two-sided Wilcoxon signed-rank test over the rounds"
)
EXACT_MAX = 50  # beyond this many runs or rounds, normal approximations take over


def _sign_counts(ranks: Sequence[int]) -> np.ndarray:
    """How many of the 2^n sign assignments give each rank sum T+ = 0 … Σ ranks: the
    exact null distribution of the signed-rank statistic, in which each difference is as
    likely positive as negative. The last difference is one or the other, which gives
    N(t; r_1 … r_n) = N(t; r_1 … r_{n-1}) + N(t - r_n; r_1 … r_{n-1}), unrolled here."""
    counts = np.ones(1)
    for r in ranks:
        longer = np.zeros(len(counts) + r)
        longer[: len(counts)] += counts  # the difference is negative: T+ unchanged
        longer[r:] += counts  # positive: its rank joins T+
        counts = longer
    return counts


@cache
def _signed_rank_counts(n: int) -> tuple[float, ...]:
    """The textbook case of _sign_counts, ranks 1 … n (no ties, no zeros)."""
    return tuple(_sign_counts(range(1, n + 1)))


def _signed_rank_p(d: np.ndarray) -> float:
    """Two-sided p of the Wilcoxon signed-rank test on the differences d. Without ties or
    zeros, scipy's exact test. A zero (a round in which both sides measured the same) is
    kept in the ranking and counts for neither side (Pratt's method): dropping it, as
    Wilcoxon did, would discard a round that shows no difference. With zeros or tied
    differences the p is still exact: the null distribution of the mid-ranks actually
    present, from _sign_counts on doubled (so integral) ranks; beyond EXACT_MAX rounds,
    scipy's normal approximation with Pratt's treatment. No non-zero difference: p = 1."""
    d = np.round(d, 12)  # ratios of rounded values (whole ms) tie exactly, not to 1e-16
    if not d.any():
        return 1.0
    magnitudes = np.abs(d)
    if d.all() and len(np.unique(magnitudes)) == len(d):
        return float(scipy_stats.wilcoxon(d, method="exact").pvalue)
    if len(d) > EXACT_MAX:
        return float(scipy_stats.wilcoxon(d, zero_method="pratt", method="asymptotic").pvalue)
    ranks = np.rint(2 * scipy_stats.rankdata(magnitudes)).astype(int)
    cdf = np.cumsum(_sign_counts(ranks[d != 0])) / 2.0 ** np.count_nonzero(d)
    t = int(ranks[d > 0].sum())
    at_most, at_least = cdf[t], 1 - (cdf[t - 1] if t > 0 else 0.0)
    return float(min(1.0, 2 * min(at_most, at_least)))


def _walsh_critical_rank(n: int, confidence: float) -> tuple[int, float]:
    """Largest k with P(T+ < k) <= (1 - confidence) / 2 for the signed-rank statistic T+
    of n rounds, and the coverage it gives; the CI of the one-sample shift is then
    [w(k), w(M + 1 - k)] over the M = n(n+1)/2 sorted Walsh averages (Tukey). For n = 8
    at 95 %: k = 4, coverage 1 - 10/256 = 96.1 %. When no k reaches ``confidence``
    (n ≤ 5), k = 1, the widest interval, with the coverage it has (93.75 % for n = 5)."""
    tail = (1 - confidence) / 2
    if n <= EXACT_MAX:
        cdf = np.cumsum(_signed_rank_counts(n)) / 2.0**n
        k = max(1, int(np.searchsorted(cdf, tail, side="right")))  # P(T+ <= k-1) <= tail
        return k, float(1 - 2 * cdf[k - 1])
    z = scipy_stats.norm.ppf(1 - tail)
    k = int(n * (n + 1) / 4 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24))
    return max(k, 1), confidence


def _paired_ratio(d: np.ndarray, confidence: float) -> tuple[float, float, float, float]:
    """Ratio, CI low, CI high and coverage from the per-round log-ratios d: the median of
    the Walsh averages (d_i + d_j) / 2, i <= j, and two of them as the interval, so the
    estimate lies inside its interval and the interval excludes 1 just when p <= 1 - its
    coverage (without ties). The coverage assumes no ties, as rounded data may have."""
    n = len(d)
    walsh = np.sort(np.add.outer(d, d)[np.triu_indices(n)] / 2)
    k, coverage = _walsh_critical_rank(n, confidence)
    return (
        float(np.exp(np.median(walsh))),
        float(np.exp(walsh[k - 1])),
        float(np.exp(walsh[-k])),
        coverage,
    )


def compare_paired(
    a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE
) -> Comparison:
    """A over B round by round: a[r] and b[r] were measured in the same round r, so each
    round gives one ratio a[r] / b[r] and whatever shifted the whole round (a noisy
    neighbour, a warm cache, thermal state) cancels out. See PAIRED_ESTIMATOR. A round
    with either side missing (NaN) is dropped, the other side's value with it. If a
    value is not positive there is no ratio (NaN, as compare does) and p is taken from
    the plain differences a[r] - b[r]."""
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a_arr.ndim != 1 or a_arr.shape != b_arr.shape:
        raise ValueError(
            f"a paired comparison needs one value of each side per round; got {len(a_arr)} "
            f"and {len(b_arr)} values"
        )
    both = ~(np.isnan(a_arr) | np.isnan(b_arr))
    a_arr, b_arr = a_arr[both], b_arr[both]
    if len(a_arr) < 2:
        raise ValueError(
            f"a paired comparison needs at least 2 rounds with a value on both sides; "
            f"got {len(a_arr)}"
        )
    ratio = low = high = variance = float("nan")
    coverage = 0.0
    if (a_arr > 0).all() and (b_arr > 0).all():
        variance = log_ratio_variance(np.log(a_arr), np.log(b_arr), paired=True)
        d = np.log(a_arr / b_arr)
        ratio, low, high, coverage = _paired_ratio(d, confidence)
    else:
        d = a_arr - b_arr
    return Comparison(
        ratio=ratio,
        ratio_low=low,
        ratio_high=high,
        ratio_confidence=coverage,
        p_value=_signed_rank_p(d),
        n_a=len(a_arr),
        n_b=len(b_arr),
        median_a=float(np.median(a_arr)),
        median_b=float(np.median(b_arr)),
        paired=True,
        log_variance=variance,
    )


@cache
def min_detectable_pairs() -> int:
    """Fewest rounds at which a two-sided signed-rank test can reach p < ALPHA at all (A
    ahead in every round: p = 2 / 2^n): with fewer, 'no significant difference' is certain."""
    n = 2
    while _signed_rank_p(np.arange(1.0, n + 1)) >= ALPHA:
        n += 1
    return n


def resolvable_ratio(aa_ratios: Sequence[float], confidence: float = CONFIDENCE) -> float:
    """The smallest difference this setup can tell from none, from an A/A control: the
    same server measured as two targets in the same rounds, one ratio per round. The true
    ratio is exactly 1, so however far the paired CI of those ratios reaches from 1 (the
    larger of |log| of its two bounds, returned as a ratio ≥ 1) is how far this setup
    strays when there is nothing to find, by noise or by a systematic offset between
    targets. A result of 1.08 means: an A/B ratio between 1/1.08 and 1.08 (±8 %) is no
    larger than what two identical servers produce here, so do not call it a difference,
    whatever its p. It is the CI compare_paired gives, at the coverage it reaches (93.75 %
    with 5 rounds). Rounds without a ratio (NaN) are dropped; at least 2 are needed."""
    r = np.asarray(aa_ratios, dtype=float)
    c = compare_paired(r, np.where(np.isnan(r), np.nan, 1.0), confidence)
    if math.isnan(c.ratio_low):
        raise ValueError(f"an A/A control needs positive ratios; got {list(aa_ratios)}")
    return float(math.exp(max(abs(math.log(c.ratio_low)), abs(math.log(c.ratio_high)))))
