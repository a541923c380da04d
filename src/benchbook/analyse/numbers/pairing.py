"""Which comparison a pair of targets gets: paired over rounds where it can, two-sample
where it cannot.

In a run measured in rounds, target A and target B were measured seconds apart in each
round, on the same machine in the same minute: their per-round ratios cancel what the
machine did that minute, so the comparison pairs them (stats.compare_paired). Where a
side has several rows in a round (a pooled comparison over paths or ids), they share
that round's server and minute, so they are one value of that round (their geometric
mean), not independent runs. With fewer rounds than a signed-rank test needs to reach
p < 0.05 at all (six), pairing could never show a difference: then the runs are compared
as two samples (stats.compare), which with four or five a side still can. Rounds in
which only one side has a valid run are left out of a paired comparison.
"""

import math
from dataclasses import replace

import pandas as pd

from benchbook.analyse.numbers.stats import (
    ALPHA,
    Comparison,
    compare,
    compare_paired,
    min_detectable_n,
    min_detectable_pairs,
    resolvable_ratio,
)
from benchbook.runs.labels import is_aa_copy, original_of

ROUND = ["run_id", "repetition"]


def comparison(
    valid: pd.DataFrame, a: str, b: str, column: str = "rps", split: str = "target"
) -> Comparison | None:
    """A over B on ``column`` among ``valid`` rows (rows.counted.valid_rows: runs that measured
    the server doing its job); None when a side has none."""
    side_a = valid.loc[valid[split] == a].dropna(subset=[column])
    side_b = valid.loc[valid[split] == b].dropna(subset=[column])
    if side_a.empty or side_b.empty:
        return None
    pairs = paired_values(side_a, side_b, column)
    if pairs is not None and len(pairs) >= min_detectable_pairs():
        c = compare_paired(pairs[column + "_a"], pairs[column + "_b"])
        if not (side_a.duplicated(ROUND).any() or side_b.duplicated(ROUND).any()):
            return c
        # where a round's several rows were one value of the test, the medians printed
        # are still the runs' (of the rounds paired), as every table gives them
        a, b = (side.merge(pairs[ROUND], on=ROUND)[column] for side in (side_a, side_b))
        return replace(c, median_a=a.median(), median_b=b.median())
    return compare(side_a[column], side_b[column])


def paired_values(side_a: pd.DataFrame, side_b: pd.DataFrame, column: str) -> pd.DataFrame | None:
    """The two sides' values round by round, or None when they cannot be paired."""
    if not set(ROUND) <= set(side_a) or not set(ROUND) <= set(side_b):
        return None
    a, b = per_round(side_a, column), per_round(side_b, column)
    if a is None or b is None:
        return None
    joined = a.merge(b, on=ROUND, suffixes=("_a", "_b"))
    return joined if len(joined) >= 2 else None


def per_round(side: pd.DataFrame, column: str) -> pd.DataFrame | None:
    """One value per round: a side's rows of one round (a pooled comparison's paths or
    ids, measured by one server process in that round) are not independent runs, so they
    count as one, their geometric mean; None where a value is not positive."""
    rows = side[[*ROUND, column]]
    if not rows.duplicated(ROUND).any():
        return rows
    if (rows[column] <= 0).any():
        return None
    logs = rows.assign(**{column: rows[column].map(math.log)})
    return (
        logs.groupby(ROUND, as_index=False)[column]
        .mean()
        .assign(**{column: lambda d: d[column].map(math.exp)})
    )


def too_few(c: Comparison) -> bool:
    """With fewer runs (or rounds) than can reach p < ALPHA at all, 'no significant
    difference' would be certain: the answer is then 'too few runs to tell'. Two samples
    reach their smallest p when they do not overlap at all, 2 / C(n_a + n_b, n_a): below
    ALPHA from 4 runs a side, but also with 3 against 5 (2/56) or 2 against 8 (2/45)."""
    if c.paired:
        return c.n_a < min_detectable_pairs()
    return 2 / math.comb(c.n_a + c.n_b, c.n_a) >= ALPHA


def needed(c: Comparison) -> int:
    return min_detectable_pairs() if c.paired else min_detectable_n()


def runs_text(c: Comparison) -> str:
    if c.paired:
        return f"{c.n_a} rounds, paired"
    if c.n_a == c.n_b:
        return f"{c.n_a} run{'s' if c.n_a != 1 else ''} each"
    return f"{c.n_a} and {c.n_b} runs"


def runs_of(n: str) -> str:
    """A count_text as words: '6 rounds' stays, '4+4' is '4+4 runs'."""
    return n if "round" in n else f"{n} runs"


def count_text(c: Comparison) -> str:
    """'6 rounds' for a paired comparison, '4+4' runs for two samples."""
    return f"{c.n_a} rounds" if c.paired else f"{c.n_a}+{c.n_b}"


def aa_band(valid: pd.DataFrame, column: str = "rps") -> tuple[str, float] | None:
    """(the control's target, the smallest ratio this setup resolves) from an A/A control
    in ``valid`` rows: the same target measured twice in every round under two names
    (measure.run(control=…)); None without one, or with fewer than two rounds of it."""
    copies = [t for t in valid["target"].unique() if is_aa_copy(str(t))]
    if not copies:
        return None
    original = original_of(copies[0])
    side_a = valid.loc[valid["target"] == original].dropna(subset=[column])
    side_b = valid.loc[valid["target"] == copies[0]].dropna(subset=[column])
    pairs = paired_values(side_a, side_b, column)
    if pairs is None or (pairs[[column + "_a", column + "_b"]] <= 0).any(axis=None):
        return None
    return original, resolvable_ratio(pairs[column + "_a"] / pairs[column + "_b"])


def within_band(ratio: float, band: float | None) -> bool:
    """A ratio no farther from 1 than the A/A control strays: not resolvable here."""
    if band is None or ratio != ratio:
        return False
    return max(ratio, 1 / ratio) <= band
