"""Results tables: one row per target, medians with their CI, every flag shown, and
every number formatted for reading (formatting) by the label of its row or column."""

import re
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from numbers import Number

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import comparison, count_text, too_few
from benchbook.analyse.numbers.stats import Comparison, summarize
from benchbook.analyse.rows.counted import (
    RATE_COLUMNS,
    counted_rows,
    flag_counts,
    limit_counts,
    valid_rows,
    with_derived,
)
from benchbook.analyse.rows.limits import subject
from benchbook.analyse.rows.names import distinct_names, reader_name, renamed
from benchbook.runs.limits import SERVER_SET, Limit

MEDIAN_COLUMNS = {
    "lat_mean_ms": "lat mean ms",
    "lat_p50_ms": "p50 ms",
    "lat_p99_ms": "p99 ms",
    "lat_max_ms": "max ms",
    "server_cpu_pct": "server CPU %",
    # its services' (Redis), where it has any: what set its rate counts their CPU with its own
    "service_cpu_pct": "service CPU %",
    "server_rss_mb": "server RSS MB",
    "client_cpu_pct": "client CPU %",
    "headroom_pct": "% of tool ceiling",
    "host_steal_pct": "host CPU steal %",
    "foreign_cpu_pct": "other work CPU %",
}
TOTAL_COLUMNS = {"err_timeout": "timeouts", "errors": "errors", "non_2xx": "non-2xx"}


def _not_ranked(
    group: pd.DataFrame, counted: pd.DataFrame, split: str, sides: Sequence[str], column: str
) -> str:
    """Why a side cannot be ranked: 'no valid runs of b' (every run invalid), 'no run of a
    counts' (what set its rates: a busy machine, nothing at its limit)."""
    valid = valid_rows(group)
    reasons = []
    for side in sides:
        if valid.loc[valid[split] == side, column].dropna().empty:
            reasons.append(f"no valid runs of {reader_name(group, side)}")
        elif counted.loc[counted[split] == side, column].dropna().empty:
            reasons.append(f"no run of {reader_name(group, side)} counts")
    return "; ".join(reasons)


def _verdict(c: Comparison | None, a: str, missing: str, apart: str, sides_are: str) -> str:
    """A comparison_table row's verdict in words."""
    if c is None:
        return f"not ranked: {missing}"
    if apart:
        return f"not a comparison of {sides_are}: {apart}"
    if too_few(c):
        return "too few runs to tell"
    if not c.significant:
        return "no significant difference"
    return f"{a} higher" if c.ratio > 1 else f"{a} lower"


def _not_set_by(
    valid: pd.DataFrame, split: str, sides: Sequence[str], what: str, column: str
) -> str:
    """'the users' wait set both rates' where the sides' rates of ``column`` (most of
    each side's runs) were not both set by ``what`` ("servers": their CPU or the requests
    in flight they held; "load tools": the tools); '' where they were, or it is no rate."""
    if column not in RATE_COLUMNS:
        return ""
    wanted = SERVER_SET if what == "servers" else (Limit.LOAD_TOOL,)
    found, runs = {}, {}
    for side in sides:
        limits = valid.loc[valid[split] == side, "limit"] if "limit" in valid else pd.Series()
        if limits.empty:
            return ""
        counts = limits.value_counts()
        found[side], runs[side] = counts.index[0], (int(counts.iloc[0]), len(limits))
    if all(limit in wanted for limit in found.values()):
        return ""

    def share(side: str) -> str:  # a limit that set only some runs says in how many
        n, of = runs[side]
        return "" if n == of else f" in {n} of {of} runs"

    if len(set(found.values())) == 1 and all(not share(side) for side in sides):
        return f"{subject(next(iter(found.values())))} set both rates"
    return "; ".join(
        f"{subject(limit)} set {reader_name(valid, side)}'s{share(side)}"
        for side, limit in found.items()
    )


