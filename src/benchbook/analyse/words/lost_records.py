"""What a write run lost: every record the server confirmed, by the counts the harness
took after it (measure.data_loss) — duplicates counted exactly, wrong read-backs scaled
from their sample to the whole run with the sample's binomial uncertainty, and the store's
own count beside them."""

import math
import re

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import share_interval
from benchbook.analyse.rows.names import reader_name
from benchbook.runs.sampling import RESOLVE_AT_MOST


def runs_count(n: int) -> str:
    """'1 run', '4 runs'."""
    return f"{n} run{'s' if n != 1 else ''}"


def reused_ids(created: int, distinct: int) -> str:
    """What a run with fewer distinct ids than confirmed records lost, in words that say
    how often an id was reused (2,410 records under 38 ids is about 63 each, not 'twice')."""
    return (
        f"{fmt.count(created)} records confirmed under only {fmt.count(distinct)} distinct "
        f"ids (about {fmt.significant(created / distinct)} records an id): "
        f"{fmt.count(created - distinct)} were overwritten by a later record given the same id"
    )


def _lost_estimate(runs: pd.DataFrame) -> dict[str, float | int | bool]:
    """Records lost in a target's write runs, estimated run by run and summed.

    Duplicates are counted exactly (created − distinct_ids). The records with an id of
    their own were read back in full when there were at most runs.sampling.RESOLVE_AT_MOST of
    them, otherwise as a random sample of that many; a sample's wrong share is scaled to
    its own run's records with an id of their own, with a Clopper–Pearson 95 % interval
    (binomial, so a little wider than sampling without replacement needs). The lower end
    is never below the wrong records actually found, the upper end never above the
    records not read back right. Summed over runs the interval's half-widths add
    linearly while the runs' errors add in quadrature, so the sum covers at least 95 %
    (exactly when one run's sample dominates)."""
    duplicates = wrong = checked = own = 0
    estimate = low = high = 0.0
    sampled_runs = 0
    for run in runs.itertuples(index=False):
        created, distinct = int(run.created), int(run.distinct_ids)
        n, w = int(run.resolved_checked), int(run.resolved_wrong)
        duplicates += created - distinct
        if created == distinct:
            run_own = distinct  # every id handed out once
        elif n < RESOLVE_AT_MOST:
            run_own = n  # fewer than the cap: all of them were read back
        else:
            # Not exact from the columns: assumes each id handed out more than once was
            # handed out twice (distinct − (created − distinct) ids of their own); an id
            # handed out three times or more makes this a lower bound.
            run_own = max(2 * distinct - created, n)
        checked, wrong, own = checked + n, wrong + w, own + run_own
        if n >= run_own or n == 0:  # all read back (none: nothing to scale from)
            estimate, low, high = estimate + w, low + w, high + w
            continue
        sampled_runs += 1
        share_low, share_high = share_interval(w, n)
        estimate += run_own * w / n
        low += max(w, run_own * share_low)
        high += min(run_own - (n - w), run_own * share_high)
    return {
        "duplicates": duplicates,
        "wrong": wrong,
        "checked": checked,
        "own": own,
        "sampled_runs": sampled_runs,
        "lost": duplicates + estimate,
        "low": duplicates + math.floor(low),
        "high": duplicates + math.ceil(high),
        "exact": sampled_runs == 0,
    }


def _lost_with_range(e: dict, how: str) -> str:
    """'12 lost (how)' where every record was read back; where a sample was, its estimate
    with the 95 % interval, or, when the estimate is no more than the reads found, what
    they found and the interval's upper end alone (its lower end is no estimate)."""
    if e["exact"]:
        return f"{fmt.count(e['lost'])} lost ({how})"
    if _found_only(e):
        return (
            f"at least {fmt.count(e['low'])} lost ({how}), at most about "
            f"{fmt.count(e['high'])} in all ({_level(e)}{_summed(e)})"
        )
    return (
        f"about {fmt.count(e['lost'])} lost (95 % CI {fmt.count(e['low'])}–"
        f"{fmt.count(e['high'])}{_summed(e)}: {how})"
    )


def _found_only(e: dict) -> bool:
    """The estimate is no more than the reads found: only the interval's upper end says
    more."""
    return e["lost"] == e["low"]


