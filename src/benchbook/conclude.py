"""Written conclusions, generated from the statistics so they can never drift from them."""

import pandas as pd

from benchbook.calibration import CALIBRATION_EXPERIMENT
from benchbook.checks import FLAG_MEANINGS, NEAR_CEILING_HEADROOM
from benchbook.stats import ALPHA, compare, min_detectable_n
from benchbook.tables import flag_counts, valid_rows, with_derived

# Flags that say the number is suspect (short_run only says it is imprecise).
SUSPECT_FLAGS = (
    "errors", "timeouts", "non_2xx", "client_bound", "near_tool_ceiling", "littles_law",
    "bad_response", "server_died",
)  # fmt: skip


def _values(data: pd.DataFrame, target: str, column: str) -> pd.Series:
    """The valid runs' values of one target (an unknown target is an error)."""
    if not data["target"].eq(target).any():
        raise ValueError(f"no results for target {target!r}; have {sorted(set(data['target']))}")
    valid = valid_rows(data)
    return valid.loc[valid["target"] == target, column].dropna()


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


METRIC_NAMES = {
    "rps": "requests per second",
    "lat_mean_ms": "mean latency",
    "lat_p50_ms": "median latency",
    "lat_p99_ms": "p99 latency",
}


def suspect_flags(results: pd.DataFrame, target: str) -> str:
    """The flags that make ``target``'s numbers suspect, counted over its runs and
    explained ('' if none)."""
    data = with_derived(results)
    flags = data.loc[data["target"] == target, "flags"]
    kept = flags.map(lambda cell: ";".join(f for f in cell.split(";") if f in SUSPECT_FLAGS))
    counts = flag_counts(kept)
    if not counts:
        return ""
    meanings = "; ".join(
        f"{flag}: {FLAG_MEANINGS[flag]}" for flag in SUSPECT_FLAGS if flag in counts
    )
    return f"{counts} — {meanings}"


def compare_values(va: pd.Series, vb: pd.Series, a: str, b: str, column: str, unit: str) -> str:
    """One sentence: the ratio of medians of a over b with its CI, p-value and n, or
    'no significant difference'; and a warning when n is too small to tell."""
    c = compare(va, vb)
    what = METRIC_NAMES.get(column, column)
    n = f"n = {c.n_a} and {c.n_b}" if c.n_a != c.n_b else f"n = {c.n_a} each"
    ci = (
        f"95 % CI {c.ratio_low:.2f}–{c.ratio_high:.2f}×"
        if c.ratio_confidence
        else "too few runs for a 95 % CI"
    )
    medians = f"median {va.median():,.2f} vs {vb.median():,.2f} {unit}"
    if c.significant:
        sentence = (
            f"**{a}** had **{c.ratio:.2f}×** the {what} of **{b}** "
            f"({ci}; {medians}; Mann-Whitney {_p(c.p_value)}, {n})."
        )
    else:
        sentence = (
            f"**No significant difference** in {what} between **{a}** and **{b}** "
            f"(ratio {c.ratio:.2f}×, {ci}; {medians}; {_p(c.p_value)} ≥ {ALPHA}, {n})."
        )
        if min(c.n_a, c.n_b) < min_detectable_n():
            sentence += (
                f" With fewer than {min_detectable_n()} runs per side the test cannot reach "
                f"p < {ALPHA} whatever the data: run more repetitions."
            )
    return sentence


def compare_targets(
    results: pd.DataFrame, a: str, b: str, column: str = "rps", unit: str = "req/s"
) -> str:
    """compare_values for two targets' runs, plus a caution naming and explaining any
    flag that makes either side's numbers suspect."""
    data = with_derived(results)
    va, vb = _values(data, a, column), _values(data, b, column)
    for target, values in ((a, va), (b, vb)):
        if values.empty:
            flags = flag_counts(data.loc[data["target"] == target, "flags"])
            return (
                f"**{a}** and **{b}** cannot be ranked: no run of **{target}** measured the "
                f"server doing its job ({flags})."
            )
    sentence = compare_values(va, vb, a, b, column, unit)
    flagged = {target: suspect_flags(results, target) for target in (a, b)}
    if flagged[a] and flagged[a] == flagged[b]:
        return sentence + f" Caution, both sides' runs are flagged ({flagged[a]})."
    for target, flags in flagged.items():
        if flags:
            sentence += f" Caution, {target}'s runs are flagged ({flags})."
    return sentence


