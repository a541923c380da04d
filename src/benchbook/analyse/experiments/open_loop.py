"""Open-loop latency: what a closed loop's percentiles do not see, and how much load a
server takes before its tail latency breaks an objective.

A closed-loop tool (wrk, Locust) sends a connection's next request only after the reply
to its last one, so while a server stalls it stops sending, and the stall is timed once
per connection instead of once per request a user would have sent (coordinated
omission). An open-loop tool (vegeta) sends on a schedule whatever the replies do, so
every request that falls into a stall waits it out and is timed. Two analyses here:

- the freeze server (a stop-the-world pause of P every T) under both kinds of load, beside
  what the pause model predicts for an open loop;
- latency against offered load (the "hockey stick"): an open loop at rates around each
  server's own closed-loop maximum, a latency objective (SLO) on p99, and the highest rate
  at which each server still meets it (its capacity at that SLO), compared between servers.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchbook.analyse import formatting as fmt
from benchbook.analyse.conclusions import SERVER_BUSY_CPU_PCT
from benchbook.analyse.stats import compare, summarize
from benchbook.analyse.tables import flag_counts, valid_rows
from benchbook.measure.flags import LITTLES_LAW_TOLERANCE, is_valid

SHARES = (0.5, 0.9, 0.99, 0.999)
PERCENTILES = {0.5: "lat_p50_ms", 0.9: "lat_p90_ms", 0.99: "lat_p99_ms", 0.999: "lat_p999_ms"}
UNCORRECTED = {column: column.replace("_ms", "_uncorrected_ms") for column in PERCENTILES.values()}
LABELS = {0.5: "p50", 0.9: "p90", 0.99: "p99", 0.999: "p99.9"}

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
NAN = float("nan")


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


# --- the freeze server: open loop, wrk as reported, wrk as timed, the model


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
    for share, column in PERCENTILES.items():
        for source in (OPEN, REPORTED, TIMED):
            s = summarize(valid.loc[valid["target"] == source, column].dropna())
            if s.n:
                rows.append({"source": source, "percentile": LABELS[share], "share": share,
                             "median": s.median, "low": s.low, "high": s.high,
                             "level": s.confidence, "n": s.n})  # fmt: skip
    fast = _median(runs, OPEN, "lat_p50_ms")
    model = pause_model(pause_s, period_s, tuple(PERCENTILES), 0.0 if np.isnan(fast) else fast)
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
    column, label = PERCENTILES[share], LABELS[share]
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
    value = {(source, share): _median(runs, source, PERCENTILES[share])
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
        f"path). Against it, {'; '.join(parts)}. {share:.1%} of wrk's requests met a pause "
        f"(one per connection per pause), {'more' if share > 1 - 0.99 else 'fewer'} than the "
        "1 % above a p99."
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
        f"At most {share:.1%} of wrk's requests met a pause (one per connection per pause: "
        f"{closed['connections'].median():.0f} connections, {fmt.count(closed['rps'].median())} "
        f"req/s), against {pause_s / period_s:.0%} of requests sent on a schedule (P/T); so "
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
            f"Open loop: {fmt.count(rate)} req/s × mean {fmt.milliseconds(mean)} ms = "
            f"{rate * mean / 1000:.3g} requests in flight on average, "
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
            f"{fmt.milliseconds(think)} ms think) = {busy:.3g} connections busy, from "
            f"{connections:.0f} connections"
            + (
                ": the difference is the fill-in's requests, which never went on the wire "
                "(hence wrk's `littles_law` flag)"
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


# --- latency against offered load, and capacity at an SLO

RATE_DIGITS = 3
# A run meets the SLO when its p99 is within it and at most this share of its requests
# failed: a failed request is one that missed the objective.
SLO_SHARE = 0.99
CAPACITY = "requests per second within the SLO"
TOOL_FLAGS = ("client_bound", "rate_shortfall")
BUSY_CPU_PCT = SERVER_BUSY_CPU_PCT  # of one core: near its limit, as conclude judges a server

# Why a capacity is only a lower bound (Capacity.why), each in words.
WHY_TOOL_CPU = "tool at its CPU limit"
WHY_SHORTFALL = "rate not offered"
WHY_INVALID = "invalid run"
WHY_EVERY_RATE = "every rate met it"
WHY_NO_SLO = "no SLO"
# What the run that ended a scan measured, kept beside its capacity (column: name).
STOP_COLUMNS = {"achieved_rate": "stop_achieved_rps", "client_cpu_pct": "stop_client_cpu_pct",
                "server_cpu_pct": "stop_server_cpu_pct"}  # fmt: skip


def closed_loop_maxima(results: pd.DataFrame) -> dict[str, float]:
    """Each server's median req/s over its valid closed-loop runs: the scale of the
    rates an open loop offers it."""
    valid = valid_rows(results)
    return {
        str(k): float(v) for k, v in valid.groupby("server", sort=False)["rps"].median().items()
    }


def offered_rates(maxima: Mapping[str, float], fractions: Sequence[float]) -> dict[str, list]:
    """The rates to offer each server: ``fractions`` of its own closed-loop maximum,
    rounded to three significant digits (a rate a reader can repeat), ascending."""
    if not fractions or any(not f > 0 for f in fractions):
        raise ValueError(f"fractions: {list(fractions)!r}; give shares above zero, e.g. [0.1, 1]")
    rates = {}
    for server, maximum in maxima.items():
        if not maximum > 0:
            raise ValueError(f"{server}: closed-loop maximum {maximum!r} req/s; nothing to scale")
        rates[server] = sorted({_rounded(f * maximum) for f in fractions})
    return rates


def _rounded(rate: float) -> float:
    return float(round(rate, RATE_DIGITS - 1 - math.floor(math.log10(rate))))


def _failed(row: pd.Series) -> float:
    """The share of a run's requests that failed (no response, or an HTTP error)."""
    counts = [
        row.get(c) for c in ("err_connect", "err_read", "err_write", "err_timeout", "non_2xx")
    ]
    failed = float(np.nansum(np.asarray(counts, dtype=float)))
    return failed / float(row["requests"]) if row["requests"] else 1.0


