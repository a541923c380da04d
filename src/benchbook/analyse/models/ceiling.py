"""A ceiling: throughput that rises with concurrency and then stops, flat from some level
on. It is the shape a server takes when one resource runs out (one core at 100 %), and
the USL, whose curve bends smoothly, describes it badly: its N* then names a peak that
the rounds never show.

The model is the flat stretch itself: from the lowest level of it on, X(N) = the median
of every round there. It is found as the longest run of top levels that this constant
describes by the USL's own rule (usl_checks): it lies outside the rounds of fewer than
half of them, and each of them, left out, is predicted by the median of the others'
rounds within HOLDOUT_LIMIT. The level below the stretch must lie below it: a stretch
below an earlier peak is a fall, not a ceiling.
"""

from dataclasses import dataclass

import pandas as pd

from benchbook.analyse.models.usl_checks import HOLDOUT_LIMIT, level_spread, misfit_levels
from benchbook.runs.limits import SERVER_BOUND_SHARE


@dataclass(frozen=True)
class Ceiling:
    """Where throughput stops rising, how high, and how busy the server's CPU was there."""

    start: float  # the lowest level (connections) of the flat stretch
    rate: float  # req/s: the median of every round of the flat stretch
    medians: pd.Series  # per level of the stretch: the rounds' median req/s
    holdout: pd.DataFrame  # per level of the stretch: measured, predicted, error
    server_cpu: pd.Series  # per level of the stretch: the rounds' median server CPU %

    @property
    def at_one_core(self) -> bool:
        """The server used a whole core (runs.limits.SERVER_BOUND_SHARE of it or more) at
        every level of the stretch: one core's limit, the same at every concurrency, not
        contention."""
        cpu = self.server_cpu.dropna()
        return len(cpu) == len(self.server_cpu) and bool((cpu >= 100 * SERVER_BOUND_SHARE).all())


def _holdout(stretch: pd.DataFrame) -> pd.DataFrame:
    """Each level of the stretch predicted by the median of the other levels' rounds."""
    rows = []
    for level, held in stretch.groupby("connections", sort=True):
        measured = float(held["rps"].median())
        predicted = float(stretch.loc[stretch["connections"] != level, "rps"].median())
        rows.append(
            {
                "connections": float(level),
                "measured": measured,
                "predicted": predicted,
                "error": predicted / measured - 1,
            }
        )
    return pd.DataFrame(rows)


def _flat(stretch: pd.DataFrame) -> bool:
    """The stretch's median describes it by the USL's rule."""
    rate = float(stretch["rps"].median())
    levels = stretch["connections"].nunique()
    missed = misfit_levels(stretch, lambda n: rate)
    return 2 * len(missed) < levels and bool(
        (_holdout(stretch)["error"].abs() <= HOLDOUT_LIMIT).all()
    )


def find(points: pd.DataFrame) -> Ceiling | None:
    """The ceiling of a sweep's rounds (connections, rps, server_cpu_pct), or None when the
    top two levels are not flat or the level below the flat stretch lies above it."""
    levels = sorted(set(points["connections"]))
    flat_from = None
    for i in range(len(levels) - 1):
        if _flat(points[points["connections"] >= levels[i]]):
            flat_from = i
            break
    if flat_from is None:
        return None
    stretch = points[points["connections"] >= levels[flat_from]]
    rate = float(stretch["rps"].median())
    below = points[points["connections"] == levels[flat_from - 1]] if flat_from else None
    if below is not None and float(below["rps"].median()) >= rate:
        return None
    spread = level_spread(stretch)
    cpu = stretch.groupby("connections", sort=True)["server_cpu_pct"].median()
    return Ceiling(
        float(levels[flat_from]), rate, spread["median"], _holdout(stretch), cpu.astype(float)
    )
