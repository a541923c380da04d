"""Where a sweep contradicts the USL, said in words a student can follow, and the rule
that decides whether the fit may be summarised by its peak N* at all.

A fit always returns numbers; these checks say when the numbers should not be trusted:
too few concurrency levels to fit three parameters and test one, per-connection
throughput that grows with N (superlinear: the USL cannot do that with σ, κ ≥ 0), a free
fit that wants a negative coefficient, a curve that falls and then rises again (the USL
has at most one peak), and a prediction outside every round measured at a level.

The rule (rule_broken): a fit is summarised only when its λ is no more than one
connection can send to a server that waits per request (Little's law), it misses fewer
than half of the levels beyond their rounds' spread, and every inner level (one with
levels on both sides), left out and predicted by a refit, is within HOLDOUT_LIMIT. How often
it keeps a true USL depends on the design (6 levels × 3 rounds, 10 % noise: about 92 %;
2 rounds: about six in ten), so the report simulates it at each sweep's own design
(usl_rule_check). A
level at either end is not judged by its hold-out: that prediction is an extrapolation,
missed by 26 % in the median sweep of a true USL.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchbook.analyse.models.usl import UslFit
from benchbook.analyse.numbers import formatting as fmt

MIN_LEVELS = 4  # three parameters, and one level held out to test them
HOLDOUT_LIMIT = 0.25  # an inner level left out must be predicted within 25 %
ONE_CONNECTION_SLACK = 1.1  # λ may pass one connection's Little's-law rate by the fit's noise
ADVISED_LEVELS = 6  # so that each hold-out fit has more points than parameters


@dataclass(frozen=True)
class Contradiction:
    kind: str  # too_few_levels, beyond_one_connection, superlinear, negative, rises_again, misfit
    words: str


def level_spread(points: pd.DataFrame) -> pd.DataFrame:
    """Per level: rounds, median, lowest and highest req/s."""
    g = points.groupby("connections", sort=True)["rps"]
    return pd.DataFrame({"rounds": g.size(), "median": g.median(), "low": g.min(), "high": g.max()})


def too_few_levels(fit: UslFit) -> list[Contradiction]:
    levels = len(fit.levels)
    if levels >= ADVISED_LEVELS:
        return []
    if levels < MIN_LEVELS:
        why = (
            f"only {levels} concurrency levels: three parameters fit them (nearly) "
            "exactly, and none is left to test the model on"
        )
    else:
        why = (
            f"only {levels} concurrency levels: each hold-out fit has 3 levels for 3 "
            f"parameters, so it passes through them and tests little; "
            f"{ADVISED_LEVELS} or more make the check meaningful"
        )
    return [Contradiction("too_few_levels", why)]


def superlinear(fit: UslFit) -> list[Contradiction]:
    """Efficiency X(N)/(N·X(N₀)/N₀) above 1 beyond the spread: each connection got more
    done at higher concurrency than at the lowest level measured (N₀; X(1) when N₀ = 1)."""
    spread = level_spread(fit.points)
    base = spread.iloc[0]
    n0 = float(spread.index[0])
    found = []
    for n, row in spread.iloc[1:].iterrows():
        if row["low"] / n > base["high"] / n0:
            eff = (row["median"] / n) / (base["median"] / n0)
            found.append(
                Contradiction(
                    "superlinear",
                    (
                        f"at {n:g} connections each connection served {eff:.2f}× what it served at "
                        f"{n0:g} (efficiency above 1, in every round): throughput grew faster than "
                        "the connections, which the USL with σ, κ ≥ 0 cannot produce — look for a "
                        "cache warming up, batching, or a load tool that was the limit at low N"
                    ),
                )
            )
    return found


def negative_coefficients(fit: UslFit) -> list[Contradiction]:
    """The free fit's σ or κ below zero (the fit used is held at zero)."""
    found = []
    for name, value, meaning in (
        ("σ", fit.free.sigma, "adding connections removes contention"),
        ("κ", fit.free.kappa, "adding connections removes crosstalk"),
    ):
        if value < 0:
            found.append(
                Contradiction(
                    "negative",
                    (
                        f"left free, the fit wants {name} = {value:.3g} < 0 ({meaning}), which no "
                        f"real server does; the fit used holds {name} at 0, so its numbers "
                        "describe the data less well than they seem"
                    ),
                )
            )
    return found