def _flags(row: pd.Series) -> set[str]:
    return set(filter(None, str(row.get("flags") or "").split(";")))


def slo_per_target(
    results: pd.DataFrame,
    factor: float = 10.0,
    floor_ms: float = 1.0,
    fixed_ms: float | None = None,
) -> dict[str, float]:
    """Each target's latency objective for p99, in ms: ``fixed_ms`` for all when given;
    otherwise ``factor`` × its median p99 at the lowest rate offered ("unloaded": valid
    runs the tool kept up with), and never below ``floor_ms``, so a server whose unloaded
    p99 is a few µs is not held to a bound the measurement cannot resolve."""
    if fixed_ms is not None:
        if not fixed_ms > 0:
            raise ValueError(f"slo_ms: {fixed_ms!r}; an SLO must be above 0 ms")
        return {str(t): float(fixed_ms) for t in dict.fromkeys(results["target"])}
    if not factor > 0 or floor_ms < 0:
        raise ValueError(
            f"SLO factor {factor!r} and floor {floor_ms!r} ms: use factor > 0, floor ≥ 0"
        )
    return {
        target: max(floor_ms, factor * p99) if p99 == p99 else float("nan")
        for target, p99 in unloaded_p99(results).items()
    }


def unloaded_p99(results: pd.DataFrame) -> dict[str, float]:
    """Each target's median p99 at the lowest rate offered, over its valid runs that the
    tool sent as scheduled (NaN when there is none)."""
    found = {}
    for target, runs in results.groupby("target", sort=False):
        lowest = valid_rows(runs[runs["target_rate"] == runs["target_rate"].min()])
        usable = [
            r["lat_p99_ms"] for _, r in lowest.iterrows() if "rate_shortfall" not in _flags(r)
        ]
        found[str(target)] = float(np.median(usable)) if usable else float("nan")
    return found


def meets_slo(row: pd.Series, slo_ms: float) -> bool:
    """p99 within the SLO and at most 1 % of the requests failed."""
    p99 = row["lat_p99_ms"]
    return bool(p99 == p99 and p99 <= slo_ms and _failed(row) <= 1 - SLO_SHARE)


