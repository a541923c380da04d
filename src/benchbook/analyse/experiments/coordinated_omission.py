"""Coordinated omission on the freeze server: what a closed loop's percentiles do not see.

A closed-loop tool (wrk, Locust) sends a connection's next request only after the reply
to its last one, so while a server stalls it stops sending, and the stall is timed once
per connection instead of once per request a user would have sent (coordinated
omission). An open-loop tool (vegeta) sends on a schedule whatever the replies do, so
every request that falls into a stall waits it out and is timed. Notebook 06 loads a
server that stops for P every T (go-freeze) with both, one vegeta and one wrk run
interleaved, and sets what each measured beside what the pause model predicts for an
open loop.
"""

from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import summarize
from benchbook.analyse.rows.counted import valid_rows
from benchbook.runs.columns import percentile_column
from benchbook.runs.limits import LITTLES_LAW_TOLERANCE

# The percentiles the comparison reads: the core percentiles (tools.base) that wrk also
# reports as it timed them, before its fill-in.
SHARES = (0.5, 0.9, 0.99, 0.999)
LABELS = {share: f"p{100 * share:g}" for share in SHARES}
# Core column → the column of what wrk timed before its fill-in, which freeze_runs puts in
# its place for the TIMED source.
UNCORRECTED = {
    percentile_column(share): percentile_column(share).replace("_ms", "_uncorrected_ms")
    for share in SHARES
}

# The sources of the freeze comparison, as target labels of one frame (freeze_runs).
OPEN = "open loop (vegeta)"
REPORTED = "wrk as reported (corrected)"
TIMED = "wrk as timed (uncorrected)"
MODEL = "pause model"
# The two a headline compares, named as its sentence reads them ("wrk (as timed)'s p90").
TIMED_SHORT = "wrk (as timed)"
OPEN_SHORT = "vegeta"

# A closed-loop percentile within this share of the open loop's did not miss the stall.
CLOSE_SHARE = 0.10


def _share(share: float) -> float:
    if not 0 < share < 1:
        raise ValueError(f"share {share!r}: a quantile must lie strictly between 0 and 1")
    return share


def pause_model(
    pause_s: float, period_s: float, shares: Sequence[float] = SHARES, service_ms: float = 0.0
) -> dict[float, float]:
    """The latency quantiles (ms) of a server that stops for ``pause_s`` every
    ``period_s``, loaded by an open loop: requests arrive uniformly in time, a share
    P/T of them land in a pause and wait for its end (uniformly between 0 and P), so
    P(latency > x) = (P - x)/T and the q-quantile is max(0, P - (1 - q)·T), plus the
    fast path (``service_ms``). It does not depend on the rate: a schedule keeps sending
    into the pause. 200 ms every 1 s: p90 = 100 ms, p99 = 190 ms, p99.9 = 199 ms."""
    if not 0 <= pause_s < period_s:
        raise ValueError(
            f"pause {pause_s:g} s, period {period_s:g} s: the pause must be at least 0 and "
            "shorter than the period"
        )
    return {
        q: service_ms + 1000 * max(0.0, round(pause_s - (1 - _share(q)) * period_s, 12))
        for q in shares
    }


def pause_mean_ms(pause_s: float, period_s: float) -> float:
    """The mean extra wait under an open loop: P/T of the requests wait P/2 on average,
    P²/(2T) in all (20 ms for 200 ms every 1 s)."""
    pause_model(pause_s, period_s, ())  # checks the pause against the period
    return 1000 * pause_s**2 / (2 * period_s)


def freeze_runs(results: pd.DataFrame) -> pd.DataFrame:
    """Every run of the freeze comparison (one run of vegeta and wrk, interleaved) in one
    frame, one target per source: the open loop's runs (OPEN), wrk's as it reports them
    (REPORTED: its histogram after its own fill-in) and the same wrk runs as it timed them
    (TIMED: the ``_uncorrected`` columns in the latency columns' place; their mean is
    unknown). Every other column and every flag is kept, so comparisons and validity
    notes read this frame like any results."""
    tools = sorted(set(results["tool"]))
    if tools != ["vegeta", "wrk"]:
        raise ValueError(
            f"the freeze comparison needs runs of vegeta and wrk; these results have {tools}"
        )
    open_loop = results[results["tool"] == "vegeta"]
    closed_loop = results[results["tool"] == "wrk"]
    missing = [
        c for c in UNCORRECTED.values() if c not in closed_loop or closed_loop[c].isna().all()
    ]
    if missing:
        raise ValueError(f"the closed-loop results lack {missing}: run wrk with uncorrected=True")
    timed = closed_loop.assign(**{c: closed_loop[u] for c, u in UNCORRECTED.items()})
    timed["lat_mean_ms"] = np.nan
    return pd.concat(
        [open_loop.assign(target=OPEN), closed_loop.assign(target=REPORTED),
         timed.assign(target=TIMED)],
        ignore_index=True,
    )  # fmt: skip


