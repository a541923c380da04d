"""Capacity at a latency objective: the highest rate an open loop may offer a server
before its p99 breaks the objective (SLO), and what kind of number that is.

Each target gets its own SLO on p99 (slo_per_target); a scan over the rates offered, one
repetition at a time and rates ascending, stops at the first that breaks it, or earlier
when the tool rather than the server stopped it: then the capacity is only a lower bound.
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from benchbook.analyse.claims.bounds import AT_LEAST, AT_MOST
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import summarize
from benchbook.analyse.rows.counted import flag_counts, valid_rows
from benchbook.analyse.words.conclusions import SERVER_BUSY_CPU_PCT
from benchbook.runs.flags import is_valid

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
NAN = float("nan")


def _failed(row: pd.Series) -> float:
    """The share of a run's requests that failed (no response, or an HTTP error)."""
    counts = [
        row.get(c) for c in ("err_connect", "err_read", "err_write", "err_timeout", "non_2xx")
    ]
    failed = float(np.nansum(np.asarray(counts, dtype=float)))
    return failed / float(row["requests"]) if row["requests"] else 1.0


def run_flags(row: pd.Series) -> set[str]:
    """The flags of a run (a row of results), as a set."""
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
            r["lat_p99_ms"] for _, r in lowest.iterrows() if "rate_shortfall" not in run_flags(r)
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

    ``limit`` (a row's ``ended_by``, apart from the rule of what set a run's rate,
    runs.limits): what ended the scan — "slo" (a rate broke it: ``rps`` is an estimate
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
    busy = client >= BUSY_CPU_PCT or "client_bound" in run_flags(row)
    return busy and server < BUSY_CPU_PCT


def _scan(runs: pd.DataFrame, slo_ms: float) -> Capacity:
    """One repetition of one target, rates ascending (see capacity_runs)."""
    passed = None
    for _, row in runs.sort_values("target_rate").iterrows():
        flags, rate = run_flags(row), float(row["target_rate"])
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
        row["flags"] = ";".join(sorted(run_flags(passed) | (run_flags(stop) & set(TOOL_FLAGS))))
    at = float(passed["target_rate"])
    return Capacity(at, at, stop_rate, limit, "at least", why, row, stop)


# The columns of the run at capacity kept in its row, so capacities read like results.
KEPT = ("run_id", "experiment", "server", "language", "variant", "tool", "tool_setting",
        "flags", "incident", "err_connect", "err_read", "err_write", "err_timeout", "non_2xx",
        "requests", "headroom", "host_steal_pct", "client_cpu_pct", "server_cpu_pct",
        "server_waits")  # fmt: skip


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
                # placed between two rates, it is at least the one that met the SLO and
                # at most the one that broke it
                CAPACITY + AT_LEAST: found.passed_rps if not found.bound else NAN,
                CAPACITY + AT_MOST: found.failed_rps if not found.bound else NAN,
                "ended_by": found.limit,
                "bound": found.bound,
                "why": found.why,
            }
            | _stop_columns(found.stop)
        )
    return pd.DataFrame(rows)


def capacity_of(
    factor: float = 10.0, floor_ms: float = 1.0, fixed_ms: float | None = None
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """capacity_runs at these SLO settings, as a headline's ``select``: every stored
    session's capacities come from the same objective as this one's."""
    return lambda results: capacity_runs(results, factor, floor_ms, fixed_ms)


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
        spread = s.n > 1 and not runs["bound"].eq("at least").any()  # a bound has no interval
        rows.append({
            "target": target,
            "unloaded p99 ms": runs["unloaded_p99_ms"].iloc[0],
            "SLO p99 ms": runs["slo_ms"].iloc[0],
            "capacity req/s": s.median,
            "capacity CI req/s": (f"{fmt.count(s.low)}–{fmt.count(s.high)}" if spread else "–"),
            "CI level": fmt.level(s.confidence).removesuffix(" CI") if spread else "–",
            "% of closed-loop max": 100 * s.median / maximum,
            "between rates req/s": rate_bracket(runs),
            "runs": len(runs),
            "bounds only": ", ".join(f"{b} {n}/{len(runs)}"
                                     for b, n in bounds.value_counts().items()) or "–",
            "flags": flag_counts(runs["flags"]),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("target")


def rate_bracket(runs: pd.DataFrame) -> str:
    """'1,610–3,230 (2 runs); 3,230–4,840 (2)': the offered rates each run's capacity lies
    between ('≥ 19,800' when only a lower bound, '< 646' when the lowest rate broke it)."""
    counts: dict[str, int] = {}
    for _, run in runs.sort_values(["passed_rps", "failed_rps"]).iterrows():
        if run["ended_by"] == "slo":
            text = f"{fmt.count(run['passed_rps'])}–{fmt.count(run['failed_rps'])}"
        elif run["ended_by"] == "never":
            text = f"< {fmt.count(run['failed_rps'])}"
        elif run["passed_rps"] == run["passed_rps"]:
            text = f"≥ {fmt.count(run['passed_rps'])}"
        else:
            text = "unknown"
        counts[text] = counts.get(text, 0) + 1
    return "; ".join(f"{text} ({n} run{'s' if n != 1 else ''})" for text, n in counts.items())


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