def _crossing(low: pd.Series, high: pd.Series, slo_ms: float) -> float:
    """Where p99 crosses the SLO between a rate that met it and the next that broke it,
    on a straight line through the two p99s on a log scale."""
    p_low, p_high = float(low["lat_p99_ms"]), float(high["lat_p99_ms"])
    r_low, r_high = float(low["target_rate"]), float(high["target_rate"])
    if not (p_high > slo_ms >= p_low > 0):
        return r_low  # broke it by failing requests, not by its p99: no line to follow
    return r_low + (r_high - r_low) * math.log(slo_ms / p_low) / math.log(p_high / p_low)


@dataclass(frozen=True)
class Capacity:
    """One repetition's capacity at the SLO and what kind of number it is.

    ``limit``: what ended the scan — "slo" (a rate broke it: ``rps`` is an estimate
    within [``passed_rps``, ``failed_rps``]), "tool", "invalid" or "every rate" (``rps``
    is only a lower bound: ``bound`` "at least"), "never" (the lowest rate broke it:
    ``bound`` "below", no ``rps``), "no SLO" (nothing to judge by)."""

    rps: float
    passed_rps: float
    failed_rps: float
    limit: str
    bound: str
    why: str
    row: pd.Series  # the run at capacity (or the one that ended the scan, when none met it)
    stop: pd.Series | None = None  # the run that ended the scan, when one did


def tool_was_the_limit(row: pd.Series) -> bool:
    """Whether the load tool, not the server, was near its CPU limit in a run: the tool at
    BUSY_CPU_PCT of a core or more (or flagged client_bound) while the server stayed
    below it. An open-loop tool that is short of CPU sends late and reads replies late,
    and both delays land in its latencies: they are not the server's (CPU in % of one
    core, as each side gets one core when pinned on two)."""
    client, server = float(row.get("client_cpu_pct") or 0), float(row.get("server_cpu_pct") or 0)
    busy = client >= BUSY_CPU_PCT or "client_bound" in _flags(row)
    return busy and server < BUSY_CPU_PCT


def _scan(runs: pd.DataFrame, slo_ms: float) -> Capacity:
    """One repetition of one target, rates ascending (see capacity_runs)."""
    passed = None
    for _, row in runs.sort_values("target_rate").iterrows():
        flags, rate = _flags(row), float(row["target_rate"])
        if not is_valid(";".join(flags)):
            return _stopped(passed, row, "invalid", WHY_INVALID)
        if meets_slo(row, slo_ms):
            if "rate_shortfall" in flags:
                return _stopped(passed, row, "tool", WHY_SHORTFALL)
            passed = row
            continue
        if tool_was_the_limit(row):
            return _stopped(passed, row, "tool", WHY_TOOL_CPU)
        if passed is None:
            return Capacity(NAN, NAN, rate, "never", "below", "", row, row)
        at = float(passed["target_rate"])
        return Capacity(_crossing(passed, row, slo_ms), at, rate, "slo", "", "", passed, row)
    return _stopped(passed, None, "every rate", WHY_EVERY_RATE)


def _stopped(passed: pd.Series | None, stop: pd.Series | None, limit: str, why: str) -> Capacity:
    """A scan that ended before any rate broke the SLO, at ``stop`` (None: every rate met
    it): at least the last rate that met it (a lower bound), or unknown when none did.
    When the tool stopped it, the tool's flags of that run join the flags of the run at
    capacity: the bound rests on them."""
    stop_rate = NAN if stop is None else float(stop["target_rate"])
    if passed is None:
        return Capacity(NAN, NAN, stop_rate, limit, "unknown", why, stop, stop)
    row = passed.copy()
    if limit == "tool":
        row["flags"] = ";".join(sorted(_flags(passed) | (_flags(stop) & set(TOOL_FLAGS))))
    at = float(passed["target_rate"])
    return Capacity(at, at, stop_rate, limit, "at least", why, row, stop)


KEPT = ("run_id", "experiment", "server", "language", "variant", "tool", "tool_setting",
        "flags", "incident", "err_connect", "err_read", "err_write", "err_timeout", "non_2xx",
        "requests", "headroom", "host_steal_pct", "client_cpu_pct", "server_cpu_pct")  # fmt: skip


