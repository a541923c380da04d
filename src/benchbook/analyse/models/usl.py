"""The Universal Scalability Law (Gunther): X(N) = λN / (1 + σ(N−1) + κN(N−1)).

λ is the throughput of one connection alone, σ the share of each request's work that
is serialised (contention: a lock, one event loop, one core), κ the cost of keeping N
workers coherent (crosstalk: it makes throughput fall after a peak at N* = √((1−σ)/κ)).

The fit uses every round of a concurrency sweep (N = connections, X = req/s), with
relative residuals because round-to-round spread grows with throughput, leaving out the
runs where the load tool, not the server, was the limit (runs_used).
The fit used is bounded at zero and found globally (a grid over σ and κ, then zooms), so
no refit sticks in a local optimum; a free fit is kept beside it so that data wanting a
negative coefficient say so (usl_checks). Intervals come from a seeded residual
bootstrap (see bootstrap for why not rounds resampled within a level).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from scipy.optimize import least_squares

from benchbook.analyse.models.runs_used import tool_limited
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.rows.names import reader_name

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
    """The valid rounds of one target in a sweep where the server, not the load tool, was
    the limit: connections, repetition, rps and the server's CPU (% of one core)."""
    rows = valid_rows(results[results["target"] == target])
    rows = rows[~tool_limited(rows)].dropna(subset=["connections", "rps"])
    points = rows[["connections", "repetition", "rps"]].astype(float)
    points["server_cpu_pct"] = pd.to_numeric(
        rows.get("server_cpu_pct", pd.Series(np.nan, index=rows.index)), errors="coerce"
    )
    # What the server waits per request (its declared sleep): one connection's ceiling.
    points["wait_ms"] = pd.to_numeric(
        rows.get("server_delay_ms", pd.Series(np.nan, index=rows.index)), errors="coerce"
    )
    return points.sort_values(["connections", "repetition"], kind="stable").reset_index(drop=True)


def left_out(results: pd.DataFrame, target: str) -> int:
    """How many valid runs of ``target`` sweep_points leaves out (the load tool the limit)."""
    rows = valid_rows(results[results["target"] == target])
    return int(tool_limited(rows).sum())


def _residuals(p: np.ndarray, n: np.ndarray, x: np.ndarray) -> np.ndarray:
    denominator = _denominator(n, p[1], p[2])
    safe = np.where(denominator > 1e-9, denominator, 1e-9)
    return p[0] * n / safe / x - 1


# The global search runs over s = √σ and w = N_max·√κ, both ≥ 0: on these scales the
# curves of real sweeps (σ from 0 to 1, κ·N_max² from 0 to a few hundred) are spread
# evenly, and a grid through 0 finds the bound exactly when the data want it.
_S_TOP, _W_TOP = 1.2, 20.0
_COARSE = 15  # grid points per axis of the global step
_ZOOM = 7  # points per axis of each local step, spanning ± one step
# Local steps: a step keeps its width while the best point is on its edge (the minimum
# lies beyond: σ and κ trade off along a narrow valley) and shrinks 3× once inside.
_ZOOMS = 40
_CONVERGED = 1e-6  # of s and w: σ and κ·N_max² to about 10⁻⁶ of their scale
_AT_BOUND = 1e-9  # a relative cost this close is the same fit


def _profile(n: np.ndarray, x: np.ndarray, s: np.ndarray, w: np.ndarray, top: float):
    """For each sweep (row of x) and each (s, w) beside it: the least relative-squares
    cost and its λ. With σ, κ fixed the residual λa − 1 (a = N/(denominator·X)) is
    linear in λ, minimised by λ = Σa/Σa², which leaves Σ1 − (Σa)²/Σa²."""
    den = 1 + (s * s)[..., None] * (n - 1) + ((w / top) ** 2)[..., None] * (n * (n - 1))
    a = (n / x)[:, None, :] / den
    sa, saa = a.sum(axis=-1), np.einsum("bgm,bgm->bg", a, a)
    return len(n) - sa * sa / saa, sa / saa