def timed_vs_open_loop(results: pd.DataFrame) -> pd.DataFrame:
    """freeze_runs with what wrk timed and the open loop named TIMED_SHORT and OPEN_SHORT,
    for a headline (findings.headline's ``select``) that compares the two."""
    names = {TIMED: TIMED_SHORT, OPEN: OPEN_SHORT}
    return freeze_runs(results).replace({"target": names})


def freeze_percentiles(runs: pd.DataFrame, pause_s: float, period_s: float) -> pd.DataFrame:
    """One row per source and percentile: the median over valid runs, its CI and the level
    it reaches, and the model's value (fast path: the open loop's median p50, so the
    model's p50 is the open loop's by construction)."""
    valid = valid_rows(runs)
    rows = []
    for share in SHARES:
        for source in (OPEN, REPORTED, TIMED):
            s = summarize(valid.loc[valid["target"] == source, percentile_column(share)].dropna())
            if s.n:
                rows.append({"source": source, "percentile": LABELS[share], "share": share,
                             "median": s.median, "low": s.low, "high": s.high,
                             "level": s.confidence, "n": s.n})  # fmt: skip
    fast = _median(runs, OPEN, "lat_p50_ms")
    model = pause_model(pause_s, period_s, SHARES, 0.0 if np.isnan(fast) else fast)
    for share, value in model.items():
        rows.append({"source": MODEL, "percentile": LABELS[share], "share": share,
                     "median": value, "low": np.nan, "high": np.nan, "level": np.nan,
                     "n": 0})  # fmt: skip
    return pd.DataFrame(rows)


def freeze_table(percentiles: pd.DataFrame) -> pd.DataFrame:
    """The freeze comparison for reading: a row per source, a column per percentile, each
    cell 'median (low–high)' in ms; the CI level and the runs in their own columns."""
    table: dict[str, dict[str, str]] = {}
    extra: dict[str, dict[str, object]] = {}
    for _, row in percentiles.iterrows():
        cell = fmt.milliseconds(row["median"])
        if row["n"] > 1:
            cell += f" ({fmt.interval(row['low'], row['high'], '')})"
        table.setdefault(row["source"], {})[f"{row['percentile']} ms"] = cell
        extra[row["source"]] = {
            "CI level": fmt.level(row["level"]).removesuffix(" CI") if row["n"] > 1 else "–",
            "runs": int(row["n"]) if row["n"] else "model",
        }
    return pd.DataFrame(table).T.join(pd.DataFrame(extra).T)


def _median(runs: pd.DataFrame, target: str, column: str) -> float:
    values = valid_rows(runs).loc[lambda d: d["target"] == target, column].dropna()
    return float(values.median()) if len(values) else float("nan")


def missed_stall(reference: float, value: float) -> str:
    """'missed 107 ms of stall', 'was close (1.7 ms less)' or 'overstated it by 9 ms': a
    closed-loop percentile against the open loop's. Within CLOSE_SHARE of the open
    loop's value counts as close."""
    missed = reference - value
    if abs(missed) <= CLOSE_SHARE * reference:
        direction = "less" if missed >= 0 else "more"
        return f"was close ({fmt.milliseconds(abs(missed))} ms {direction})"
    if missed > 0:
        return f"missed {fmt.milliseconds(missed)} ms of stall"
    return f"overstated it by {fmt.milliseconds(-missed)} ms"