def capacity_runs(
    results: pd.DataFrame,
    factor: float = 10.0,
    floor_ms: float = 1.0,
    fixed_ms: float | None = None,
) -> pd.DataFrame:
    """Each target's capacity at its SLO (slo_per_target), one row per repetition: the
    highest offered rate up to which every run met the SLO (meets_slo) and was sent as
    scheduled.

    Between that rate and the next, which broke the SLO, the capacity is put where p99
    crosses the SLO on a straight line through the two p99s on a log scale (p99 grows by
    orders of magnitude across a knee, and is closest to a straight line there); the
    bracket (``passed_rps``, ``failed_rps``) is kept, and the estimate never leaves it.

    The capacity is only a lower bound (``bound`` "at least": the last rate that met the
    SLO) when the scan stopped for another reason than the server: a run that met the SLO
    but fell short of its rate (rate_shortfall: the rate was not offered), a run that
    broke it while the tool, not the server, was at its CPU limit (tool_was_the_limit),
    an invalid run (bad_response, server_died, data_loss), or no rate breaking it at all.
    A target that broke it at the lowest rate has none (NaN, ``bound`` "below").

    ``flags`` are those of the run at capacity, plus client_bound or rate_shortfall of
    the run that stopped the scan when the tool stopped it, so verdicts name them. The
    result reads like results (target, flags, error counts): findings.headline and
    conclude take it, with CAPACITY as the column."""
    slos = slo_per_target(results, factor, floor_ms, fixed_ms)
    unloaded = unloaded_p99(results)
    rows = []
    for (target, repetition), runs in results.groupby(["target", "repetition"], sort=False):
        slo = slos[str(target)]
        if np.isnan(slo):
            found = Capacity(NAN, NAN, NAN, "no SLO", "unknown", WHY_NO_SLO, runs.iloc[0])
        else:
            found = _scan(runs, slo)
        rows.append(
            {"target": target, "repetition": repetition}
            | {c: found.row.get(c) for c in KEPT if c in found.row}
            | {
                "unloaded_p99_ms": unloaded[str(target)],
                "slo_ms": slo,
                CAPACITY: found.rps,
                "passed_rps": found.passed_rps,
                "failed_rps": found.failed_rps,
                "limit": found.limit,
                "bound": found.bound,
                "why": found.why,
            }
            | _stop_columns(found.stop)
        )
    return pd.DataFrame(rows)


def _stop_columns(stop: pd.Series | None) -> dict[str, object]:
    """What the run that ended the scan measured: what the bound's reason rests on."""
    if stop is None:
        return dict.fromkeys(STOP_COLUMNS.values(), NAN) | {"stop_flags": ""}
    found = {name: stop.get(column, NAN) for column, name in STOP_COLUMNS.items()}
    return found | {"stop_flags": str(stop.get("flags") or "")}


