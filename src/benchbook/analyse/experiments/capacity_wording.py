"""Capacity at an SLO in words: what each target's capacity is and what kind of number
it is (an estimate, only a lower bound, or none), and how two targets' compare."""

from collections.abc import Mapping, Sequence

import pandas as pd

from benchbook.analyse.claims import bounds
from benchbook.analyse.experiments.capacity import (
    CAPACITY,
    WHY_INVALID,
    WHY_NO_SLO,
    WHY_SHORTFALL,
    WHY_TOOL_CPU,
    lower_bound,
    rate_bracket,
)
from benchbook.analyse.findings.figures import figure
from benchbook.analyse.findings.headlines import Headline
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import compare, summarize
from benchbook.analyse.rows.counted import flag_counts, valid_rows
from benchbook.analyse.rows.names import reader_name
from benchbook.analyse.words import bounds as bound_words
from benchbook.analyse.words.findings_format import LOWER_BOUND

# What a capacity comparison measures, as its headline names it (capacity_label).
SLO_RATE = "requests per second within the SLO"


def _bound_reasons(bounded: pd.DataFrame) -> list[str]:
    """Why capacities are only lower bounds, one phrase per reason, with the numbers."""
    reasons = []
    for why, runs in bounded.groupby("why", sort=False):
        n = f"{len(runs)} run{'s' if len(runs) != 1 else ''}"
        tool = " and ".join(dict.fromkeys(map(str, runs["tool"])))
        if why == WHY_TOOL_CPU:
            reasons.append(
                f"{n}: where the SLO broke ({fmt.count_range(runs['failed_rps'])} req/s), "
                f"{tool} used {fmt.count_range(runs['stop_client_cpu_pct'], ' %')} of a core "
                f"and the server {fmt.count_range(runs['stop_server_cpu_pct'], ' %')}: the "
                "tool, not the server, was at its limit"
            )
        elif why == WHY_SHORTFALL:
            reasons.append(
                f"{n}: {tool} sent only {fmt.count_range(runs['stop_achieved_rps'])} of the "
                f"{fmt.count_range(runs['failed_rps'])} req/s asked, so that rate was not offered"
            )
        elif why == WHY_INVALID:
            flags = flag_counts(runs["stop_flags"])
            reasons.append(
                f"{n}: the run at {fmt.count_range(runs['failed_rps'])} req/s was invalid ({flags})"
            )
        elif why == WHY_NO_SLO:
            reasons.append(f"{n}: no valid run at the lowest rate to set an SLO from")
        else:
            reasons.append(f"{n}: every rate offered met the SLO")
    return reasons


def capacity_sentence(capacities: pd.DataFrame, target: str) -> str:
    """What one target's capacity at its SLO is, and what kind of number it is."""
    runs = capacities[capacities["target"] == target]
    if runs.empty:
        raise ValueError(f"no capacity for {target!r}; have {sorted(set(capacities['target']))}")
    slo = runs["slo_ms"].iloc[0]
    s = summarize(valid_rows(runs)[CAPACITY].dropna())
    head = f"**{reader_name(capacities, target)}** (SLO: p99 ≤ {fmt.milliseconds(slo)} ms)"
    if s.n == 0:
        if runs["ended_by"].eq("never").any():
            return (
                f"{head} **never met its SLO**, even at the lowest rate offered "
                f"({fmt.count(runs['failed_rps'].min())} req/s): its capacity at this SLO is "
                "below that."
            )
        reasons = _bound_reasons(runs[runs["why"] != ""]) or list(dict.fromkeys(runs["ended_by"]))
        return f"{head}: no capacity measured ({'; '.join(reasons)})."
    bounded = runs[runs["bound"] == "at least"]
    if len(bounded):
        # each bounded run is below its true capacity, and a run placed between two rates
        # is at least the lower one, so the median of those floors is a floor too; an
        # interval around it would claim an upper end no run measured
        floors = bounds.lowest_possible(valid_rows(runs), CAPACITY).dropna()
        lowest, median = fmt.count(floors.min()), fmt.count(floors.median())
        sentence = (
            f"{head}: a median capacity of **at least {median} req/s** (the "
            f"median of its {s.n} runs, {len(bounded)} of them only lower bounds, so no "
            "interval" + (f"; the lowest run's is at least {lowest})" if lowest != median else ")")
        )
    else:
        interval = (f"{fmt.level(s.confidence)} {fmt.count(s.low)}–{fmt.count(s.high)} req/s"
                    if s.n > 1 else "one run")  # fmt: skip
        sentence = f"{head}: **{fmt.count(s.median)} req/s** ({interval}, {s.n} runs)"
    exact = runs[runs["ended_by"] == "slo"]
    if len(exact):
        sentence += (
            f"; {len(exact)} of {len(runs)} runs broke the SLO between two rates offered "
            f"({rate_bracket(exact)}), the capacity placed between them on a log scale of p99"
        )
    if len(bounded):
        sentence += (
            f"; in {len(bounded)} of {len(runs)} runs it is **only a lower bound** — "
            + "; ".join(_bound_reasons(bounded))
        )
    return sentence + "."