def missed_stall_sentence(runs: pd.DataFrame, share: float = 0.99) -> str:
    """How much of the stall wrk's percentile missed, against the open loop's measured
    percentile (same server, same machine, same time; medians over runs): for what wrk
    timed and for what it reports."""
    column, label = percentile_column(share), LABELS[share]
    reference = _median(runs, OPEN, column)
    parts = []
    for source, how in ((TIMED, "as timed (uncorrected)"), (REPORTED, "as reported (corrected)")):
        value = _median(runs, source, column)
        if np.isnan(reference) or np.isnan(value):
            parts.append(f"wrk's {label} {how}: no valid runs to compare")
            continue
        verdict = missed_stall(reference, value)
        text = f"wrk's {label} {how} {verdict}"
        parts.append(
            (f"**{text}**" if verdict.startswith("missed") else text)
            + f" (open-loop {label} {fmt.milliseconds(reference)} ms − wrk's "
            f"{fmt.milliseconds(value)} ms)"
        )
    return "; ".join(parts) + "."


def _pause_text(pause_s: float, period_s: float) -> str:
    return f"{fmt.count(pause_s * 1000)} ms every {fmt.count(period_s * 1000)} ms"


def freeze_brief(runs: pd.DataFrame, pause_s: float, period_s: float) -> str:
    """The freeze comparison in two sentences, for an answer box: the open loop against
    the model, then at p90 and p99 what wrk timed and what it reports against the open
    loop."""
    model = pause_model(pause_s, period_s, (0.9, 0.99))
    value = {(source, share): _median(runs, source, percentile_column(share))
             for source in (OPEN, TIMED, REPORTED) for share in (0.9, 0.99)}  # fmt: skip
    parts = [
        f"at {LABELS[share]} what wrk timed ({fmt.milliseconds(value[TIMED, share])} ms) "
        f"{missed_stall(value[OPEN, share], value[TIMED, share])}, and what it reports after "
        f"its own fill-in ({fmt.milliseconds(value[REPORTED, share])} ms) "
        f"{missed_stall(value[OPEN, share], value[REPORTED, share])}"
        for share in (0.9, 0.99)
    ]
    share = stalled_share(runs[runs["target"] == TIMED], period_s)
    return (
        f"On a server that stops for {_pause_text(pause_s, period_s)}, an "
        f"open loop measured p90 {fmt.milliseconds(value[OPEN, 0.9])} ms and p99 "
        f"{fmt.milliseconds(value[OPEN, 0.99])} ms (the pause model: "
        f"{fmt.milliseconds(model[0.9])} and {fmt.milliseconds(model[0.99])} ms plus the fast "
        f"path). Against it, {'; '.join(parts)}. At most {fmt.percent(share, 1)} of wrk's "
        "requests met a pause (one per connection per pause), "
        f"{'more' if share > 1 - 0.99 else 'fewer'} than the 1 % above a p99."
    )


def stalled_share(closed_loop: pd.DataFrame, period_s: float) -> float:
    """The share of a closed loop's requests that can have met a pause: a connection
    that is stalled sends nothing else, so at most one request per connection per pause
    waits one out (median over runs)."""
    pauses = closed_loop["duration_s"] / period_s
    return float((closed_loop["connections"] * pauses / closed_loop["requests"]).median())


def fill_in_interval_ms(closed_loop: pd.DataFrame) -> float:
    """The interval wrk 4 assumes between a connection's requests when it fills in its
    histogram (``stats_correct`` in its stats.c): run time ÷ (requests ÷ connections),
    in integer µs as wrk computes it — the mean interval, stalls included (median over
    runs)."""
    per_connection = closed_loop["requests"] // closed_loop["connections"]
    interval_us = (closed_loop["duration_s"] * 1e6).round() // per_connection
    return float(interval_us.median() / 1000)


def stall_share_sentence(runs: pd.DataFrame, pause_s: float, period_s: float) -> str:
    """Why what wrk timed shows the stall only above one percentile: the share of its
    requests that met a pause, against P/T for requests sent on a schedule."""
    closed = runs[runs["target"] == TIMED]
    share = stalled_share(closed, period_s)
    above = 100 * (1 - share)
    return (
        f"At most {fmt.percent(share, 1)} of wrk's requests met a pause (one per connection "
        "per pause: "
        f"{closed['connections'].median():.0f} connections, {fmt.count(closed['rps'].median())} "
        f"req/s), against {fmt.percent(pause_s / period_s)} of requests sent on a schedule "
        "(P/T); so "
        f"every percentile of what wrk timed below about p{above:.3g} is the fast path, "
        f"and only those above it show the stall."
    )


