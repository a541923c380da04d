"""A lower bound that the next session keeps, and its one wording.

Where the load tool, not the server, set one side's number, a ratio is only a bound: a's
lowest run over b's highest is what every run of one session supports. One session's
bound is not a claim about the next: the same comparison gave "at least 31×" in one
session, 15× and 13× in others of the same machine class. So a bound printed for a
headline is the lowest of the bounds that every stored session of this machine class
under the same conditions supports (replication.spread's rows, each session reduced to
its own bound by ``extremes``): a claim each of those sessions keeps. How often the next
session breaks it needs no model of how bounds are distributed: of k + 1 sessions that
are exchangeable, the next is the lowest with probability 1 / (k + 1) (11 % over 8
stored sessions), so the sentence names the sessions it rests on.

Only runs that count enter a bound (rows.limits): a session whose runs a busy machine,
or nothing measured, set gives none, as the bound is about what the load tool and the
server did.

A bound closer to 1 than the other side's own runs differ from each other (its highest
over its lowest, in this session) is not printed as a bound: a's lowest run then lies
among b's, where the load tool gave out, and "at least 1.02×" would read as "about
equal" when the run only shows that the tool was the limit.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from benchbook.analyse.rows.limits import counted_rows

# A row may say how low and how high its value could be: a capacity placed between two
# offered rates is at least the lower one and at most the higher one (the columns named
# ``column + AT_LEAST`` and ``column + AT_MOST``). a's side of a bound takes the low end and
# b's the high end, so the bound holds however the value was placed.
AT_LEAST, AT_MOST = " (at least)", " (at most)"


def highest_possible(rows: pd.DataFrame, column: str) -> pd.Series:
    """Each row's value at the most it could be (its AT_MOST column where it has one)."""
    upper = column + AT_MOST
    return rows[upper].fillna(rows[column]) if upper in rows else rows[column]


def lowest_possible(rows: pd.DataFrame, column: str) -> pd.Series:
    """Each row's value at the least it could be (its AT_LEAST column where it has one)."""
    lower = column + AT_LEAST
    return rows[lower].fillna(rows[column]) if lower in rows else rows[column]


@dataclass(frozen=True)
class Bound:
    """The lowest session bound of a's over b's over this machine class's sessions."""

    value: float  # the lowest of the sessions' bounds
    sessions: int  # on this class under the same conditions, this one included
    here: float  # this session's own bound
    spread: float  # b's highest run over its lowest in this session

    @property
    def informative(self) -> bool:
        """The bound clears how far b's own runs stray: a's lowest run lies above b's."""
        return self.value > self.spread


def session_runs(valid: pd.DataFrame, a: str, b: str, column: str) -> tuple[float, float]:
    """a's lowest valid run at the least it could be and b's highest at the most it could
    be (runs without a value left out): the two figures a session's bound is the ratio of."""
    valid = valid.dropna(subset=[column])
    return (
        float(lowest_possible(valid[valid["target"] == a], column).min()),
        float(highest_possible(valid[valid["target"] == b], column).max()),
    )


def session_bound(valid: pd.DataFrame, a: str, b: str, column: str) -> float:
    """a's lowest valid run over b's highest."""
    low, high = session_runs(valid, a, b, column)
    return low / high


def own_spread(valid: pd.DataFrame, b: str, column: str) -> float:
    """b's highest valid run over its lowest: how far one side's runs stray."""
    values = valid.loc[valid["target"] == b, column].dropna()
    return float(values.max() / values.min())


def extremes(
    a: str, b: str, column: str, select: Callable[[pd.DataFrame], pd.DataFrame] | None = None
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A stored run's rows (after ``select``) reduced to a's lowest counted run (at the
    least it could be) and b's highest (at the most it could be), so that
    replication.spread's ratio of each session is that session's bound."""

    def reduce(rows: pd.DataFrame) -> pd.DataFrame:
        valid = counted_rows(select(rows) if select else rows, column)
        if "target" not in valid:
            return valid
        valid = valid.dropna(subset=[column])
        side_a = valid[valid["target"] == a]
        side_b = valid[valid["target"] == b]
        if side_a.empty or side_b.empty:
            return valid.iloc[0:0]
        side_a = side_a.assign(**{column: lowest_possible(side_a, column)})
        side_b = side_b.assign(**{column: highest_possible(side_b, column)})
        return pd.concat([side_a.loc[[side_a[column].idxmin()]],
                          side_b.loc[[side_b[column].idxmax()]]])  # fmt: skip

    return reduce


def bound_rows(runs: Sequence[dict], bound_runs: Sequence[dict]) -> list[dict]:
    """Spread's rows (``runs``) with each session's ratio replaced by its bound (its row in
    ``bound_runs``, spread's rows under ``extremes``) and no interval: what a session's row
    of a bound shows, its runs and CPU still those of the whole session."""
    bound_of = {r["run_id"]: r["ratio"] for r in bound_runs}
    interval = ("ci_low", "ci_high", "ci_level", "log_variance")
    return [
        {key: value for key, value in r.items() if key not in interval}
        | {"ratio": bound_of.get(r["run_id"], math.nan)}
        for r in runs
    ]


def over_sessions(runs: Sequence[dict], here: float, spread: float) -> Bound:
    """The lowest bound over the sessions (``runs``: spread's rows under ``extremes``) of
    the current session's machine class under its conditions; this session's own
    (``here``) when the store holds none of them."""
    current = next((r for r in runs if r.get("current")), None)
    same = [
        r["ratio"]
        for r in runs
        if current is not None
        and r.get("same_conditions")
        and r["machine_class"] == current["machine_class"]
        and r["ratio"] == r["ratio"]
    ]
    if not same:
        return Bound(here, 1, here, spread)
    return Bound(min(same), len(same), here, spread)
