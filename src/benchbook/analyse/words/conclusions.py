"""Written conclusions, generated from the statistics so they can never drift from them.

Sentences say the answer first, in words a student reads without a glossary ("served 14×
the requests per second", "p99 latency 33× lower"), every ratio with its interval
(stats.ESTIMATOR) and the level it reaches, its runs and the flags that change its meaning.
"""

import math

import pandas as pd

from benchbook.analyse.claims.published import OF_MEDIANS
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import comparison, count_text, needed, runs_text, too_few
from benchbook.analyse.numbers.stats import ALPHA, ESTIMATOR, PAIRED_ESTIMATOR, Comparison
from benchbook.analyse.rows.counted import (
    counted_rows,
    flag_counts,
    limit_counts,
    suspect_flags,
    valid_rows,
    with_derived,
)
from benchbook.analyse.rows.names import named, reader_name
from benchbook.analyse.words.flags import FLAG_MEANINGS, Tallies, caution
from benchbook.analyse.words.headroom import headroom_note
from benchbook.analyse.words.lost_records import incident_text
from benchbook.runs.calibration import CALIBRATION_EXPERIMENT

# Where the CPU of the side that served was this high, it was near its own limit too.
SERVER_BUSY_CPU_PCT = 80.0


class Metric:
    """How a measured column reads in a sentence (``scale`` converts the column's unit
    to the one printed: ns/op as µs)."""

    def __init__(self, name: str, unit: str, higher_is_better: bool, scale: float = 1.0):
        self.name, self.unit, self.higher_is_better = name, unit, higher_is_better
        self.scale = scale

    def value(self, x: float) -> str:
        if self.unit in ("req/s", "requests"):
            return fmt.count(x)
        return fmt.milliseconds(x * self.scale)


METRICS = {
    "rps": Metric("requests per second", "req/s", True),
    "lat_mean_ms": Metric("mean latency", "ms", False),
    "lat_p50_ms": Metric("median latency", "ms", False),
    "lat_p90_ms": Metric("p90 latency", "ms", False),
    "lat_p99_ms": Metric("p99 latency", "ms", False),
    "ns_per_op": Metric("time per call", "µs", False, scale=1e-3),
    "bytes_per_op": Metric("memory allocated per call", "B", False),
    "allocs_per_op": Metric("allocations per call", "allocations", False),
}


def metric(column: str, unit: str = "") -> Metric:
    return METRICS.get(column) or Metric(column, unit, not column.startswith("lat_"))


def _values(data: pd.DataFrame, target: str, column: str) -> pd.Series:
    """The values of one target's runs that count (rows.counted.counted_rows; an unknown target
    is an error)."""
    if not data["target"].eq(target).any():
        raise ValueError(f"no results for target {target!r}; have {sorted(set(data['target']))}")
    counted = counted_rows(data, column)
    return counted.loc[counted["target"] == target, column].dropna()


