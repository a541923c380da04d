"""Concurrency sweeps: how throughput and tail latency change with load, and the knee.

The knee is where adding concurrency stops buying throughput and only buys waiting:
from there on, each step gains less than 5 % req/s while p99 latency keeps rising.
"""

import pandas as pd

from benchbook.tables import medians_with_ci

KNEE_GAIN = 0.05


def sweep_summary(results: pd.DataFrame, column: str) -> pd.DataFrame:
    """Median of ``column`` and its CI per target and connection count."""
    table = medians_with_ci(results, column, by=("target", "connections"))
    return table.sort_values(["target", "connections"], kind="stable")


def find_knee(connections: list[int], rps: list[float], p99: list[float]) -> int | None:
    """The smallest concurrency from which every further step gains < KNEE_GAIN req/s
    while p99 rises; None when throughput still grows (or p99 stops rising) at the end."""
    steps = range(len(connections) - 1)
    flat = [rps[i + 1] < rps[i] * (1 + KNEE_GAIN) and p99[i + 1] > p99[i] for i in steps]
    for i in steps:
        if all(flat[i:]):
            return connections[i]
    return None


def knees(results: pd.DataFrame) -> dict[str, int | None]:
    """The knee of each target in a sweep (see find_knee)."""
    rps = sweep_summary(results, "rps")
    p99 = sweep_summary(results, "lat_p99_ms")
    found = {}
    for target, curve in rps.groupby("target", sort=False):
        tail = p99[p99["target"] == target]
        found[target] = find_knee(
            list(curve["connections"]), list(curve["median"]), list(tail["median"])
        )
    return found


def knee_sentences(found: dict[str, int | None]) -> list[str]:
    return [
        f"**{target}**: the knee is at **{knee} connections** — beyond it, throughput grows "
        f"by less than {KNEE_GAIN:.0%} per step while p99 latency keeps rising."
        if knee is not None
        else f"**{target}**: no knee within the sweep (throughput still grows by "
        f"{KNEE_GAIN:.0%} or more, or p99 stops rising, at its last step)."
        for target, knee in found.items()
    ]


def crossover(table: pd.DataFrame) -> object | None:
    """The smallest index value from which the ratio is significantly above 1 at every
    later point (verdict 'a > b' and CI above 1); None when that never happens.

    ``table`` is tables.comparison_table's output for one curve, indexed by the swept
    parameter.
    """
    curve = table.sort_index()
    above = [(row["CI low"] > 1) and (">" in row["verdict"]) for _, row in curve.iterrows()]
    for i, value in enumerate(curve.index):
        if all(above[i:]):
            return value
    return None


def crossover_sentences(
    table: pd.DataFrame, x: str, curve: str, a: str, b: str, what: str
) -> list[str]:
    """One sentence per curve (e.g. per connection count) saying where a overtakes b."""
    sentences = []
    for value, part in table.groupby(level=curve):
        part = part.droplevel(curve)
        found = crossover(part)
        best = part[f"{a}/{b}"].idxmax()
        if found is None:
            sentences.append(
                f"With {curve} = {value}, **{a} never significantly beat {b}** on {what} "
                f"within the sweep (best {a}/{b} = {part.loc[best, f'{a}/{b}']:.2f}× at "
                f"{x} = {best})."
            )
        else:
            row = part.loc[found]
            sentences.append(
                f"With {curve} = {value}, **{a} beats {b} from {x} = {found}** on {what} "
                f"({a}/{b} = {row[f'{a}/{b}']:.2f}×, 95 % CI {row['CI low']:.2f}–"
                f"{row['CI high']:.2f}×, p = {row['p']:.3f}), and at every larger {x} measured."
            )
    return sentences