def in_reading_order(groups: Iterable, first_level: pd.Series) -> list:
    """Groups in the order a reader scans a table: the first key as the runs first met it
    (the notebook's order of targets, not the rounds' random one), the others ascending,
    numbers as numbers (10 before 200)."""

    def key(item: tuple) -> tuple:
        keys = item[0] if isinstance(item[0], tuple) else (item[0],)
        rest = [(0, k, "") if isinstance(k, Number) else (1, 0, str(k)) for k in keys[1:]]
        return (order[keys[0]], *rest)

    order = {value: position for position, value in enumerate(dict.fromkeys(first_level))}
    return sorted(groups, key=key)


def as_label(key: object) -> object:
    """A group key as a row label: 4.0 → 4 (a column with a missing value reads back as
    floats, and '4.000000 workers' is not what was set)."""
    if isinstance(key, float | np.floating) and float(key).is_integer():
        return int(key)
    return key


def summary_table(results: pd.DataFrame, by: Sequence[str] = ("target",)) -> pd.DataFrame:
    """Per target (or per ``by``, e.g. target and connections in a sweep): the runs that
    count (runs.limits: a busy machine's never, for req/s also not those nothing measured
    limited), median req/s with its CI over them (and the level the CI reaches with that
    many runs), latency and resource medians, error totals, what set the valid runs' rates
    and the flags of every run (the runs not counted are there, not in the medians): the
    figures the comparisons of the same rows use."""
    rows = []
    data = with_derived(results)
    for keys, every in in_reading_order(data.groupby(list(by), sort=False), data[by[0]]):
        valid = valid_rows(every)
        group = counted_rows(every, "lat_p50_ms")  # a busy machine's runs measure nothing
        rps = summarize(counted_rows(every, "rps")["rps"])
        row = {
            **{column: as_label(key) for column, key in zip(by, keys, strict=True)},
            "runs": rps.n,
            "req/s": rps.median,
            # one run has no interval: its 'range' would read as one
            "req/s CI": f"{fmt.count(rps.low)}–{fmt.count(rps.high)}" if rps.n > 1 else "–",
            "CI level": fmt.level(rps.confidence).removesuffix(" CI") if rps.n > 1 else "–",
        }
        row |= {label: group[col].median() for col, label in MEDIAN_COLUMNS.items() if col in group}
        row |= {label: int(valid[col].sum()) for col, label in TOTAL_COLUMNS.items()}
        row["set by"] = limit_counts(valid)
        row["flags"] = flag_counts(every["flags"])
        rows.append(row)
    return pd.DataFrame(rows).set_index(list(by))


RATIO = re.compile(r"[\w+-]\s?/\s?[\w+-]")
RATES = ("req/s", "bytes/s", "ns/op", "b/op", "allocs/op")


def number_kind(label: object) -> str | None:
    """What the numbers under a row or column label are, from the label alone: 'p',
    'ratio' ('go/python', 'cc/sc', 'ratio'), 'ms', 'pct', 'count' — or None."""
    text = str(label).lower()
    if text == "p":
        return "p"
    rate = any(unit in text for unit in RATES)
    if not rate and (RATIO.search(text) or "ratio" in text or "×" in text):
        return "ratio"
    if text in ("ci low", "ci high"):
        return "ratio"
    words = set(re.findall(r"[a-z%]+", text))
    if "ms" in words:
        return "ms"
    if "%" in text or "mb" in words:
        return "pct"
    if rate or words & {"requests", "runs", "timeouts", "errors", "count"}:
        return "count"
    return None


NAME_AXES = ("target", "server", "tool_setting")

WRITERS = {
    "p": fmt.p_number,
    "ratio": lambda v: fmt.significant(v, fmt.ratio_digits(v)),  # as sentences print it
    "ms": fmt.milliseconds,
    "pct": lambda v: f"{v:,.1f}",
    "count": lambda v: fmt.count(v) if abs(v) >= 100 or v == int(v) else fmt.significant(v),
}