def verdict(c: Comparison, a: str, b: str, column: str, unit: str = "", brief: bool = False) -> str:
    """One sentence: the answer, its interval, the medians, p and the runs (``brief``:
    the answer and its interval only, for summaries)."""
    m = metric(column, unit)
    medians = f"medians {m.value(c.median_a)} vs {m.value(c.median_b)} {m.unit}"
    if c.median_b and _apart(c.ratio, c.median_a / c.median_b):
        # the estimate is the typical ratio within a round (paired), or of a run of one
        # side to a run of the other, not the medians' ratio
        typical = ("that of the typical round, each round's two runs taken side by side"
                   if c.paired else "the median ratio of a run of one side to a run of the "
                   "other")  # fmt: skip
        medians += (
            f" (their ratio {_directed(c.median_a / c.median_b, c, m)}; the ratio above is "
            f"{typical})"
        )
    evidence = f"{medians}; {fmt.p_value(c.p_value)}; {runs_text(c)}"
    interval = fmt.ci(c.ratio_low, c.ratio_high, c.ratio_confidence)
    if not c.significant:
        if too_few(c):
            # not "no difference": with these few runs none could have been shown
            unit_ = "rounds" if c.paired else "a side"
            # the interval alone would tell, at a level a reader can lean on (not 60 %, 1+4)
            away = (c.ratio_low > 1 or c.ratio_high < 1) and c.ratio_confidence >= 0.9
            sentence = (
                f"**Too few runs to tell** **{a}** from **{b}** in {m.name} by a test "
                f"({count_text(c)}; p < {ALPHA} needs {needed(c)} {unit_}): "
                f"ratio {fmt.ratio(c.ratio)} ({interval}"
                + (", an interval that does not hold 1: the difference is likely" if away else "")
                + ")"
            )
            tail = " Run more repetitions."
        else:
            sentence = (
                f"**No significant difference** in {m.name} between **{a}** and **{b}**: "
                f"ratio {fmt.ratio(c.ratio)} ({interval})"
            )
            tail = ""
        if brief:
            return sentence + "."
        return f"{sentence}, {evidence}.{tail}"
    lead = ranking(c.ratio, a, b, column, unit)
    # A rate below 1 reads as a share ("19 % of"), and so do its figure and interval; a
    # time below 1 as "1.95× lower", and so does its interval: one direction per sentence.
    below = c.ratio < 1
    if below and c.ratio_confidence:
        level = fmt.level(c.ratio_confidence)
        interval = (
            f"{level} {fmt.share_interval(c.ratio_low, c.ratio_high)}"
            if m.higher_is_better
            else f"{level} {fmt.interval(1 / c.ratio_high, 1 / c.ratio_low)} lower"
        )
    # the lead gives a time's "1.95× lower" already; a share and a ratio above 1 repeat it
    figure = ("" if not m.higher_is_better else f"{fmt.share(c.ratio)}, ") if below else (
        f"ratio {fmt.ratio(c.ratio)}, ")  # fmt: skip
    said = f"{lead} ({figure}{interval}"
    return f"{said})." if brief else f"{said}; {evidence})."


# A paired estimate this far from the ratio of the medians is said to differ from it.
MEDIANS_APART = 1.05


def _directed(value: float, c: Comparison, m: Metric) -> str:
    """A ratio the way its sentence's lead words c's: a share or 'N× lower' below 1."""
    if not c.significant or c.ratio >= 1:
        return fmt.ratio(value)
    return fmt.share(value) if m.higher_is_better else f"{fmt.ratio(1 / value)} lower"


def _apart(estimate: float, medians_ratio: float) -> bool:
    if estimate <= 0 or medians_ratio <= 0:
        return False
    return abs(math.log(estimate / medians_ratio)) > math.log(MEDIANS_APART)


def ranking(ratio: float, a: str, b: str, column: str, unit: str = "") -> str:
    """'**a** served **14× the requests per second** of **b**': a ratio below 1 is written
    as a share ('19 % of'), a lower latency as '29× lower' (a reader compares times that
    way)."""
    m = metric(column, unit)
    below = ratio < 1
    if m.higher_is_better:
        size = f"{fmt.share(ratio)} of" if below else fmt.ratio(ratio)
        return f"**{a}** served **{size} the {m.name}** of **{b}**"
    direction = "lower" if below else "higher"
    times = fmt.ratio(1 / ratio if below else ratio)  # unrounded: 1/0.001724 is 580×, not 588×
    return f"**{a}**'s {m.name} was **{times} {direction}** than **{b}**'s"


def compared(
    c: Comparison, names: tuple[str, str], tallies: Tallies, column: str, unit: str = ""
) -> str:
    """The verdict on two targets' counted runs (``tallies``' keys, in order), with a
    caution naming the flags that change its meaning."""
    sentence = verdict(c, *names, column, unit)
    note = caution(tallies, dict(zip(tallies, names, strict=True)))
    return f"{sentence} {note}" if note else sentence


def compare_targets(
    results: pd.DataFrame,
    a: str,
    b: str,
    column: str = "rps",
    unit: str = "req/s",
    names: tuple[str, str] | None = None,
) -> str:
    """The verdict on two targets' valid runs, with a caution naming the flags that
    change its meaning; or why they cannot be ranked. ``names``: how the sentence calls
    a and b (default: the names a reader knows, rows.names)."""
    data = with_derived(results)
    name_a, name_b = names or (reader_name(data, a), reader_name(data, b))
    c = comparison(counted_rows(data, column), a, b, column)
    if c is None:
        return unranked(data, (a, b), (name_a, name_b), column)
    tallies = {t: suspect_flags(results, t) for t in (a, b)}
    return compared(c, (name_a, name_b), tallies, column, unit)