def _level(e: dict) -> str:
    """A bound's level: summed over runs, 95 % bounds cover at least 95 % (_lost_estimate)."""
    return "≥ 95 %" if e["sampled_runs"] > 1 else "95 %"


def _summed(e: dict) -> str:
    """How a sampled bound over several runs is made: each run's from its own sample."""
    if e["sampled_runs"] < 2:
        return ""
    return f"; {e['sampled_runs']} runs' sample bounds summed"


def _store_count(runs: pd.DataFrame) -> tuple[str, int]:
    """The store's own count against the confirmed ids, run by run (a run short and
    another over do not cancel), and how many records it is short in all."""
    counted = runs.dropna(subset=["store_new"])
    gap = counted["store_new"] - counted["distinct_ids"]
    short, more = int(-gap[gap < 0].sum()), int(gap[gap > 0].sum())
    where = f"in the {runs_count(len(counted))} with a count, " if len(counted) < len(runs) else ""
    if counted.empty:
        return "the store's own count is not available", short
    if short and more:
        return (
            f"{where}the store's own count is {fmt.count(short)} short of the confirmed "
            f"ids in some runs and holds {fmt.count(more)} more in others"
        ), short
    if short:
        return (
            f"{where}the store's own count is {fmt.count(short)} short of the confirmed ids",
            short,
        )
    if more:
        return (
            f"{where}the store holds {fmt.count(more)} more new "
            f"record{'s' if more != 1 else ''} than there are confirmed ids"
        ), short
    return f"{where}the store's own count matches the confirmed ids", short


def lost_records(results: pd.DataFrame) -> list[str]:
    """Per target that created records: how many the server confirmed, how many of them
    were lost (summed over its runs: duplicate ids exactly, wrong reads scaled from each
    run's sample, with a 95 % interval) and the store's own count beside it."""
    if "created" not in results:
        return []
    sentences = []
    for target, runs in results.dropna(subset=["created"]).groupby("target", sort=False):
        name = reader_name(results, str(target))
        e = _lost_estimate(runs)
        created = int(runs["created"].sum())
        store, short = _store_count(runs)
        head = (
            f"**{name}**: {fmt.count(created)} URLs confirmed with 201 in {runs_count(len(runs))}"
        )
        if e["duplicates"] or e["wrong"]:
            how = []
            if e["duplicates"]:
                how.append(
                    f"{fmt.count(e['duplicates'])} overwritten by a later URL given the same id"
                )
                shared = int(runs["distinct_ids"].sum()) - int(e["own"])
                if e["exact"] and shared > 0:  # the count rests on them: say they went unread
                    how.append(f"the {fmt.count(shared)} ids given out more than once keep one "
                               "URL each, not read back")  # fmt: skip
            if e["wrong"] and e["exact"] and e["checked"] == 1:
                how.append("the one URL with an id of its own read back wrong")
            elif e["wrong"] and e["exact"]:
                how.append(
                    f"{fmt.count(e['wrong'])} of all {fmt.count(e['checked'])} with an id of "
                    "their own read back wrong"
                )
            elif e["wrong"] and e["sampled_runs"] == 1 and len(runs) == 1:
                how.append(
                    f"{fmt.count(e['wrong'])} of a {fmt.count(e['checked'])}-record sample "
                    f"read back wrong, scaled to {fmt.count(e['own'])}"
                )
            elif e["wrong"]:
                read = "sampled" if e["sampled_runs"] == len(runs) else "checked"
                how.append(
                    f"{fmt.count(e['wrong'])} of the {fmt.count(e['checked'])} {read} read back "
                    f"wrong, scaled run by run to the {fmt.count(e['own'])} with an id of "
                    "their own"
                )
            sentences.append(f"{head}; {_lost_with_range(e, '; '.join(how))}; {store}.")
        elif e["exact"]:
            sentences.append(
                f"{head}, each with an id of its own, each read back as created (checked: "
                f"{fmt.count(e['checked'])}); {store}" + ("." if short else " — nothing lost.")
            )
        else:
            of = "" if e["own"] == created else f" of the {fmt.count(e['own'])}"  # said above
            sentences.append(
                f"{head}, each with an id of its own; none of the {fmt.count(e['checked'])} "
                f"sampled{of} read back wrong, so at most about "
                f"{fmt.count(e['high'])} lost ({_level(e)}{_summed(e)}); {store}."
            )
    return sentences


