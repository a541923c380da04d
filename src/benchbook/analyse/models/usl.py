"""The Universal Scalability Law (Gunther): X(N) = λN / (1 + σ(N−1) + κN(N−1)).

λ is the throughput of one connection alone, σ the share of each request's work that
is serialised (contention: a lock, one event loop, one core), κ the cost of keeping N
workers coherent (crosstalk: it makes throughput fall after a peak at N* = √((1−σ)/κ)).

The fit uses every round of a concurrency sweep (N = connections, X = req/s), with
relative residuals because round-to-round spread grows with throughput. The fit used
is bounded at zero; a free fit is kept beside it so that data wanting a negative
coefficient say so (usl_checks). Intervals come from a seeded bootstrap that resamples
rounds within each concurrency level, so each level keeps its own spread.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from benchbook.analyse.tables import valid_rows

LEVEL = 0.95
BOOTSTRAPS = 400
SEED = 20261126
NAMES = ("lam", "sigma", "kappa")


def throughput(n: np.ndarray | float, lam: float, sigma: float, kappa: float) -> np.ndarray:
    """X(N) of the USL (req/s when λ is)."""
    n = np.asarray(n, dtype=float)
    return lam * n / _denominator(n, sigma, kappa)


def _denominator(n: np.ndarray, sigma: float, kappa: float) -> np.ndarray:
    """1 + σ(N−1) + κN(N−1): how much longer a request takes with N in the system."""
    return 1 + sigma * (n - 1) + kappa * n * (n - 1)


def peak_concurrency(sigma: float, kappa: float) -> float:
    """N* = √((1−σ)/κ): inf when κ ≤ 0 (throughput never falls), nan when σ ≥ 1
    (throughput falls from the first extra connection, so there is no peak above 1)."""
    if kappa <= 0:
        return float("inf")
    if sigma >= 1:
        return float("nan")
    return float(np.sqrt((1 - sigma) / kappa))


@dataclass(frozen=True)
class UslParams:
    lam: float
    sigma: float
    kappa: float

    def throughput(self, n: np.ndarray | float) -> np.ndarray:
        return throughput(n, self.lam, self.sigma, self.kappa)

    @property
    def peak(self) -> float:
        return peak_concurrency(self.sigma, self.kappa)

    @property
    def ceiling(self) -> float:
        """λ/σ: the throughput the curve levels off at when κ = 0 (inf when σ ≤ 0)."""
        return self.lam / self.sigma if self.sigma > 0 else float("inf")

    def as_array(self) -> np.ndarray:
        return np.array([self.lam, self.sigma, self.kappa])


def sweep_points(results: pd.DataFrame, target: str) -> pd.DataFrame:
    """The valid rounds of one target in a sweep: connections, repetition, rps."""
    rows = valid_rows(results[results["target"] == target])
    rows = rows.dropna(subset=["connections", "rps"])
    points = rows[["connections", "repetition", "rps"]].astype(float)
    return points.sort_values(["connections", "repetition"], kind="stable").reset_index(drop=True)


def _residuals(p: np.ndarray, n: np.ndarray, x: np.ndarray) -> np.ndarray:
    denominator = _denominator(n, p[1], p[2])
    safe = np.where(denominator > 1e-9, denominator, 1e-9)
    return p[0] * n / safe / x - 1


def fit_params(
    n: Sequence[float], x: Sequence[float], bounded: bool = True, start: UslParams | None = None
) -> UslParams:
    """Least-squares λ, σ, κ (relative residuals). Bounded: all ≥ 0. Free: σ and κ may go
    negative (within limits that keep the denominator positive over the data)."""
    n, x = np.asarray(n, dtype=float), np.asarray(x, dtype=float)
    top = float(n.max())
    lam0 = float(np.max(x[n == n.min()] / n.min()))
    if bounded:
        lower, upper = [0.0, 0.0, 0.0], [np.inf, np.inf, np.inf]
    else:
        lower, upper = [0.0, -0.99 / max(top - 1, 1), -0.99 / (top * top)], [np.inf] * 3
    scale = np.array([lam0, 0.1, 1 / (top * top)])
    starts = [start.as_array()] if start else [[lam0, s, k / (top * top)] for s, k in _STARTS]
    best = None
    for guess in starts:
        guess = np.clip(np.asarray(guess, dtype=float), np.add(lower, 1e-12), upper)
        found = least_squares(
            _residuals, guess, args=(n, x), bounds=(lower, upper), x_scale=scale, method="trf"
        )
        if best is None or found.cost < best.cost:
            best = found
    # A bounded coefficient the optimiser left a hair above its bound is at the bound.
    values = np.where(bounded & (np.abs(best.x) < 1e-9 * scale), 0.0, best.x)
    return UslParams(*(float(v) for v in values))


_STARTS = ((0.01, 0.01), (0.2, 0.01), (0.01, 1.0), (0.5, 0.5))


@dataclass(frozen=True)
class UslFit:
    """One target's USL: the fit used (≥ 0), the free fit, the bootstrap, the hold-outs."""

    target: str
    params: UslParams
    free: UslParams
    boot: np.ndarray  # one row per bootstrap: λ, σ, κ
    points: pd.DataFrame  # connections, repetition, rps
    holdout: pd.DataFrame  # connections, measured, predicted, error

    def interval(self, name: str, level: float = LEVEL) -> tuple[float, float]:
        """The bootstrap's percentile interval of λ, σ or κ."""
        return _quantiles(self.boot[:, NAMES.index(name)], level)

    @property
    def peaks(self) -> np.ndarray:
        return np.array([peak_concurrency(s, k) for _, s, k in self.boot])

    def peak_interval(self, level: float = LEVEL) -> tuple[float, float]:
        """The interval of N* (its upper end inf when enough bootstraps have κ = 0)."""
        peaks = self.peaks
        return _quantiles(np.where(np.isnan(peaks), 1.0, peaks), level)

    @property
    def share_without_peak(self) -> float:
        """The share of bootstraps whose κ is 0: no peak at any N."""
        return float(np.mean(np.isinf(self.peaks)))

    @property
    def levels(self) -> list[float]:
        return sorted(set(self.points["connections"]))

    def predict(self, n: np.ndarray | float) -> np.ndarray:
        return self.params.throughput(n)

    def band(self, n: np.ndarray, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
        """The bootstrap's pointwise interval of X(N)."""
        curves = np.array([throughput(n, *p) for p in self.boot])
        alpha = (1 - level) / 2
        return np.quantile(curves, alpha, axis=0), np.quantile(curves, 1 - alpha, axis=0)


def _quantiles(values: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1 - level) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha], method="inverted_cdf")
    return float(low), float(high)


