"""Concurrency sweeps: how throughput and tail latency change with load, and the knee.

The knee is where adding concurrency stops buying throughput and only buys waiting:
from there on, no step gains 5 % req/s or more beyond the rounds' spread while p99
latency keeps rising. A rise or a fall is claimed only where it is larger than the
spread of the rounds (each level's interval of its median: with 3 rounds, their lowest
to highest), as the models' misfits are, so this section cannot call "still growing"
what the models section calls a ceiling.
"""

from dataclasses import dataclass

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import runs_of
from benchbook.analyse.rows.counted import medians_with_ci
from benchbook.analyse.rows.names import reader_name

KNEE_GAIN = 0.05


def sweep_summary(results: pd.DataFrame, column: str) -> pd.DataFrame:
    """Median of ``column`` and its CI per target and connection count."""
    table = medians_with_ci(results, column, by=("target", "connections"))
    return table.sort_values(["target", "connections"], kind="stable")


@dataclass(frozen=True)
class Curve:
    """What a throughput curve over concurrency does, from its medians and (when known)
    each level's interval of req/s."""

    connections: list[int]
    rps: list[float]
    p99: list[float]
    low: list[float] | None = None
    high: list[float] | None = None

    def rises(self, i: int, j: int) -> bool:
        """req/s at level j above level i by KNEE_GAIN or more, and beyond both intervals."""
        beyond = self.low is None or self.high is None or self.low[j] > self.high[i]
        return self.rps[j] >= self.rps[i] * (1 + KNEE_GAIN) and beyond

    def falls(self, i: int, j: int) -> bool:
        """req/s at level j below level i by KNEE_GAIN or more, and beyond both intervals."""
        beyond = self.low is None or self.high is None or self.high[j] < self.low[i]
        return self.rps[j] <= self.rps[i] * (1 - KNEE_GAIN) and beyond

    @property
    def peak(self) -> int:
        return max(range(len(self.rps)), key=self.rps.__getitem__)

    @property
    def fall(self) -> float:
        """How far throughput ends below its peak (0.38: 38 % lower)."""
        return 1 - self.rps[-1] / self.rps[self.peak]

    @property
    def falls_after_peak(self) -> bool:
        return self.peak < len(self.rps) - 1 and self.falls(self.peak, len(self.rps) - 1)

    def knee(self) -> int | None:
        """Where more concurrency stops buying throughput: the peak when throughput
        falls after it (Curve.falls), else the smallest concurrency from which no step
        rises (Curve.rises) while p99 rises; None while it still grows."""
        if self.falls_after_peak:
            return self.connections[self.peak]
        return self._flat_from()

    def _flat_from(self) -> int | None:
        steps = range(len(self.connections) - 1)
        flat = [not self.rises(i, i + 1) and self.p99[i + 1] > self.p99[i] for i in steps]
        for i in steps:
            if all(flat[i:]):
                return self.connections[i]
        return None

    def sentence(self, target: str) -> str:
        c, r = self.connections, self.rps
        peak = self.peak
        if self.falls_after_peak:
            return (
                f"**{target}**: throughput **peaks at {c[peak]} connections** "
                f"({fmt.count(r[peak])} req/s) and **falls {fmt.percent(self.fall)}** by {c[-1]} "
                f"({fmt.count(r[-1])} req/s): beyond its peak, more connections make it "
                "slower, not just slower to answer."
            )
        knee = self._flat_from()
        if knee is not None:
            return (
                f"**{target}**: the knee is at **{knee} connections** "
                f"({fmt.count(r[c.index(knee)])} req/s) — beyond it, no step adds "
                f"{fmt.percent(KNEE_GAIN)} throughput or more beyond the rounds' spread while "
                "p99 latency keeps rising "
                f"({fmt.milliseconds(self.p99[c.index(knee)])} → "
                f"{fmt.milliseconds(self.p99[-1])} ms)."
            )
        gain = r[-1] / r[-2] - 1 if len(r) > 1 else 0.0
        if len(r) > 1 and self.rises(len(r) - 2, len(r) - 1):
            return (
                f"**{target}**: no knee within the sweep — throughput still grows "
                f"{fmt.percent(gain)} from {c[-2]} to {c[-1]} connections "
                f"({fmt.count(r[-1])} req/s)."
            )
        return (
            f"**{target}**: throughput rises no further beyond the rounds' spread by "
            f"{c[-1]} connections ({fmt.count(r[-1])} req/s), but p99 latency does not keep "
            "rising, so there is no clear knee within the sweep."
        )