def formatted(table: pd.DataFrame) -> pd.DataFrame:
    """Every number as text, written by what its labels say it is: a ratio or p-value
    wherever either label says so, otherwise by its column — or, for a column with no
    opinion (a target's name), by its row (metrics as rows, as the notebooks transpose
    them). Text cells stay as they are."""

    def cell(value: object, row: object, column: object) -> str:
        if value is None or isinstance(value, float | np.floating) and np.isnan(value):
            return "–"
        if isinstance(value, bool | str) or not isinstance(value, int | float | np.number):
            return str(value)
        kinds = (
            None if columns_are_names else number_kind(column),
            None if rows_are_names else number_kind(row),
        )
        kind = next((k for k in ("p", "ratio") if k in kinds), None)
        return WRITERS[kind or kinds[0] or kinds[1] or "count"](float(value))

    # Targets' names ('go-fanout /cc/9', 'go-iodelay (A/A copy)') hold slashes that read
    # as ratios: an axis of names says nothing about what its numbers are.
    columns_are_names = any(name in NAME_AXES for name in table.columns.names)
    rows_are_names = any(name in NAME_AXES for name in table.index.names)
    out = table.astype(object).copy()
    for column in table.columns:
        for row in table.index:
            out.loc[row, column] = cell(table.loc[row, column], row, column)
    return out


def styled(table: pd.DataFrame, rows: pd.DataFrame | None = None) -> Styler:
    """The table with its numbers formatted for reading (see formatted), its labels in
    words (see in_words) and its servers by the names a reader knows (see by_name; pass
    the ``rows`` it was made from, so a server that waits says so)."""
    return by_name(in_words(formatted(level_in_header(table))), rows).style


def by_name(table: pd.DataFrame, rows: pd.DataFrame | None = None) -> pd.DataFrame:
    """The table with every target and server its labels and text name by the name a
    reader knows (rows.names): its axes of names ('go-hello', 'go-fanout /cc/9') and, in
    any label or cell, the targets and servers of ``rows`` ('here go-hello / python-hello'
    → 'here Go net/http / FastAPI (uvicorn's defaults)'). After formatting: a name's
    slash ('net/http') would read as a ratio."""
    labels = [
        value
        for axis in (table.index, table.columns)
        for level, name in enumerate(axis.names)
        if words(name) in [words(axis_name) for axis_name in NAME_AXES]  # in words already
        for value in axis.get_level_values(level)
    ]
    if rows is not None:
        labels += [*rows.get("target", ()), *rows.get("server", ())]
    names = distinct_names(labels, rows)
    if not names:
        return table
    name = partial(renamed, names=names)
    return table.rename(index=name, columns=name).map(name)


def level_in_header(table: pd.DataFrame) -> pd.DataFrame:
    """A 'CI level' column that holds one level for every row goes into its interval's
    header ('req/s 87.5 % CI'): the level is printed, in a column less."""
    if not {"req/s CI", "CI level"} <= set(table.columns):
        return table
    levels = set(table["CI level"]) - {"–"}
    if len(levels) != 1:
        return table
    (level,) = levels
    return table.drop(columns="CI level").rename(columns={"req/s CI": f"req/s {level} CI"})


def words(label: object) -> object:
    """A label as a reader reads it: 'store_commits_per_request' → 'store commits per
    request'."""
    return label.replace("_", " ") if isinstance(label, str) else label


def in_words(table: pd.DataFrame) -> pd.DataFrame:
    """The table with every column label and axis name as a reader reads it: the code's
    'store_commits_per_request' as 'store commits per request'."""

    shown = table.rename(columns=words)
    shown.columns.names = [words(name) for name in shown.columns.names]
    shown.index.names = [words(name) for name in shown.index.names]
    return shown


def efficiency_table(results: pd.DataFrame, bound_rps: float) -> pd.DataFrame:
    """Median req/s of each target against the Little's-law ceiling of the load.

    With c connections each waiting at least ``delay`` per request, no server can
    exceed c / delay requests per second; the share reached says how much of the time
    went to something other than the simulated I/O (CPU, queueing, the load tool).
    """
    data = with_derived(results)
    medians = data.groupby("target", sort=False).agg(
        rps=("rps", "median"), server_cpu=("server_cpu_pct", "median"), flags=("flags", flag_counts)
    )
    return pd.DataFrame(
        {
            "req/s": medians["rps"],
            "Little's-law ceiling req/s": bound_rps,
            "share of ceiling %": 100 * medians["rps"] / bound_rps,
            "server CPU %": medians["server_cpu"],
            "flags": medians["flags"],
        }
    )