def bootstrap(
    points: pd.DataFrame, start: UslParams, bootstraps: int = BOOTSTRAPS, seed: int = SEED
) -> np.ndarray:
    """Refits to rounds resampled within each level (seeded: the same data give the same
    intervals)."""
    rng = np.random.default_rng(seed)
    groups = [g["rps"].to_numpy() for _, g in points.groupby("connections", sort=True)]
    levels = sorted(set(points["connections"]))
    n = np.concatenate([np.full(len(g), c) for c, g in zip(levels, groups, strict=True)])
    found = np.empty((bootstraps, 3))
    for b in range(bootstraps):
        x = np.concatenate([rng.choice(g, size=len(g), replace=True) for g in groups])
        found[b] = fit_params(n, x, start=start).as_array()
    return found


def hold_one_level_out(points: pd.DataFrame) -> pd.DataFrame:
    """Refit without each level; the relative error of the prediction at that level
    against its median round (nan when too few levels remain to fit three parameters)."""
    rows = []
    for level, held in points.groupby("connections", sort=True):
        rest = points[points["connections"] != level]
        measured = float(held["rps"].median())
        predicted = float("nan")
        if rest["connections"].nunique() >= 3:
            params = fit_params(rest["connections"], rest["rps"])
            predicted = float(params.throughput(level))
        rows.append(
            {
                "connections": level,
                "measured": measured,
                "predicted": predicted,
                "error": predicted / measured - 1,
            }
        )
    return pd.DataFrame(rows)


def fit(
    results: pd.DataFrame, target: str, bootstraps: int = BOOTSTRAPS, seed: int = SEED
) -> UslFit:
    """λ, σ, κ of one target from a sweep's rows, with bootstrap and hold-outs."""
    points = sweep_points(results, target)
    if points["connections"].nunique() < 3:
        raise ValueError(
            f"{target}: {points['connections'].nunique()} concurrency levels with valid runs; "
            "the USL has three parameters, so it needs at least 3 (and 4 to check one)"
        )
    n, x = points["connections"], points["rps"]
    params = fit_params(n, x)
    free = fit_params(n, x, bounded=False)
    boot = bootstrap(points, params, bootstraps, seed)
    return UslFit(target, params, free, boot, points, hold_one_level_out(points))


def predicted_ratio(a: UslFit, b: UslFit, n: Sequence[float], level: float = LEVEL) -> pd.DataFrame:
    """X_a(N) / X_b(N) from the two fits, with a band from their bootstraps (paired by
    draw; the two bootstraps are independent, so any pairing is a valid one)."""
    n = np.asarray(n, dtype=float)
    draws = min(len(a.boot), len(b.boot))
    ratios = np.array([throughput(n, *a.boot[i]) / throughput(n, *b.boot[i]) for i in range(draws)])
    alpha = (1 - level) / 2
    return pd.DataFrame(
        {
            "connections": n,
            "ratio": a.predict(n) / b.predict(n),
            "low": np.quantile(ratios, alpha, axis=0),
            "high": np.quantile(ratios, 1 - alpha, axis=0),
        }
    )


def span(fits: dict[str, UslFit], *extra: float, points: int = 60) -> np.ndarray:
    """Concurrencies to draw or tabulate the fits over: from half the lowest level to
    1.5× the highest, log-spaced, with ``extra`` (an article's concurrency) included."""
    levels = [n for fit in fits.values() for n in fit.levels]
    grid = np.geomspace(max(1.0, min(levels) / 2), max(levels) * 1.5, points)
    return np.unique(np.concatenate([grid, np.asarray(extra, dtype=float)]))


def measured_ratio(results: pd.DataFrame, a: str, b: str) -> float:
    """Median req/s of ``a`` over that of ``b`` in valid runs (a ratio of medians, as
    the report's comparisons are)."""
    rows = valid_rows(results)
    medians = rows.groupby("target")["rps"].median()
    return float(medians[a] / medians[b])