def lost_summary(results: pd.DataFrame) -> str:
    """One sentence over every write run: what each target lost (the estimate of
    lost_records, with its 95 % interval where only a sample was read back), or that
    none lost any."""
    if "created" not in results:
        return ""
    losing, kept, sampled = [], [], []
    for target, runs in results.dropna(subset=["created"]).groupby("target", sort=False):
        name = reader_name(results, str(target))
        e = _lost_estimate(runs)
        created = fmt.count(runs["created"].sum())
        if e["exact"] and e["lost"]:
            losing.append(f"**{name}** lost {fmt.count(e['lost'])} of {created}")
        elif e["lost"] and _found_only(e):
            losing.append(
                f"**{name}** lost at least {fmt.count(e['low'])} (at most about "
                f"{fmt.count(e['high'])}, {_level(e)} upper bound) of {created}"
            )
        elif e["lost"]:
            losing.append(
                f"**{name}** lost about {fmt.count(e['lost'])} ({_level(e)} interval "
                f"{fmt.count(e['low'])}–{fmt.count(e['high'])}) of {created}"
            )
        elif e["exact"]:
            kept.append(name)
        else:
            sampled.append(
                f"{name} lost none in a sample of {fmt.count(e['checked'])} (at most about "
                f"{fmt.count(e['high'])}, {_level(e)} upper bound)"
            )
    parts = []
    if losing:
        parts.append("; ".join(losing) + " URLs it had confirmed with 201")
    if kept:
        parts.append(f"{', '.join(kept)} lost none")
    if sampled:
        parts.append("; ".join(sampled))
    return (
        ("Of the URLs created in this session's write runs: " + "; ".join(parts) + ".")
        if parts
        else ""
    )


# What a server's id scheme (the registry's ``ids`` factor) does, where it can lose URLs.
ID_SCHEMES = {
    "two-step": "each create reads the last id, then writes the next one back (the article's "
    "code), so two creates at once can take the same id and the later URL overwrites the first"
}


def lost_brief(results: pd.DataFrame) -> str:
    """Page 1's sentence on lost records: each target that lost some (an estimate where
    only a sample was read back) and why, where its id scheme explains it, then how many
    lost none."""
    if "created" not in results:
        return ""
    losing, clean, sampled, why = [], 0, False, set()
    for target, runs in results.dropna(subset=["created"]).groupby("target", sort=False):
        e = _lost_estimate(runs)
        if e["lost"]:
            about = "" if e["exact"] else "at least " if _found_only(e) else "about "
            created = fmt.count(runs["created"].sum())
            name = reader_name(results, str(target))  # page 1 names servers as readers do
            losing.append(f"**{name}** lost {about}{fmt.count(e['lost'])} of {created}")
            schemes = runs["ids"].dropna() if "ids" in runs else pd.Series(dtype=str)
            if e["duplicates"] and not schemes.empty and schemes.iloc[0] in ID_SCHEMES:
                why.add(ID_SCHEMES[schemes.iloc[0]])
        else:
            clean += 1
            sampled = sampled or not e["exact"]
    if not losing:
        return "No write setup lost a URL it had confirmed."
    found = " that sampled reads could find" if sampled else ""
    rest = f"; the other {clean} lost none{found}" if clean else ""
    because = f" Two steps: {'; '.join(sorted(why))}." if why else ""
    return f"{' and '.join(losing)} URLs confirmed with 201{rest}.{because}"


# How the harness words records lost under reused ids ("handed out twice", whatever the
# count): replaced by lost_records.reused_ids, worded from the same run's counts.
REUSED_IDS = re.compile(
    r"[\d,]+ records confirmed but only [\d,]+ distinct ids: [\d,]+ were handed out twice, "
    r"and each overwrote another"
)


def incident_text(row: pd.Series) -> str:
    """A run's incident as its results.csv words it, with lost records under reused ids
    worded from the run's counts (lost_records.reused_ids)."""
    created, distinct = row.get("created"), row.get("distinct_ids")
    text = str(row["incident"])
    if pd.notna(created) and pd.notna(distinct) and 0 < distinct < created:
        return REUSED_IDS.sub(lambda _: reused_ids(int(created), int(distinct)), text)
    return text
