"""How often the USL's rule (usl_checks.rule_broken) keeps a sweep, simulated at the design
of the sweep it is applied to: its levels, its rounds per level and its rounds' own
noise. The report states this share beside the rule rather than one typed figure: at 6
levels × 3 rounds and 10 % noise the rule keeps about nine in ten fits of a true USL,
at 2 rounds about six in ten (tests/test_usl.py), so the share depends on the design."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchbook.analyse.models import usl
from benchbook.analyse.models.usl_checks import rule_broken

# Simulated sweeps per curve: the share's binomial SE is at most 5 points at 100.
SWEEPS = 100
SEED = 20261206


@dataclass(frozen=True)
class RuleCheck:
    """The rule simulated at one sweep's design."""

    levels: tuple[float, ...]
    rounds: int  # the fewest rounds any level has
    noise: float  # the SD of log req/s between rounds at one level (the median level's)
    keeps_usl: float  # of sweeps of the fitted USL itself, the share whose fit keeps the rule
    keeps_flat: float  # of a curve that rises at the fitted λ and then stays flat
    sweeps: int


def rule_check(fit: usl.UslFit, sweeps: int = SWEEPS, seed: int = SEED) -> RuleCheck | None:
    """The rule at ``fit``'s design, with its own fitted USL as the truth, and a curve
    rising at the same λ to a flat top at its highest level's median as the impostor;
    None where a level has one round (no noise to simulate with)."""
    points = fit.points
    by_level = points.groupby("connections")["rps"]
    rounds = int(by_level.size().min())
    noise = float(np.log(points["rps"]).groupby(points["connections"]).std(ddof=1).median())
    if rounds < 2 or not np.isfinite(noise):
        return None
    levels = tuple(float(n) for n in fit.levels)
    top = float(by_level.median().max())
    lam = fit.params.lam

    def flat(n: np.ndarray) -> np.ndarray:
        return np.minimum(lam * n, top)

    def keeps(curve: Callable[[np.ndarray], np.ndarray], offset: int) -> float:
        return share_kept(curve, levels, rounds, noise, sweeps, seed + offset)

    return RuleCheck(levels, rounds, noise, keeps(fit.params.throughput, 0), keeps(flat, 1), sweeps)


def share_kept(
    curve: Callable[[np.ndarray], np.ndarray],
    levels: tuple[float, ...],
    rounds: int,
    noise: float,
    sweeps: int,
    seed: int,
) -> float:
    """The share of ``sweeps`` simulated sweeps of ``curve`` (``rounds`` per level, log-normal
    ``noise``) whose USL fit keeps the rule."""
    rng = np.random.default_rng(seed)
    n = np.repeat(np.asarray(levels, dtype=float), rounds)
    kept = 0
    for _ in range(sweeps):
        x = curve(n) * np.exp(rng.normal(0, noise, n.size))
        points = pd.DataFrame({"connections": n, "rps": x})
        params = usl.fit_params(n, x)
        holdout = usl.hold_one_level_out(points)
        simulated = usl.UslFit("simulated", params, params, np.empty((0, 3)), points, holdout)
        kept += not rule_broken(simulated)
    return kept / sweeps
