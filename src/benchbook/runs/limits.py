"""What set a rate: for every measured row, the limit it met and the figures that show it
(Brendan Gregg's USE method, "active benchmarking": while a benchmark runs, find what
limits it). A rate compares servers only where each server set its own; a rate set by
the load tool, by the users' wait, by a link, by other work on the machine, or by nothing
that was measured says something else, and the analysis words it so.

The rule reads one row (measure.measured_run writes every column it needs; ``attribute``
fills them in from the manifest for a row stored before they were) and takes the first
of these that holds:

1. **the machine**: processes outside the run's own tree used ``BUSY_FOREIGN_PCT`` of a
   core or more during the run, or the machine was still busy when measuring began
   (measure.machine_check);
2. **the load tool**: its CPU at ``CLIENT_BOUND_SHARE`` of the cores it may use, one of
   its single-threaded processes (a Locust worker) at that share of a core, or its rate
   near the most that tool setting produced in notebook 00's calibration;
3. **the offered rate**: an open-loop tool that sent what it was asked (its schedule set
   the rate, as it should);
4. **the server**: its CPU, with its services' (Redis), at ``SERVER_BOUND_SHARE`` of
   the cores it may use;
5. in a closed loop, the largest of the fixed waits in each request's cycle, by
   Little's law (rate = requests in flight ÷ (wait + response time)):
   **think time** (a user's wait between requests), **the link** (an added round trip), or
   **requests in flight** (a server that holds each request for a wait it declares —
   a sleep, a disk sync — so that its rate is the requests in flight ÷ how long it holds
   each one; or no more requests in flight than the server has cores, so none waits for
   another and each one's own time sets the rate);
6. **the machine** again, where the hypervisor stole ``BUSY_STEAL_PCT`` or more and
   nothing above was at its limit: the time it took is what the run lacked; else
   **none**: nothing measured was at its limit — not a server comparison;
7. **unrecorded**: the row holds no CPU figures to judge by (a tool that measures inside
   its own process, such as Go's benchmarks, on a run from before they were sampled).

A core the hypervisor steals from cannot give 100 %: the shares of steps 2 and 4 are of
what it left. A virtual machine whose host takes a tenth or more of the CPU (up to 52 % of
it through a make report on 2026-12-07, in 200 of its 886 runs) still shows which program
was at its limit; a server at its CPU there set its rate with less CPU than on a quiet
host, which the Validity section says with the steal it measured. Other processes are
different: they run on the cores the run was given, at times the run does not see, so
they come first.

Rows measured before the other processes' CPU was recorded cannot show a busy machine;
the rule then reads what they hold, and a busy machine shows as nothing at its limit.
"""

import math
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any

import pandas as pd

from benchbook.runs.flags import SHARE_DIGITS
from benchbook.runs.manifest import plan_of
from benchbook.runs.titles import Titles


class Limit(StrEnum):
    MACHINE = "machine"
    LOAD_TOOL = "load tool"
    OFFERED = "offered rate"
    SERVER = "server"
    THINK_TIME = "think time"
    LINK = "link"
    IN_FLIGHT = "in flight"
    NONE = "none"
    UNRECORDED = "unrecorded"


# Limits under which a rate is its server's own: its CPU, or how long it holds each
# request (its declared wait, as the load's requests in flight meet it). A comparison of
# rates is a comparison of servers only where both sides' rates are so set.
SERVER_SET = (Limit.SERVER, Limit.IN_FLIGHT)
# Limits under which a row says nothing about its target: never pooled into a headline.
NOT_COUNTED = (Limit.MACHINE, Limit.NONE)

# Chosen from the committed runs (2026-11-22…27): 95 % of the 1,069 runs of servers that
# were CPU-bound on a quiet machine (Go and FastAPI hello, the governance servers over
# HTTP, the URL shorteners' reads; quiet sessions) used 0.92 of their core or more, with
# their Redis; Rust holding a 1 ms sleep, not CPU-bound, used 0.72–0.78, and Go hello in
# the disturbed sessions 0.26–0.70.
SERVER_BOUND_SHARE = 0.85
# Of the cores the load tool may use (after the host's steal): wrk and Locust at their
# limit measured 0.93–1.00; at 0.90 the rest is sampling and start-up.
CLIENT_BOUND_SHARE = 0.90
# Percent of one core used by processes outside the run's tree. Measured 2026-12-02
# (family 6 model 167): 0–3.1 % (median 0.2 %) in the 886 runs of a quiet make report,
# 82–110 % with two busy loops at nice 19 beside notebook 02 (whose Go/FastAPI ratio fell
# from 15× to 7.1×); a tenth of a core is well clear of the first.
BUSY_FOREIGN_PCT = 10.0
# Percent of the machine's CPU time the hypervisor gave to other guests, at or above
# which a run where nothing else was at its limit was set by the machine.
BUSY_STEAL_PCT = 10.0
# An open-loop tool that sent this share of its target rate or more kept its schedule
# (the tools' own rate_shortfall flag is raised below 0.95).
OFFERED_SHARE = 0.95
# A closed loop keeps `connections` requests in flight, so by Little's law
# connections ≈ rps × (mean latency + think time). Beyond this relative gap, time is spent
# somewhere the latency histogram does not see (load tool, timeouts, dropped samples).
LITTLES_LAW_TOLERANCE = 0.15