def capacity_table(
    capacities: pd.DataFrame, maxima: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """Per target: its SLO, the median capacity over repetitions with its CI and level,
    as a share of its closed-loop maximum, the bracket of offered rates it lies in, how
    many runs give only a bound, and the flags of the runs at capacity."""
    rows = []
    for target, runs in capacities.groupby("target", sort=False):
        s = summarize(valid_rows(runs)[CAPACITY].dropna())
        bounds = runs["bound"][runs["bound"] != ""]
        server = runs["server"].iloc[0]
        maximum = (maxima or {}).get(server, np.nan)
        rows.append({
            "target": target,
            "unloaded p99 ms": runs["unloaded_p99_ms"].iloc[0],
            "SLO p99 ms": runs["slo_ms"].iloc[0],
            "capacity req/s": s.median,
            "capacity CI req/s": (f"{fmt.count(s.low)}–{fmt.count(s.high)}" if s.n > 1 else "–"),
            "CI level": fmt.level(s.confidence).removesuffix(" CI") if s.n > 1 else "–",
            "% of closed-loop max": 100 * s.median / maximum,
            "between rates req/s": _bracket(runs),
            "runs": len(runs),
            "bounds only": ", ".join(f"{b} {n}/{len(runs)}"
                                     for b, n in bounds.value_counts().items()) or "–",
            "flags": flag_counts(runs["flags"]),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("target")


def _bracket(runs: pd.DataFrame) -> str:
    """'1,610–3,230 (2 runs); 3,230–4,840 (2)': the offered rates each run's capacity lies
    between ('≥ 19,800' when only a lower bound, '< 646' when the lowest rate broke it)."""
    counts: dict[str, int] = {}
    for _, run in runs.sort_values(["passed_rps", "failed_rps"]).iterrows():
        if run["limit"] == "slo":
            text = f"{fmt.count(run['passed_rps'])}–{fmt.count(run['failed_rps'])}"
        elif run["limit"] == "never":
            text = f"< {fmt.count(run['failed_rps'])}"
        elif run["passed_rps"] == run["passed_rps"]:
            text = f"≥ {fmt.count(run['passed_rps'])}"
        else:
            text = "unknown"
        counts[text] = counts.get(text, 0) + 1
    return "; ".join(f"{text} ({n} run{'s' if n != 1 else ''})" for text, n in counts.items())


def _ranges(values: pd.Series, unit: str = "") -> str:
    low, high = values.min(), values.max()
    text = fmt.count(low) if round(low) == round(high) else f"{fmt.count(low)}–{fmt.count(high)}"
    return text + unit


def _bound_reasons(bounded: pd.DataFrame) -> list[str]:
    """Why capacities are only lower bounds, one phrase per reason, with the numbers."""
    reasons = []
    for why, runs in bounded.groupby("why", sort=False):
        n = f"{len(runs)} run{'s' if len(runs) != 1 else ''}"
        if why == WHY_TOOL_CPU:
            reasons.append(
                f"{n}: where the SLO broke ({_ranges(runs['failed_rps'])} req/s), vegeta used "
                f"{_ranges(runs['stop_client_cpu_pct'], ' %')} of a core and the server "
                f"{_ranges(runs['stop_server_cpu_pct'], ' %')}: the tool, not the server, was "
                "at its limit"
            )
        elif why == WHY_SHORTFALL:
            reasons.append(
                f"{n}: vegeta sent only {_ranges(runs['stop_achieved_rps'])} of the "
                f"{_ranges(runs['failed_rps'])} req/s asked, so that rate was not offered"
            )
        elif why == WHY_INVALID:
            flags = flag_counts(runs["stop_flags"])
            reasons.append(
                f"{n}: the run at {_ranges(runs['failed_rps'])} req/s was invalid ({flags})"
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
    head = f"**{target}** (SLO: p99 ≤ {fmt.milliseconds(slo)} ms)"
    if s.n == 0:
        if runs["limit"].eq("never").any():
            return (
                f"{head} **never met its SLO**, even at the lowest rate offered "
                f"({fmt.count(runs['failed_rps'].min())} req/s): its capacity at this SLO is "
                "below that."
            )
        reasons = _bound_reasons(runs[runs["why"] != ""]) or list(dict.fromkeys(runs["limit"]))
        return f"{head}: no capacity measured ({'; '.join(reasons)})."
    interval = (f"{fmt.level(s.confidence)} {fmt.count(s.low)}–{fmt.count(s.high)} req/s"
                if s.n > 1 else "one run")  # fmt: skip
    sentence = f"{head}: **{fmt.count(s.median)} req/s** ({interval}, {s.n} runs)"
    exact = runs[runs["limit"] == "slo"]
    if len(exact):
        sentence += (
            f"; {len(exact)} of {len(runs)} runs broke the SLO between two rates offered "
            f"({_bracket(exact)}), the capacity placed between them on a log scale of p99"
        )
    bounded = runs[runs["bound"] == "at least"]
    if len(bounded):
        sentence += (
            f"; in {len(bounded)} of {len(runs)} runs it is **only a lower bound** — "
            + "; ".join(_bound_reasons(bounded))
        )
    return sentence + "."


def lower_bound(capacities: pd.DataFrame, target: str) -> bool:
    """Whether any run's capacity of ``target`` is only a lower bound."""
    return bool(capacities.loc[capacities["target"] == target, "bound"].eq("at least").any())


def capacity_marks(capacities: pd.DataFrame) -> dict[str, tuple[float, str]]:
    """Per target, the median capacity over its valid runs and "at least" when any of
    them is only a lower bound: what a chart marks (plots.hockey_stick)."""
    marks = {}
    for target, runs in capacities.groupby("target", sort=False):
        median = float(valid_rows(runs)[CAPACITY].median())
        marks[str(target)] = (median, "at least" if lower_bound(runs, str(target)) else "")
    return marks


def capacity_label(capacities: pd.DataFrame, a: str, b: str) -> str:
    """A headline's label for a capacity comparison, naming a side whose capacity is only
    a lower bound: the ratio's verdict alone would not say so."""
    bounded = [t for t in (a, b) if lower_bound(capacities, t)]
    note = f" ({' and '.join(bounded)}: only a lower bound)" if bounded else ""
    return f"{a} vs {b}: requests per second within the SLO{note}"


def capacity_comparison(capacities: pd.DataFrame, a: str, b: str) -> str:
    """The capacity ratio a/b with its CI and p (stats.compare), in words, saying when it is
    only a bound: a lower bound when a's capacities are, an upper bound when b's are."""
    va = valid_rows(capacities[capacities["target"] == a])[CAPACITY].dropna()
    vb = valid_rows(capacities[capacities["target"] == b])[CAPACITY].dropna()
    if va.empty or vb.empty:
        return (
            f"**{a}** and **{b}** cannot be ranked on capacity at their SLO: "
            f"no capacity measured for **{a if va.empty else b}**."
        )
    c = compare(va, vb)
    bounded = {t: lower_bound(capacities, t) for t in (a, b)}
    numbers = (f"medians {fmt.count(c.median_a)} vs {fmt.count(c.median_b)} req/s; "
               f"{fmt.p_value(c.p_value)}; {c.n_a}+{c.n_b} runs")  # fmt: skip
    interval = fmt.ci(c.ratio_low, c.ratio_high, c.ratio_confidence)
    if bounded[a] and bounded[b]:
        return (
            f"**{a}** and **{b}** cannot be ranked on capacity at their SLO: both are only "
            f"lower bounds (ratio of the bounds {fmt.ratio(c.ratio)}, {interval}; {numbers})."
        )
    kind = "at least " if bounded[a] else "at most " if bounded[b] else ""
    if not c.significant:
        if kind:
            side = a if bounded[a] else b
            return (
                f"**{a}** and **{b}** cannot be ranked on capacity at their SLO: the capacity "
                f"of {side} is only a lower bound, and it does not differ significantly from "
                f"the other (ratio {fmt.ratio(c.ratio)}, {interval}; {numbers})."
            )
        return (
            f"**No significant difference** in capacity at their SLO between **{a}** and "
            f"**{b}**: ratio {fmt.ratio(c.ratio)} ({interval}; {numbers})."
        )
    sentence = (
        f"**{a}** took **{kind}{fmt.ratio(c.ratio)} the load of {b}** within its SLO "
        f"(ratio {fmt.ratio(c.ratio)}, {interval}; {numbers})."
    )
    if kind == "at least ":
        sentence += f" A lower bound, as the capacity of {a} is."
    elif kind:
        sentence += f" An upper bound, as the capacity of {b} is only a lower bound."
    return sentence


def load_table(
    results: pd.DataFrame, slos: Mapping[str, float], maxima: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """The hockey stick as numbers: per target and offered rate, the share of the
    server's closed-loop maximum, the achieved rate, median p50 and p99 with their CIs,
    how many runs met the SLO, and every flag."""
    rows = []
    for (target, rate), runs in results.groupby(["target", "target_rate"], sort=True):
        valid = valid_rows(runs)
        p50, p99 = summarize(valid["lat_p50_ms"]), summarize(valid["lat_p99_ms"])
        maximum = (maxima or {}).get(runs["server"].iloc[0], np.nan)
        met = sum(meets_slo(r, slos[str(target)]) and "rate_shortfall" not in _flags(r)
                  for _, r in valid.iterrows())  # fmt: skip
        rows.append({
            "target": target, "offered req/s": fmt.count(rate),
            "% of closed-loop max": 100 * rate / maximum,
            "achieved req/s": valid["achieved_rate"].median(),
            "p50 ms": p50.median, "p50 CI ms": fmt.interval(p50.low, p50.high, ""),
            "p99 ms": p99.median, "p99 CI ms": fmt.interval(p99.low, p99.high, ""),
            "met SLO": f"{met}/{len(runs)}", "flags": flag_counts(runs["flags"]),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index(["target", "offered req/s"])