def validity_notes(results: pd.DataFrame) -> list[str]:
    """A sentence per flag present in the results, saying what it means, and one on how
    much CPU time the host's hypervisor took away during the runs."""
    data = with_derived(results)
    present = sorted({f for cell in data["flags"] for f in cell.split(";") if f})
    notes = []
    for flag in present:
        targets = sorted(set(data.loc[data["flags"].str.contains(flag, regex=False), "target"]))
        notes.append(f"`{flag}` ({FLAG_MEANINGS[flag]}) on {', '.join(targets)}.")
    if "incident" in data:
        notes += [f"What happened: {text}" for text in dict.fromkeys(data["incident"]) if text]
    steal = data["host_steal_pct"]
    notes.append(
        f"Host CPU steal during the runs: median {steal.median():.0f} %, maximum "
        f"{steal.max():.0f} % of the machine's CPU time went to other tenants of its host. "
        + (
            "Absolute numbers are depressed by about that much; ratios measured side by "
            "side, in interleaved runs, much less."
            if steal.max() >= 5
            else "Too little to matter."
        )
    )
    if not data["experiment"].eq(CALIBRATION_EXPERIMENT).all():  # they set the ceilings
        notes.append(headroom_note(data))
    return notes


def headroom_note(results: pd.DataFrame) -> str:
    """How close the runs came to their load tool's calibrated ceiling."""
    headroom = results["headroom"].dropna()
    if headroom.empty:
        return (
            "No load-tool calibration from this machine was available, so no run has a "
            "`headroom`: run `notebooks/00_load_generators.ipynb` first."
        )
    near = int((headroom >= NEAR_CEILING_HEADROOM).sum())
    return (
        f"Load-tool headroom: the runs reached a median {headroom.median():.0%} (maximum "
        f"{headroom.max():.0%}) of what their tool setting produced against the fastest "
        f"server; {near} of {len(headroom)} runs reached {NEAR_CEILING_HEADROOM:.0%} or more."
    )


def tool_limit_sentence(results: pd.DataFrame, target: str) -> str:
    """A sentence when most of ``target``'s runs measured the load tool rather than the
    server (client_bound or near_tool_ceiling), '' otherwise."""
    runs = with_derived(results).loc[lambda d: d["target"] == target]
    limited = runs["flags"].str.contains("client_bound|near_tool_ceiling")
    if limited.mean() < 0.5:
        return ""
    setting = ", ".join(dict.fromkeys(runs["tool_setting"]))
    headroom = runs["headroom"].median()
    reached = "" if pd.isna(headroom) else f" and reached {headroom:.0%} of its ceiling"
    return (
        f"For **{target}**, the load tool was the limit in {int(limited.sum())} of "
        f"{len(runs)} runs: {setting} used a median {runs['client_cpu_pct'].median():.0f} % "
        f"CPU{reached}, so the {runs['rps'].median():,.0f} req/s measure the tool, "
        "not the server."
    )


def ratio_by_group(gap: pd.DataFrame, a: str, b: str, article_ratio: float) -> str:
    """'a/b req/s by load: X 1.01× (~); Y 10.06× (a > b). The article's 1.29× …': one
    ratio per row of a comparison_table, beside the article's single figure."""
    ratios = "; ".join(
        f"{group} {row[f'{a}/{b}']:.2f}× ({row['verdict']})" for group, row in gap.iterrows()
    )
    return (
        f"{a}/{b} req/s by {gap.index.name}: {ratios}. The article's {article_ratio:.2f}× "
        "compares what its load tool could produce as much as what its servers could serve."
    )


def against_published(table: pd.DataFrame, metric: str, article_ratio: str) -> str:
    """'The article's Go/Python ratio was 4.91×; here: 12.9× (…), 7.3× (…).'

    ``table`` is published.published_vs_reproduced's output; its columns starting
    with 'here ' and containing ' / ' are our ratios.
    """
    row = table.loc[metric]
    ours = [
        f"{row[col]:.2f}× ({col.removeprefix('here ')})"
        for col in table.columns
        if col.startswith("here ") and " / " in col
    ]
    return (
        f"For {metric}, the article's {article_ratio.removeprefix('article ')} ratio was "
        f"{row[article_ratio]:.2f}×; measured here: {'; '.join(ours)}."
    )
