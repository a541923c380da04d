"""Few, honest numbers with their uncertainty, computed the way benchstat does.

A configuration is summarised by its median and a distribution-free confidence
interval from order statistics; two configurations are compared by the ratio of
their medians and a two-sided Mann-Whitney U test.
"""

from collections.abc import Sequence
from dataclasses import dataclass

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
    ratio: float  # median(a) / median(b)
    p_value: float
    n_a: int
    n_b: int

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA


def compare(a: Sequence[float], b: Sequence[float]) -> Comparison:
    """Ratio of medians and a two-sided Mann-Whitney U test (exact for small samples
    without ties, as scipy chooses)."""
    a_arr = np.asarray(a, dtype=float)
    b_arr = np.asarray(b, dtype=float)
    p = scipy_stats.mannwhitneyu(a_arr, b_arr, alternative="two-sided").pvalue
    return Comparison(float(np.median(a_arr) / np.median(b_arr)), float(p), len(a_arr), len(b_arr))


def min_detectable_n() -> int:
    """Smallest equal group size at which Mann-Whitney can reach p < ALPHA at all
    (complete separation): with fewer runs, 'no significant difference' is certain."""
    n = 2
    while scipy_stats.mannwhitneyu(range(n), range(n, 2 * n)).pvalue >= ALPHA:
        n += 1
    return n