def unranked(
    data: pd.DataFrame, targets: tuple[str, str], names: tuple[str, str], column: str
) -> str:
    """Why two targets cannot be ranked: a side with no run that counts (an unknown
    target is an error)."""
    empty = next(i for i, t in enumerate(targets) if _values(data, t, column).empty)
    runs = data.loc[data["target"] == targets[empty]]
    invalid = valid_rows(runs).empty  # else valid, but what set their rate counts not
    why = flag_counts(runs["flags"]) if invalid else f"set by {limit_counts(runs)}"
    return (
        f"**{names[0]}** and **{names[1]}** cannot be ranked: no run of "
        f"**{names[empty]}** measured the server doing its job ({why})."
    )


def group_agreement(table: pd.DataFrame, a: str, b: str) -> str:
    """Whether the groups of a comparison_table agree: 'sc/cc per id, this session's runs:
    9: 1.2× (p = 0.020); 5: 1.1× (p = 0.310); … — only 9 significant on its own.'"""
    parts, significant = [], []
    for group, row in table.iterrows():
        parts.append(f"{group}: {fmt.ratio(row[f'{a}/{b}'])} ({fmt.p_value(row['p'])})")
        if row["verdict"] not in ("no significant difference", "too few runs to tell"):
            significant.append(str(group))
    if len(significant) == len(table):
        agreement = "each is significant on its own"
    elif significant:
        agreement = f"only {', '.join(significant)} significant on its own"
    else:
        agreement = "none is significant on its own"
    return f"{a}/{b} per {table.index.name}, this session's runs: {'; '.join(parts)} — {agreement}."


def validity_notes(results: pd.DataFrame, ceilings_note: bool = True) -> list[str]:
    """One sentence per flag present (what it means, on which targets, in how many
    runs), what happened in incidents, and the host's CPU steal. ``results`` must hold
    every run the notebook reports."""
    data = with_derived(results)
    present = sorted({f for cell in data["flags"] for f in cell.split(";") if f})
    notes = []
    for flag in present:
        on = data["flags"].str.split(";").map(lambda flags, f=flag: f in flags)
        per_target = data[on].groupby("target", sort=False).size()
        totals = data.groupby("target", sort=False).size()
        where = ", ".join(
            f"{reader_name(data, t)} ({per_target[t]}/{totals[t]})" for t in per_target.index
        )
        notes.append(f"`{flag}` — {FLAG_MEANINGS[flag]}. Runs: {where}.")
    if "incident" in data:
        notes += incident_notes(data)
    steal = data["host_steal_pct"]
    notes.append(
        f"Host CPU steal (time this virtual machine's host gave to others): median "
        f"{steal.median():.0f} %, at most {steal.max():.0f} % of the CPU time during the runs. "
        + (
            "Absolute numbers are lower by about that much; ratios of runs taken side by "
            "side, interleaved, much less."
            if steal.max() >= 5
            else "Too little to matter."
        )
    )
    if ceilings_note and not data["experiment"].eq(CALIBRATION_EXPERIMENT).all():
        notes.append(headroom_note(data))
    return notes


def incident_notes(data: pd.DataFrame) -> list[str]:
    """What happened in incidents: each target's first, then how many more it had (every
    one is in its run's results.csv), so one failure repeated in four runs reads once."""
    happened = data[data["incident"].fillna("").astype(bool)]
    notes = []
    for target, rows in happened.groupby("target", sort=False):
        told = dict.fromkeys(incident_text(row) for _, row in rows.iterrows())
        # the harness tells an incident by the run's target label; a reader knows its name
        name = reader_name(data, str(target))
        texts = [name + text[len(target) :] if text.startswith(target) else text for text in told]
        others = len(rows) - 1
        more = f" (and in {others} more of its runs, each told in that run's results.csv)"
        more = more if others else ""
        notes.append(f"What happened: {texts[0]}{more}.")
    return notes