# The columns the rule reads beyond the core ones (measure writes them; attribute fills
# them in for older rows).
CONTEXT_COLUMNS = (
    "server_cores", "client_cores", "cpus_shared", "server_delay_ms", "server_waits",
    "link_rtt_ms", "think_ms", "foreign_cpu_pct", "busy_at_start",
)  # fmt: skip
# What the rule adds: the limit and the shares it was judged on.
LIMIT_COLUMNS = ("limit", "server_cpu_share", "client_cpu_share", "bound_share")


def number(value: object) -> float | None:
    """A cell as a float; None for an empty cell or NaN."""
    if value is None or value == "":
        return None
    result = float(value)  # type: ignore[arg-type]
    return None if math.isnan(result) else result


def littles_law_gap(
    connections: float, rps: float, mean_latency_ms: float | None, think_ms: float = 0.0
) -> float | None:
    """Relative gap between the connections implied by Little's law and `connections`:
    each connection is busy for a response time plus its think time per request."""
    if not mean_latency_ms or not connections:
        return None
    return rps * (mean_latency_ms + think_ms) / 1000 / connections - 1


def at_least(share: float | None, threshold: float) -> bool:
    return share is not None and round(share, SHARE_DIGITS) >= threshold


def available_pct(row: Mapping[str, object]) -> float:
    """Percent of each core the hypervisor left to this machine during the run."""
    return 100 - (number(row.get("host_steal_pct")) or 0.0)


def server_share(row: Mapping[str, object]) -> float | None:
    """The server's CPU with its services', over what its cores could give after the
    host's steal: all of them when pinned apart from the load tool, else what the tool
    left of them."""
    cpu = number(row.get("server_cpu_pct"))
    cores = number(row.get("server_cores"))
    if cpu is None or not cores:
        return None
    cpu += number(row.get("service_cpu_pct")) or 0.0
    available = available_pct(row) * cores
    if row.get("cpus_shared") in (True, 1, "True", "true", 1.0):
        available -= number(row.get("client_cpu_pct")) or 0.0
    return cpu / available if available > 0 else None


def client_share(row: Mapping[str, object]) -> float | None:
    """The load tool's CPU over its cores, after the host's steal."""
    cpu = number(row.get("client_cpu_pct"))
    cores = number(row.get("client_cores"))
    if cpu is None or not cores:
        return None
    available = available_pct(row)
    return cpu / (available * cores) if available > 0 else None


def population(row: Mapping[str, object]) -> float | None:
    """Requests a closed loop keeps in flight: its connections, or its users."""
    return number(row.get("connections")) or number(row.get("users"))


def fixed_waits(row: Mapping[str, object]) -> dict[Limit, float]:
    """Each fixed wait in a request's cycle, in ms: the user's think time, the link's
    added round trip, the server's declared delay (0 where it declares a wait of no
    fixed length, such as a disk sync)."""
    waits = {
        Limit.THINK_TIME: number(row.get("think_ms")) or 0.0,
        Limit.LINK: number(row.get("link_rtt_ms")) or 0.0,
        Limit.IN_FLIGHT: number(row.get("server_delay_ms")) or 0.0,
    }
    return {limit: ms for limit, ms in waits.items() if ms > 0}


def bound_share(row: Mapping[str, object]) -> float | None:
    """The rate over what the requests in flight allow with the fixed waits and the
    server's CPU time per request alone: N ÷ (waits + CPU time). Near 1, the waits set the
    rate; far below, the requests spent time elsewhere (queueing, the machine)."""
    n, rps = population(row), number(row.get("rps"))
    cycle = sum(fixed_waits(row).values()) + (number(row.get("server_cpu_ms_per_request")) or 0.0)
    if not n or rps is None or cycle <= 0:
        return None
    return rps * cycle / 1000 / n


def _flags(row: Mapping[str, object]) -> set[str]:
    return set(str(row.get("flags") or "").split(";"))


def _busy_machine(row: Mapping[str, object]) -> bool:
    """Other processes competed with the run, during it or when it began."""
    foreign = number(row.get("foreign_cpu_pct"))
    return bool(number(row.get("busy_at_start"))) or (
        foreign is not None and foreign >= BUSY_FOREIGN_PCT
    )


def _stolen(row: Mapping[str, object]) -> bool:
    steal = number(row.get("host_steal_pct"))
    return steal is not None and steal >= BUSY_STEAL_PCT


def _tool_limited(row: Mapping[str, object]) -> bool:
    busiest = number(row.get("client_cpu_busiest_pct"))
    return (
        at_least(client_share(row), CLIENT_BOUND_SHARE)
        or (busiest is not None and at_least(busiest / 100, CLIENT_BOUND_SHARE))
        or bool({"client_bound", "near_tool_ceiling"} & _flags(row))
    )