def _think_ms(closed_loop: pd.DataFrame) -> float:
    """The closed loop's median think time (wrk leaves the column empty without one)."""
    if "think_ms" not in closed_loop:
        return 0.0
    return float(closed_loop["think_ms"].fillna(0.0).median())


def fill_in_sentence(runs: pd.DataFrame) -> str:
    """What wrk 4's fill-in assumed, and why it falls short of the open loop: it adds the
    requests a connection would have sent every mean interval during a stall, and that
    mean includes the stalls, so it is longer than the interval outside them."""
    closed = runs[runs["target"] == REPORTED]
    interval = fill_in_interval_ms(closed)
    think = _think_ms(closed)
    outside = think + _median(runs, TIMED, "lat_p50_ms")
    if interval > 1.05 * outside:
        effect = "fewer requests into each pause than its connections sent in the same time outside"
    elif interval < 0.95 * outside:
        effect = "more requests into each pause than its connections sent in the same time outside"
    else:
        effect = "about as many requests into each pause as its connections sent outside"
    return (
        f"wrk 4 fills each recorded latency L in with samples at L − e, L − 2e, … as if the "
        f"connection had kept sending every e = {fmt.milliseconds(interval)} ms (its run "
        f"time ÷ requests per connection, the stalls included). Outside the pauses its "
        f"connections sent every {fmt.milliseconds(outside)} ms (think time + median reply), "
        f"so the fill-in puts {effect} them: a model of the requests not sent, not a "
        "measurement of them."
    )


def littles_law_sentence(runs: pd.DataFrame) -> str:
    """Little's law (requests in flight = throughput × time in the system) on both
    loads: an open loop's in-flight count grows with the stall; a closed loop's cannot
    exceed its connections, so wrk's reported mean implying more is the fill-in."""
    parts = []
    vegeta = valid_rows(runs[runs["target"] == OPEN])
    if len(vegeta):
        rate, mean = vegeta["rps"].median(), vegeta["lat_mean_ms"].median()
        most = vegeta["max_in_flight"].median() if "max_in_flight" in vegeta else np.nan
        parts.append(
            f"Open loop: {fmt.count(rate)} req/s × mean {fmt.milliseconds(mean)} ms ≈ "
            f"{rate * mean / 1000:.2g} requests in flight on average, "
            f"{fmt.count(most)} at most (the requests sent during one pause)"
        )
    wrk = valid_rows(runs[runs["target"] == REPORTED])
    if len(wrk):
        rate, mean = wrk["rps"].median(), wrk["lat_mean_ms"].median()
        think = _think_ms(wrk)
        busy = rate * (mean + think) / 1000
        connections = wrk["connections"].median()
        parts.append(
            f"wrk: {fmt.count(rate)} req/s × (reported mean {fmt.milliseconds(mean)} ms + "
            f"{fmt.milliseconds(think)} ms think) ≈ {busy:.2g} connections busy, from "
            f"{connections:.0f} connections"
            + (
                ": the difference is the fill-in's requests, which never went on the wire"
                if busy > connections * (1 + LITTLES_LAW_TOLERANCE)
                else ""
            )
        )
    return "Little's law (in flight = throughput × time per request). " + "; ".join(parts) + "."


def freeze_sentences(runs: pd.DataFrame, pause_s: float, period_s: float) -> list[str]:
    """Every generated sentence of the freeze comparison, in reading order."""
    model = pause_model(pause_s, period_s, (0.9, 0.99))
    return [
        f"The pause model ({_pause_text(pause_s, period_s)}) expects p90 "
        f"{fmt.milliseconds(model[0.9])} ms and p99 {fmt.milliseconds(model[0.99])} ms above "
        f"the fast path, and a mean of {fmt.milliseconds(pause_mean_ms(pause_s, period_s))} "
        "ms, for requests sent on a schedule; the open loop measured "
        f"p90 {fmt.milliseconds(_median(runs, OPEN, 'lat_p90_ms'))} ms and p99 "
        f"{fmt.milliseconds(_median(runs, OPEN, 'lat_p99_ms'))} ms (medians over runs).",
        missed_stall_sentence(runs, 0.9),
        missed_stall_sentence(runs, 0.99),
        stall_share_sentence(runs, pause_s, period_s),
        fill_in_sentence(runs),
        littles_law_sentence(runs),
    ]