def tool_limit_sentence(results: pd.DataFrame, target: str) -> str:
    """What limited ``target``'s throughput when most of its runs hit the load tool's
    limit (client_bound or near_tool_ceiling); '' otherwise. When the server was busy
    too, the number is a lower bound for the server, not the tool's alone."""
    runs = with_derived(results).loc[lambda d: d["target"] == target]
    limited = runs["flags"].str.contains("client_bound|near_tool_ceiling")
    if limited.mean() < 0.5:
        return ""
    setting = ", ".join(dict.fromkeys(runs["tool_setting"]))
    headroom = runs["headroom"].median()
    reached = "" if pd.isna(headroom) else f" and reached {fmt.percent(headroom)} of its ceiling"
    server_cpu = runs["server_cpu_pct"].median()
    rps = fmt.count(runs["rps"].median())
    tool = (
        f"For **{reader_name(results, target)}**, the load tool was at its limit in "
        f"{int(limited.sum())} of {len(runs)} runs ({setting} used a median "
        f"{runs['client_cpu_pct'].median():.0f} % CPU{reached})"
    )
    if server_cpu >= SERVER_BUSY_CPU_PCT:
        return (
            f"{tool}, but the server also used {server_cpu:.0f} % of its CPU: both were near "
            f"their limit, so {rps} req/s is a lower bound of what the server can serve."
        )
    return (
        f"{tool} while the server used only {server_cpu:.0f} % of its CPU: the {rps} req/s "
        "measure the load tool, not the server."
    )


def ratio_by_group(gap: pd.DataFrame, a: str, b: str, article_ratio: float) -> str:
    """'a/b req/s by load: X 0.99× (no significant difference); Y 11× (a higher). The
    article's 1.3× …': one ratio per row of a comparison_table, beside the article's."""
    name = {a: named(a), b: named(b)}

    def verdict(row: pd.Series) -> str:  # the table's 'go-hello higher', as a reader names it
        side, _, direction = str(row["verdict"]).rpartition(" ")
        return f"{name[side]} {direction}" if side in name else str(row["verdict"])

    ratios = "; ".join(
        f"{group} {fmt.ratio(row[f'{a}/{b}'])} ({verdict(row)})" for group, row in gap.iterrows()
    )
    return (
        f"{name[a]} / {name[b]} req/s by {gap.index.name}: {ratios}. The article's "
        f"{fmt.ratio(article_ratio)} "
        "compares what its load tool could produce as much as what its servers could serve."
    )


def against_published(table: pd.DataFrame, metric_label: str, article_ratio: str) -> str:
    """'For requests per second, the article's go/python ratio was 4.9×; measured here:
    14× (Go net/http / FastAPI (asyncio + h11)), …'.

    ``table`` is published.published_vs_reproduced's output; its columns starting
    with 'here ' and containing ' / ' are our ratios (of medians, as the article's are).
    """
    row = table.loc[metric_label]
    ours = [
        f"{fmt.ratio(row[col])} ({' / '.join(map(named, sides.split(' / ')))})"
        for col in table.columns
        if col.startswith("here ") and " / " in (sides := col[5:].removesuffix(OF_MEDIANS))
    ]
    return (
        f"For {metric_label}, the article's {article_ratio.removeprefix('article ')} ratio was "
        f"{fmt.ratio(row[article_ratio])}; the same ratio of medians measured here: "
        f"{'; '.join(ours)}."
    )


def method_note() -> str:
    """How every comparison in the report is computed, once per notebook (one whose rounds
    keep one process adds words.setup.one_process_rounds)."""
    return (
        "How runs are measured: in rounds — in each round every target is measured once, in "
        "a random order, and every server is started afresh and warmed up first unless a "
        "notebook says otherwise beside this note — so repetitions sample what changes "
        "between runs, not only the noise inside one process. "
        f"How comparisons are computed: where A and B were measured side by side in six "
        f"rounds or more (a side's several rows in one round, e.g. pooled paths, as one: "
        f"their geometric mean), {PAIRED_ESTIMATOR}; otherwise {ESTIMATOR}. "
        f"'No significant difference' means p ≥ {ALPHA}. Intervals are 95 % where the "
        "number of runs allows it; otherwise the level they reach is printed. Where an A/A "
        "control was measured (one server as two targets in the same rounds), a ratio no "
        "farther from 1 than the control strays reads 'not resolvable on this machine'."
    )


def bullets(lines: list[str]) -> str:
    """Markdown bullets, skipping empty lines."""
    return "\n".join(f"- {line}" for line in lines if line)