def curves(results: pd.DataFrame) -> dict[str, Curve]:
    """Each target's curve of median req/s and p99 over the sweep."""
    rps = sweep_summary(results, "rps")
    p99 = sweep_summary(results, "lat_p99_ms")
    found = {}
    for target, curve in rps.groupby("target", sort=False):
        tail = p99[p99["target"] == target]
        found[target] = Curve(
            list(curve["connections"]),
            list(curve["median"]),
            list(tail["median"]),
            list(curve["low"]),
            list(curve["high"]),
        )
    return found


def knees(results: pd.DataFrame) -> dict[str, int | None]:
    """The knee of each target in a sweep (see Curve.knee)."""
    return {target: curve.knee() for target, curve in curves(results).items()}


def knee_sentences(results: pd.DataFrame) -> list[str]:
    """What each target's throughput does over the sweep, with the numbers."""
    return [
        curve.sentence(reader_name(results, target)) for target, curve in curves(results).items()
    ]


def crossover(table: pd.DataFrame) -> object | None:
    """The smallest index value from which the ratio is significantly above 1 at every
    later point (verdict 'a > b' and CI above 1); None when that never happens.

    ``table`` is tables.comparison_table's output for one curve, indexed by the swept
    parameter.
    """
    curve = table.sort_index()
    above = [
        (row["CI low"] > 1) and row["verdict"].endswith(" higher") for _, row in curve.iterrows()
    ]
    for i, value in enumerate(curve.index):
        if all(above[i:]):
            return value
    return None


def _ci(row: pd.Series) -> str:
    """A comparison_table row's interval with its level, or why there is none."""
    if pd.isna(row["CI low"]):
        return "no CI (too few runs)"
    return f"{row['CI level']} CI {fmt.interval(row['CI low'], row['CI high'])}"


def crossover_sentences(
    table: pd.DataFrame, x: str, curve: str, a: str, b: str, what: str
) -> list[str]:
    """One sentence per curve (e.g. per connection count) saying where a overtakes b."""
    sentences = []
    for value, part in table.groupby(level=curve):
        part = part.droplevel(curve)
        if part[f"{a}/{b}"].isna().all():  # no run of either side counted (runs.limits)
            why = "; ".join(dict.fromkeys(part["verdict"]))
            sentences.append(f"With {curve} = {value}, no comparison: {why}.")
            continue
        found = crossover(part)
        best = part[f"{a}/{b}"].idxmax()
        if found is None:
            row = part.loc[best]
            sentences.append(
                f"With {curve} = {value}, **{a} never significantly beat {b}** on {what} "
                f"within this session's sweep, {runs_of(row['n'])} a point (its best: "
                f"{a}/{b} = {fmt.ratio(row[f'{a}/{b}'])}, {_ci(row)}, "
                f"{fmt.p_value(row['p'])}, at {x} = {best}); a headline pooling the sessions "
                "of this machine class can resolve what one session's runs cannot."
            )
        else:
            row = part.loc[found]
            beyond = (
                f"the largest {x} measured"
                if found == max(part.index)
                else f"and at every larger {x} measured"
            )
            sentences.append(
                f"With {curve} = {value}, **{a} beats {b} from {x} = {found}** on {what} "
                f"({a}/{b} = {fmt.ratio(row[f'{a}/{b}'])}, {_ci(row)}, {fmt.p_value(row['p'])}), "
                f"{beyond}."
            )
    return sentences