def capacity_figures(capacities: pd.DataFrame, targets: Sequence[str]) -> dict[str, str]:
    """Each target's capacity at its SLO as a figure for an answer, by the name a reader
    knows: '4,046 req/s, 87.5 % CI 2,547–4,618 req/s', or for a median of lower bounds
    'at least 9,735 req/s, a median of lower bounds', as capacity_sentence gives them."""
    figures = {}
    for target in targets:
        runs = capacities[capacities["target"] == target]
        s = summarize(valid_rows(runs)[CAPACITY].dropna())
        if s.n == 0:
            continue
        if (runs["bound"] == "at least").any():
            floors = bounds.lowest_possible(valid_rows(runs), CAPACITY).dropna()
            said = f"at least {fmt.count(floors.median())} req/s, a median of lower bounds"
        elif s.n > 1:
            interval = f"{fmt.level(s.confidence)} {fmt.count(s.low)}–{fmt.count(s.high)} req/s"
            said = f"{fmt.count(s.median)} req/s, {interval}"
        else:
            said = f"{fmt.count(s.median)} req/s, one run"
        figures[reader_name(capacities, target)] = said
    return figures


def bound_reason(capacities: pd.DataFrame, a: str) -> str:
    """Why a's capacity is only a lower bound, for a headline ('' when it is a measurement):
    which tool limited it, at what rates and CPU."""
    runs = capacities[capacities["target"] == a]
    bounded = runs[runs["bound"] == "at least"]
    if bounded.empty:
        return ""
    return (
        f"in {len(bounded)} of {len(runs)} runs its capacity is only a lower bound — "
        + "; ".join(_bound_reasons(bounded))
    )


def capacity_label(capacities: pd.DataFrame, a: str, b: str) -> str:
    """A headline's label for a capacity comparison, naming a side whose capacity is only
    a lower bound: the ratio's verdict alone would not say so."""
    na, nb = reader_name(capacities, a), reader_name(capacities, b)
    bounded = [n for t, n in ((a, na), (b, nb)) if lower_bound(capacities, t)]
    note = f" ({' and '.join(bounded)}: only a lower bound)" if bounded else ""
    return f"{na} vs {nb}: {SLO_RATE}{note}"


def _reason(capacities: pd.DataFrame, target: str, reasons_above: bool) -> str:
    """Why ``target``'s capacity is a bound, or a pointer to its sentence just above."""
    return "its capacity above says why" if reasons_above else bound_reason(capacities, target)


def _held_down(
    capacities: pd.DataFrame,
    valid: pd.DataFrame,
    targets: tuple[str, str],
    names: tuple[str, str],
    reasons_above: bool,
) -> str:
    """a's capacity only a lower bound (the load tool held it down): this session's bound,
    a's lowest run over b's highest, or why there is none (words.bounds.sentence)."""
    (a, b), (na, nb) = targets, names
    low, high = bounds.session_runs(valid, a, b, CAPACITY)
    bound = bounds.Bound(low / high, 1, low / high, bounds.own_spread(valid, b, CAPACITY))
    why = _reason(capacities, a, reasons_above)
    runs = f"{fmt.count(low)} vs {fmt.count(high)} req/s"
    if not bound.informative:
        # each run at its conservative end, said so: not the capacities printed above
        roles = (f"{fmt.count(low)} req/s, the last rate at which {na}'s lowest run met "
                 f"the SLO, vs {fmt.count(high)} req/s, the rate at which {nb}'s best run "
                 "broke it")  # fmt: skip
        spread_of = "its highest capacity over its lowest, each placed between two rates"
        return bound_words.sentence(bound, (na, nb), SLO_RATE, why, roles, spread_of)
    return bound_words.capacity_session(bound.here, names, SLO_RATE, why, runs)