def rises_again(fit: UslFit) -> list[Contradiction]:
    """A fall then a rise, each beyond the rounds' spread: the USL has one peak at most.
    The deepest such trough is named."""
    s = level_spread(fit.points)
    troughs = [
        i
        for i in range(1, len(s) - 1)
        if (s["low"].iloc[:i] > s["high"].iloc[i]).any()
        and (s["low"].iloc[i + 1 :] > s["high"].iloc[i]).any()
    ]
    if not troughs:
        return []
    here = s.iloc[min(troughs, key=lambda i: s["median"].iloc[i])]
    return [
        Contradiction(
            "rises_again",
            f"throughput falls to {fmt.count(here['median'])} req/s at {here.name:g} "
            "connections and then rises again: the USL has a single peak, so this curve "
            "has something else in it (a second bottleneck, a retry storm, a tool limit at "
            "some levels)",
        )
    ]


def misfit(fit: UslFit) -> list[Contradiction]:
    """Levels where the fitted curve lies outside every round measured there (the
    round-to-round spread): the model misses by more than the noise does."""
    s = level_spread(fit.points)
    return [
        Contradiction(
            "misfit",
            (
                f"at {n:g} connections the fit predicts {fmt.count(fit.predict(n))} req/s, but "
                f"the {s.loc[n, 'rounds']:.0f} rounds measured "
                f"{fmt.count(s.loc[n, 'low'])}–{fmt.count(s.loc[n, 'high'])}: a miss larger "
                "than the rounds' own spread"
            ),
        )
        for n in misfit_levels(fit.points, fit.predict)
    ]


def misfit_levels(points: pd.DataFrame, predict: Callable[[float], object]) -> list[float]:
    """The levels of more than one round where ``predict(N)`` lies outside every round."""
    s = level_spread(points)
    outside = [
        n
        for n, row in s.iterrows()
        if row["rounds"] > 1 and not row["low"] <= float(predict(n)) <= row["high"]
    ]
    return [float(n) for n in outside]


def inner_holdout(holdout: pd.DataFrame) -> pd.DataFrame:
    """The hold-out rows of the levels with a level on either side."""
    ordered = holdout.sort_values("connections")
    return ordered.iloc[1:-1].dropna(subset=["error"])


def beyond_one_connection(fit: UslFit) -> list[Contradiction]:
    """λ, one connection's throughput, above what one connection can send to a server that
    waits per request (Little's law: 1 ÷ the wait), beyond the fit's noise."""
    if fit.wait_ms <= 0:
        return []
    most = 1000 / fit.wait_ms
    if fit.params.lam <= ONE_CONNECTION_SLACK * most:
        return []
    return [
        Contradiction(
            "beyond_one_connection",
            f"its λ ≈ {fmt.significant(fit.params.lam)} req/s for one connection is more than one "
            f"connection can send when each request waits {fit.wait_ms:g} ms ({fmt.count(most)} "
            "req/s by Little's law), so the curve's start is no measurement of the server",
        )
    ]


def rule_broken(fit: UslFit) -> list[str]:
    """Why the fit must not be summarised by N* (the module's rule): empty when it may."""
    levels = len(fit.levels)
    if levels < MIN_LEVELS:
        return [f"{levels} concurrency levels leave none to check the fit on"]
    found = [c.words for c in beyond_one_connection(fit)]
    missed = misfit_levels(fit.points, fit.predict)
    if 2 * len(missed) >= levels:
        found.append(
            f"it misses {len(missed)} of {levels} levels beyond their rounds' spread, at "
            f"{', '.join(f'{n:g}' for n in missed)} connections"
        )
    inner = inner_holdout(fit.holdout)
    worst = inner.loc[inner["error"].abs().idxmax()] if len(inner) else None
    if worst is not None and abs(worst["error"]) > HOLDOUT_LIMIT:
        found.append(
            f"left out, the level at {worst['connections']:g} connections is missed by "
            f"{fmt.share(abs(worst['error']))}, more than {fmt.share(HOLDOUT_LIMIT)}"
        )
    return found


def contradictions(fit: UslFit) -> list[Contradiction]:
    """Every way this sweep contradicts the USL, most basic first."""
    checks = (
        too_few_levels, beyond_one_connection, superlinear, negative_coefficients, rises_again,
        misfit,
    )  # fmt: skip
    return [c for check in checks for c in check(fit)]


def worst_holdout(fit: UslFit) -> tuple[float, float]:
    """The level whose hold-out prediction missed most, and by how much (relative)."""
    errors = fit.holdout.dropna(subset=["error"])
    if errors.empty:
        return float("nan"), float("nan")
    row = errors.loc[np.abs(errors["error"]).idxmax()]
    return float(row["connections"]), float(row["error"])