def _offered(row: Mapping[str, object]) -> bool:
    target, achieved = number(row.get("target_rate")), number(row.get("achieved_rate"))
    return bool(target and achieved is not None and at_least(achieved / target, OFFERED_SHARE))


def limit_of(row: Mapping[str, object]) -> Limit:
    """The limit one row met (the module's docstring gives the order)."""
    if _busy_machine(row):
        return Limit.MACHINE
    if _tool_limited(row):
        return Limit.LOAD_TOOL
    if _offered(row):
        return Limit.OFFERED
    share = server_share(row)
    if share is None:
        return Limit.UNRECORDED
    if at_least(share, SERVER_BOUND_SHARE):
        return Limit.SERVER
    waits, n = fixed_waits(row), population(row)
    if number(row.get("target_rate")) is None and n:
        if waits:
            return max(waits, key=lambda limit: waits[limit])
        if str(row.get("server_waits") or "") or n <= (number(row.get("server_cores")) or 0):
            return Limit.IN_FLIGHT
    return Limit.MACHINE if _stolen(row) else Limit.NONE


def limit_columns(row: Mapping[str, object]) -> dict[str, object]:
    """The limit of one row and the shares it was judged on (LIMIT_COLUMNS)."""

    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 3)

    return {
        "limit": str(limit_of(row)),
        "server_cpu_share": rounded(server_share(row)),
        "client_cpu_share": rounded(client_share(row)),
        "bound_share": rounded(bound_share(row)),
    }


def attributed(rows: pd.DataFrame, manifest: Mapping[str, Any]) -> pd.DataFrame:
    """A stored run's rows with the limit each met: as measured where the run recorded it,
    else judged now from what the rows and the manifest hold (the cores from the plan's
    pinning, the tool's from its load, the server's waits from today's registry, the link
    from the plan's hosts); other work on the machine was not recorded then."""
    if rows.empty or "target" not in rows or "rps" not in rows:
        return rows
    if "limit" in rows and rows["limit"].fillna("").astype(str).ne("").all():
        return rows
    context = _stored_context(manifest)
    return judged(rows, context)


def judged(rows: pd.DataFrame, context: Callable[[dict], dict] = dict) -> pd.DataFrame:
    """``rows`` with LIMIT_COLUMNS judged from each row, and with what ``context`` adds to
    a row (the CONTEXT_COLUMNS it fills in) kept beside them."""
    rows = rows.copy()
    full = [row | context(row) for row in rows.to_dict("records")]
    found = [limit_columns(row) for row in full]
    for column in LIMIT_COLUMNS:
        rows[column] = [f[column] for f in found]
    for column in CONTEXT_COLUMNS:
        if any(column in row for row in full):
            rows[column] = [row.get(column) for row in full]
    return rows


def _stored_context(manifest: Mapping[str, Any]) -> Callable[[dict], dict]:
    """For one stored row, the context columns its run did not record (runs.manifest's
    plan read typed, the registry's waits)."""
    plan = plan_of(manifest)  # type: ignore[arg-type]
    cores = int(manifest["provenance"]["machine"].get("logical_cpus") or 0) or None
    server_cores = len(plan.pinning.server_cpus or ()) or cores
    load_cores = len(plan.pinning.load_cpus or ()) or cores
    link = (plan.hosts or {}).get("link") if isinstance(plan.hosts, Mapping) else None
    rtt = float((link or {}).get("added_rtt_ms") or 0)
    titles = Titles.load()

    def context(row: dict) -> dict:
        found = {k: v for k, v in row.items() if k in CONTEXT_COLUMNS and number_or_text(v)}
        load = _load_of(row, plan.loads)
        parallel = load.get("threads") or load.get("workers") or load.get("processes")
        waits = titles.waits(str(row.get("server")), str(row.get("variant") or "") or None)
        params = plan.server_params.get(str(row.get("server")), {})
        what, ms = (
            waits.resolved(params, str(row.get("request") or "").split("+")) if waits else ("", 0.0)
        )
        think = 500 * (load.get("wait_min_s", 0) + load.get("wait_max_s", 0))
        return {
            "server_cores": server_cores,
            "client_cores": min(parallel, load_cores) if parallel and load_cores else load_cores,
            "cpus_shared": not plan.pinning.server_cpus,
            "server_waits": what,
            "server_delay_ms": ms,
            "link_rtt_ms": rtt,
            "think_ms": think or None,
        } | found

    return context


def number_or_text(value: object) -> bool:
    """A cell that holds something (not empty, not NaN)."""
    if isinstance(value, str):
        return value != ""
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _load_of(row: Mapping[str, object], loads: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The plan's load a row was measured under: the first whose connections, threads and
    users the row's agree with ({} when none does)."""
    for load in loads:
        keys = [k for k in ("connections", "threads", "users") if k in load]
        if keys and all(number(row.get(k)) == load[k] for k in keys):
            return load
    return {}