def capacity_comparison(
    capacities: pd.DataFrame, a: str, b: str, reasons_above: bool = False
) -> str:
    """The capacity ratio a/b with its CI and p (stats.compare), in words. Where a side's
    capacities are only lower bounds there is no two-sided interval and no test: a's hold
    the ratio down, so this session's bound (a's lowest run over b's highest) is given,
    or why there is none as words.bounds.sentence words it (the claim, over the class's
    sessions, is the headline's); b's hold it up, so only an upper end is.
    ``reasons_above``: each side's capacity sentence (capacity_sentence) was printed just
    before, with why it is a bound, so the comparison points to it instead of repeating it."""
    na, nb = reader_name(capacities, a), reader_name(capacities, b)
    valid = valid_rows(capacities).dropna(subset=[CAPACITY])
    va, vb = (valid.loc[valid["target"] == t, CAPACITY] for t in (a, b))
    if va.empty or vb.empty:
        return (
            f"**{na}** and **{nb}** cannot be ranked on capacity at their SLO: "
            f"no capacity measured for **{na if va.empty else nb}**."
        )
    bounded = {t: lower_bound(capacities, t) for t in (a, b)}
    medians = f"medians {fmt.count(va.median())} vs {fmt.count(vb.median())} req/s"
    if bounded[a] and bounded[b]:
        return (
            f"**{na}** and **{nb}** cannot be ranked on capacity at their SLO: both are only "
            f"lower bounds ({medians}; {len(va)}+{len(vb)} runs)."
        )
    if bounded[a]:
        return _held_down(capacities, valid, (a, b), (na, nb), reasons_above)
    if bounded[b]:
        at_most = 1 / bounds.session_bound(valid, b, a, CAPACITY)  # a's highest over b's lowest
        return (
            f"**{na}** reached **at most {fmt.ratio_at_most(at_most)} the {SLO_RATE}** of "
            f"**{nb}** in this one session ({na}'s highest run over {nb}'s lowest), as the "
            f"load tool held {nb} down ({_reason(capacities, b, reasons_above)})."
        )
    c = compare(va, vb)
    numbers = f"{medians}; {fmt.p_value(c.p_value)}; {c.n_a}+{c.n_b} runs"
    interval = fmt.ci(c.ratio_low, c.ratio_high, c.ratio_confidence)
    if not c.significant:
        return (
            f"**No significant difference** in capacity at their SLO between **{na}** and "
            f"**{nb}**: ratio {fmt.ratio(c.ratio)} ({interval}; {numbers})."
        )
    return (
        f"**{na}** took **{fmt.ratio(c.ratio)} the load of {nb}** within its SLO "
        f"(ratio {fmt.ratio(c.ratio)}, {interval}; {numbers})."
    )


def stalls_and_capacity(
    headlines: Sequence[Headline],
    tail: str,
    slo_ms: float | None = None,
    capacity: Mapping[str, str] | None = None,
) -> str:
    """Notebook 06: what a closed loop misses, and the capacities at the latency objective
    (every headline after the first, the freeze server's; ``slo_ms``: its p99 in ms, where
    one holds for every server; ``capacity``: each server's own figure, by name, given
    where no ratio is)."""
    parts = []
    for h in headlines[1:]:
        if h.ratio is None:
            a, b = (f"{side} ({capacity[side]})" if capacity and side in capacity else side
                    for side in h.sides)  # fmt: skip
            parts.append(f"{a} against {b}: {figure(h)}")
        elif h.significant or h.reproduced_why == LOWER_BOUND:  # a bound is a difference
            parts.append(f"{h.sides[0]} took {figure(h)} the load of {h.sides[1]}")
        else:
            parts.append(
                f"{h.sides[0]} against {h.sides[1]}: no significant difference ({figure(h)})"
            )
    within = f"the p99 objective (p99 at most {slo_ms:g} ms)" if slo_ms else (
        "each server's p99 objective")  # fmt: skip
    return f"{tail} Within {within}, {'; '.join(parts)}."