def comparison_table(
    results: pd.DataFrame,
    split: str,
    a: str,
    b: str,
    by: Sequence[str] = (),
    column: str = "rps",
    sort: bool = True,
    sides_are: str = "servers",
) -> pd.DataFrame:
    """Compare rows whose ``split`` column is ``a`` with those where it is ``b``, within
    each group of ``by`` (all rows pooled when ``by`` is empty): medians, the ratio a/b
    with its own CI and the level it reaches (stats.ESTIMATOR), p from the test the rows
    allow (pairing.comparison: signed-rank over paired rounds, else Mann-Whitney), ``n``
    saying which ('6 rounds' or '4+4'), the verdict in words and what set each side's
    rates (runs.limits): a ratio of rates that ``sides_are`` ("servers", or "load tools")
    did not both set is no verdict on them. Only runs that count (counted_rows) are
    compared. Groups come in sorted order, or in order of appearance with ``sort=False``."""
    rows = []
    groups = results.groupby(list(by), sort=sort) if by else [((), results)]
    for keys, group in groups:
        valid = counted_rows(group, column)
        va = valid.loc[valid[split] == a, column].dropna()
        vb = valid.loc[valid[split] == b, column].dropna()
        c = comparison(valid, a, b, column, split)
        apart = _not_set_by(valid_rows(group), split, (a, b), sides_are, column)
        verdict = _verdict(c, a, _not_ranked(group, valid, split, (a, b), column), apart, sides_are)
        rows.append(
            {
                **{
                    column: as_label(key)
                    for column, key in zip(
                        by, keys if isinstance(keys, tuple) else (keys,), strict=True
                    )
                },
                f"{a} median": va.median(),
                f"{b} median": vb.median(),
                f"{a}/{b}": c.ratio if c else np.nan,
                "CI low": c.ratio_low if c else np.nan,
                "CI high": c.ratio_high if c else np.nan,
                "CI level": fmt.level(c.ratio_confidence).removesuffix(" CI") if c else "–",
                "p": c.p_value if c else np.nan,
                # '6 rounds' (paired: a signed-rank test) or '4+4' (Mann-Whitney): the
                # column says which test gave p, without a column of its own.
                "n": count_text(c) if c else f"{len(va)}+{len(vb)}",
                "verdict": verdict,
                "set by": "; ".join(
                    f"{side} {limit_counts(valid_rows(group[group[split] == side]))}"
                    for side in (a, b)
                ),
                "flags": flag_counts(group.loc[group[split].isin([a, b]), "flags"]),
            }
        )
    table = pd.DataFrame(rows)
    return table.set_index(list(by)) if by else table.set_axis(["pooled"])


def grid_table(
    results: pd.DataFrame, rows: str, columns: Sequence[str], value: str
) -> pd.DataFrame:
    """Median of ``value`` per ``rows`` × ``columns`` cell (valid runs), with its 95 % CI
    as text, or the level its runs reach when lower ('424 (384–488, 87.5 % CI)'): e.g.
    operations × (backend, transport) — notebook 05's 2 × 2 per operation."""
    table = {}
    for keys, group in valid_rows(results).groupby([rows, *columns], sort=False):
        s = summarize(group[value])
        label = " ".join(str(k) for k in keys[1:])
        below = "" if s.confidence >= fmt.TARGET_LEVEL else f", {fmt.level(s.confidence)}"
        table.setdefault(label, {})[keys[0]] = (
            f"{fmt.significant(s.median, 3)} ({fmt.significant(s.low, 3)}–"
            f"{fmt.significant(s.high, 3)}{below})"
        )
    return pd.DataFrame(table)


def of_tool(tool: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A headline's ``select``: the rows ``tool`` measured, so a run that compared two
    load tools gives each its own rounds (in every stored session alike)."""
    return lambda rows: rows[rows["tool"] == tool]