def fit_many(n: Sequence[float], x: np.ndarray) -> np.ndarray:
    """Bounded (≥ 0) least-squares λ, σ, κ of many sweeps at the same N at once (one row
    of x each; returns one row of λ, σ, κ each): a global grid, then zooms around each
    row's best point. Vectorised, so a bootstrap of hundreds of refits takes a fraction
    of a second, and global, so a refit cannot stick where a local optimiser started."""
    n = np.asarray(n, dtype=float)
    x = np.atleast_2d(np.asarray(x, dtype=float))
    top, rows = float(n.max()), np.arange(len(x))
    s_axis, w_axis = np.linspace(0, _S_TOP, _COARSE), np.linspace(0, _W_TOP, _COARSE)
    grid_s, grid_w = (np.broadcast_to(g.ravel(), (len(x), g.size)) for g in np.meshgrid(
        s_axis, w_axis, indexing="ij"))  # fmt: skip
    cost, _lam = _profile(n, x, grid_s, grid_w, top)
    best = cost.argmin(axis=1)
    s, w = grid_s[rows, best], grid_w[rows, best]
    step = np.tile([s_axis[1], w_axis[1]], (len(x), 1))
    offsets = np.linspace(-1, 1, _ZOOM)
    edge = np.array([0, _ZOOM - 1])
    for _ in range(_ZOOMS):
        if (step < _CONVERGED).all():
            break
        local_s = np.clip(s[:, None] + step[:, :1] * offsets, 0, None)
        local_w = np.clip(w[:, None] + step[:, 1:] * offsets, 0, None)
        grid_s = np.repeat(local_s, _ZOOM, axis=1)
        grid_w = np.tile(local_w, (1, _ZOOM))
        cost, _lam = _profile(n, x, grid_s, grid_w, top)
        best = cost.argmin(axis=1)
        i, j = np.divmod(best, _ZOOM)
        # a point clipped at 0 is the bound, not the step's edge
        on_edge = np.column_stack([
            np.isin(i, edge) & (local_s[rows, i] > 0), np.isin(j, edge) & (local_w[rows, j] > 0)
        ])  # fmt: skip
        s, w = local_s[rows, i], local_w[rows, j]
        step = np.where(on_edge, step, step * 2 / (_ZOOM - 1))
    # The steps never land on a bound exactly: a coefficient that costs (next to) nothing
    # at its bound is put there.
    candidates_s = np.column_stack([s, np.zeros_like(s), s])
    candidates_w = np.column_stack([w, w, np.zeros_like(w)])
    cost, lam = _profile(n, x, candidates_s, candidates_w, top)
    best = (cost - [0.0, _AT_BOUND, _AT_BOUND] * cost[:, :1]).argmin(axis=1)
    s, w = candidates_s[rows, best], candidates_w[rows, best]
    return np.column_stack([lam[rows, best], s * s, (w / top) ** 2])


def fit_params(
    n: Sequence[float], x: Sequence[float], bounded: bool = True, start: UslParams | None = None
) -> UslParams:
    """Least-squares λ, σ, κ (relative residuals). Bounded: all ≥ 0, found globally
    (fit_many) and polished by a local optimiser. Free: σ and κ may go negative (within
    limits that keep the denominator positive over the data), from several starts."""
    n, x = np.asarray(n, dtype=float), np.asarray(x, dtype=float)
    top = float(n.max())
    lam0 = float(np.max(x[n == n.min()] / n.min()))
    if bounded:
        lower, upper = [0.0, 0.0, 0.0], [np.inf, np.inf, np.inf]
    else:
        lower, upper = [0.0, -0.99 / max(top - 1, 1), -0.99 / (top * top)], [np.inf] * 3
    scale = np.array([lam0, 0.1, 1 / (top * top)])
    starts = [fit_many(n, x[None, :])[0]]
    if start:
        starts.append(start.as_array())
    if not bounded:
        starts += [[lam0, s, k / (top * top)] for s, k in _STARTS]
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
    points: pd.DataFrame  # connections, repetition, rps, server_cpu_pct
    holdout: pd.DataFrame  # connections, measured, predicted, error
    left_out: int = 0  # valid runs left out: the load tool, not the server, was the limit
    name: str = ""  # what a reader calls the target (rows.names); its label when ''

    @property
    def called(self) -> str:
        return self.name or self.target

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
    def wait_ms(self) -> float:
        """What the server waits per request (ms), 0 where it declares no wait."""
        waits = self.points["wait_ms"].dropna() if "wait_ms" in self.points else pd.Series()
        return float(waits.median()) if len(waits) and waits.median() > 0 else 0.0

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
    points: pd.DataFrame, params: UslParams, bootstraps: int = BOOTSTRAPS, seed: int = SEED
) -> np.ndarray:
    """Refits to the fitted curve times log residuals drawn with replacement from all m
    rounds, each refit global (fit_many); seeded, so the same data give the same
    intervals. The residuals are centred and widened twice: by √(m/(m − 3)), for the three
    parameters fitted to them, and by t(m − 3)/z at the interval's level, because their
    spread is itself estimated from m − 3 degrees of freedom (a percentile interval is
    otherwise a z interval with an estimated spread: too short at 18 rounds).

    Rounds resampled within each level, the obvious bootstrap, keep each level's own
    spread but see only (r − 1)/r of its variance: at the report's design (6 levels × 3
    rounds, 10 % noise) its 95 % intervals covered σ in 83 % of simulated sweeps, and
    refitting it globally did not help. Pooling the residuals assumes one relative spread
    at every level; in return the intervals cover ≥ 90 % there (tests/test_usl.py)."""
    rng = np.random.default_rng(seed)
    n, x = points["connections"].to_numpy(), points["rps"].to_numpy()
    curve = params.throughput(n)
    residuals = np.log(x / curve)
    df = max(len(x) - 3, 1)
    tail = (1 + LEVEL) / 2
    widen = np.sqrt(len(x) / df) * stats.t.ppf(tail, df) / stats.norm.ppf(tail)
    residuals = (residuals - residuals.mean()) * widen
    draws = curve * np.exp(rng.choice(residuals, size=(bootstraps, len(x)), replace=True))
    return fit_many(n, draws)


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
    """λ, σ, κ of one target from a sweep's rows, with bootstrap and hold-outs (the runs
    where the load tool was the limit left out, and counted)."""
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
    holdout = hold_one_level_out(points)
    return UslFit(
        target, params, free, boot, points, holdout, left_out(results, target),
        reader_name(results, target),
    )  # fmt: skip


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
