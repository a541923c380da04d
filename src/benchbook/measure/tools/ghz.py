"""ghz: a gRPC load generator (``-c`` workers sharing ``--connections`` HTTP/2
connections, each worker calling as fast as it can, or at ``--rps`` in total).

Its ``-O json`` report gives durations as integer nanoseconds: ``total`` (the run's
wall-clock length), ``average`` (over every call, failed ones included), ``fastest``,
``slowest``, the ``latencyDistribution`` percentiles (10 … 99) and ``histogram``, which
describe only the calls that succeeded (all calls with ``--count-errors``), ``rps``
(every call, failed ones included), ``statusCodeDistribution`` (gRPC status → calls),
``errorDistribution`` (error message → calls) and ``details``, one entry per call.

ghz exits 0 even when every call failed: success is read from the status counts here.
When no call succeeded, ghz prints null distributions and 0 for fastest and slowest;
those are "no latency" (None), not zero.
"""

import json
import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchbook.measure.hosts.addresses import require_allowed
from benchbook.measure.params import counts, require_int
from benchbook.measure.tools import Calibration, Capabilities, ToolEntry, VersionPin
from benchbook.measure.tools.base import (
    LoadPlan,
    LoadRequest,
    LoadToolError,
    ToolDefaults,
    ToolRun,
    go_binary_version,
    require_exit,
    run_to_files,
)
from benchbook.runs.columns import CORE_PERCENTILES, percentile_column
from benchbook.runs.durations import parse_duration
from benchbook.runs.layout import REPO_ROOT, built_tool

# The core percentiles ghz reports itself (it stops at 99 %: p99.9 comes from its details).
REPORTED = tuple(s for s in CORE_PERCENTILES if s < 0.999)
REQUIRED = (
    "count", "total", "average", "slowest", "rps", "statusCodeDistribution",
    "errorDistribution", "latencyDistribution",
)  # fmt: skip
# An Unavailable call that never got a connection (grpc-go's dial errors); other
# Unavailable calls lost an established connection ("transport is closing", resets).
DIAL_MARKERS = ("Error while dialing", "connection refused", "dial tcp", "no such host")
RPC_CODE = re.compile(r"code = (\w+)")


class GhzError(LoadToolError, ValueError):
    """A ghz report that is not what ghz -O json writes, or that measured nothing."""


def parse_ghz_json(text: str) -> dict[str, Any]:
    """The measurement columns of a tidy row from ghz's ``-O json`` report, plus ``ok``
    (calls with status OK), ``count`` (all calls), ``non_ok`` and ``status_counts``.

    Failed calls by status: Unavailable before a connection existed (a dial error in
    ``errorDistribution``) → ``err_connect``, Unavailable on a connection that broke →
    ``err_read``, DeadlineExceeded → ``err_timeout``, any other non-OK status →
    ``non_ok``, also given as ``non_2xx``: gRPC's error statuses play the part of HTTP's
    4xx/5xx, and that is the column the checks flag. ``err_write`` is None (ghz cannot
    tell it apart) and so is ``bytes_per_s`` (ghz counts no bytes).

    Latency columns describe the calls ghz's percentiles describe (the successful ones):
    percentiles p50–p99 and the max are ghz's; p99.9, the standard deviation and, when
    some calls failed, the mean come from ``details`` (ghz's ``average`` mixes failed
    calls in), or are None without details. All are None when no call succeeded.
    """
    try:
        report = json.loads(text)
    except json.JSONDecodeError as err:
        raise GhzError(f"ghz output is not JSON ({err}); was ghz run with -O json?") from None
    if not isinstance(report, dict):
        raise GhzError("ghz output is JSON but not a report object; was ghz run with -O json?")
    missing = [key for key in REQUIRED if key not in report]
    if missing:
        raise GhzError(f"ghz report lacks {missing}; was ghz run with -O json?")
    count = report["count"]
    status_counts: dict[str, int] = report["statusCodeDistribution"] or {}
    if count == 0:
        raise GhzError("ghz made no call at all (count 0)")
    if sum(status_counts.values()) != count:
        raise GhzError(
            f"ghz's status counts {status_counts} add up to {sum(status_counts.values())}, "
            f"not to its count of {count} calls"
        )
    ok = status_counts.get("OK", 0)
    unavailable = status_counts.get("Unavailable", 0)
    timeouts = status_counts.get("DeadlineExceeded", 0)
    dial_errors = _dial_errors(report["errorDistribution"] or {})
    if dial_errors > unavailable:
        raise GhzError(
            f"ghz lists {dial_errors} dial errors but only {unavailable} Unavailable calls"
        )
    non_ok = count - ok - unavailable - timeouts
    duration_s = report["total"] / 1e9
    return {
        "duration_s": duration_s,
        "requests": count,
        "rps": report["rps"],
        "bytes_per_s": None,
        **_latency_columns(report, ok),
        "err_connect": dial_errors,
        "err_read": unavailable - dial_errors,
        "err_write": None,
        "err_timeout": timeouts,
        "non_2xx": non_ok,
        "non_ok": non_ok,
        "ok": ok,
        "count": count,
        "status_counts": dict(status_counts),
    }


def _dial_errors(error_counts: dict[str, int]) -> int:
    return sum(
        calls
        for message, calls in error_counts.items()
        if (code := RPC_CODE.search(message)) and code[1] == "Unavailable"
        if any(marker in message for marker in DIAL_MARKERS)
    )


def _latency_columns(report: dict[str, Any], ok: int) -> dict[str, float | None]:
    counts_errors = bool(report.get("options", {}).get("count-errors"))
    distribution = report["latencyDistribution"]
    if not distribution:  # no call in ghz's latency population (null when none succeeded)
        return dict.fromkeys(
            ["lat_mean_ms", "lat_stdev_ms", *map(percentile_column, CORE_PERCENTILES), "lat_max_ms"]
        )
    by_percentage = {entry["percentage"]: entry["latency"] / 1e6 for entry in distribution}
    missing = [round(100 * s) for s in REPORTED if round(100 * s) not in by_percentage]
    if missing:
        raise GhzError(f"ghz's latencyDistribution lacks the percentiles {missing}")
    latencies = _measured_latencies_ms(report, counts_errors)
    if counts_errors or ok == report["count"]:
        mean = report["average"] / 1e6
    else:
        mean = statistics.fmean(latencies) if latencies else None
    return {
        "lat_mean_ms": mean,
        "lat_stdev_ms": statistics.stdev(latencies) if latencies and len(latencies) > 1 else None,
        **{percentile_column(s): by_percentage[round(100 * s)] for s in REPORTED},
        "lat_p999_ms": _nearest_rank(latencies, 0.999) if latencies else None,
        "lat_max_ms": report["slowest"] / 1e6,
    }


def _measured_latencies_ms(report: dict[str, Any], counts_errors: bool) -> list[float] | None:
    """Sorted latencies (ms) of the calls ghz's percentiles describe, from ``details``;
    None when the details do not hold every call (ghz keeps at most 1,000,000)."""
    details = report.get("details") or []
    if len(details) != report["count"]:
        return None
    return sorted(d["latency"] / 1e6 for d in details if counts_errors or not d["error"])


def _nearest_rank(ordered: list[float], share: float) -> float:
    """The smallest value with at least ``share`` of the values at or below it, as ghz
    ranks its own percentiles."""
    return ordered[max(0, math.ceil(share * len(ordered) - 1e-9) - 1)]


# ghz runs a number of calls, not a duration: past this long (plus one second per
# DEADLINE_CALLS_PER_S calls) it is hung.
DEADLINE_GRACE_S = 60.0
DEADLINE_CALLS_PER_S = 50


@dataclass(frozen=True)
class GrpcLoad:
    """``calls`` unary calls, ``concurrency`` at a time over ``connections`` HTTP/2
    connections (ghz's -c, -n, --connections), each call given ``timeout_s``.

    A number of calls rather than a duration (ghz's -z): at -z's deadline ghz cuts the
    calls in flight and counts them as Unavailable failures."""

    concurrency: int
    calls: int
    connections: int
    timeout_s: float

    @classmethod
    def from_params(
        cls, concurrency: object, calls: object, connections: object, timeout: object
    ) -> "GrpcLoad":
        load = cls(
            concurrency=require_int("concurrency", concurrency, 1),
            calls=require_int("calls", calls, 1),
            connections=require_int("connections", connections, 1),
            timeout_s=parse_duration("timeout", timeout),
        )
        if load.connections > load.concurrency:
            raise ValueError(
                f"connections: {load.connections} is more than concurrency "
                f"({load.concurrency}); ghz spreads the concurrent calls over its connections"
            )
        return load


def ghz_command(address: str, request: LoadRequest, load: GrpcLoad, calls: int) -> list[str]:
    """The ghz command for one gRPC request of a plan (``{unique}`` in its body becomes
    ghz's per-call UUID)."""
    if request.method != "GRPC" or not request.proto:
        raise ValueError(f"ghz sends gRPC calls; {request.name} is {request.method}")
    body = (request.body or "{}").replace("{unique}", "{{newUUID}}")
    return [
        str(ghz_path()), "--insecure", "--proto", str(REPO_ROOT / request.proto),
        "--call", request.path, "-d", body, "-c", str(load.concurrency), "-n", str(calls),
        "--connections", str(load.connections), "--timeout", f"{load.timeout_s:g}s",
        "-O", "json", address,
    ]  # fmt: skip


@dataclass(frozen=True)
class Ghz(ToolDefaults):
    """ghz as a LoadTool: a closed loop of ``load.concurrency`` calls in flight. ghz
    exits 0 when every call failed: the statuses decide, and only OK calls count as
    throughput (``rps``)."""

    load: GrpcLoad
    name = "ghz"
    closed_loop = True
    extra_columns = ("ok", "non_ok")

    @property
    def slug(self) -> str:
        return f"c{self.load.concurrency}-n{self.load.calls}"

    def describe(self) -> str:
        return (
            f"ghz -c {self.load.concurrency} -n {self.load.calls} "
            f"--connections {self.load.connections}"
        )

    def row_fields(self) -> dict[str, object]:
        return {"connections": self.load.concurrency}  # calls in flight, for Little's law

    def run(
        self,
        host: str,
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        """``duration_s`` (a warm-up) sends about 200 calls per concurrent stream instead."""
        require_allowed("host", host)
        (request,) = plan.requests
        calls = self.load.concurrency * 200 if duration_s else self.load.calls
        argv = ghz_command(host.removeprefix("http://"), request, self.load, calls)
        raw_path = raw_prefix.with_name(raw_prefix.name + ".json")
        log = raw_prefix.with_name(raw_prefix.name + ".log")
        deadline = DEADLINE_GRACE_S + calls / DEADLINE_CALLS_PER_S
        finished = require_exit(run_to_files(argv, log, raw_path, cpus, deadline), "ghz", log,
                                GhzError)  # fmt: skip
        parsed = parse_ghz_json(raw_path.read_text(errors="replace"))
        measured = {k: v for k, v in parsed.items() if k not in ("count", "status_counts")}
        measured["rps"] = parsed["ok"] / parsed["duration_s"]  # failed calls are no throughput
        return ToolRun(measured, finished.wall_s, finished.client_cpu_s, raw_path)


def loads(
    concurrency: object, calls: object, connections: object = 1, timeout: object = "20s"
) -> list[Ghz]:
    """ghz with ``calls`` unary calls of the target's gRPC request, ``concurrency`` at a
    time (one level, a list, or "1,16"), over ``connections`` HTTP/2 connections."""
    return [
        Ghz(GrpcLoad.from_params(c, calls, connections, timeout))
        for c in counts("concurrency", concurrency)
    ]


def ghz_path() -> Path:
    return built_tool("ghz")


def ghz_version() -> str:
    return go_binary_version(ghz_path())


def calibration_loads(duration: object, concurrency: object, calls_per_s: object) -> list[Ghz]:
    """Enough calls to keep ghz busy for about ``duration`` at the rate it reached on
    this kind of machine (ghz counts calls, not seconds)."""
    seconds = parse_duration("duration", duration)
    calls = round(seconds * require_int("calls_per_s", calls_per_s, 1))
    return loads(concurrency, calls, connections=1)


TOOL = ToolEntry(
    name="ghz",
    make=loads,
    version=ghz_version,
    installed=ghz_path,
    pinned=VersionPin("servers/go/tools/go.mod", "github.com/bojand/ghz"),
    capabilities=Capabilities(),
    calibration=Calibration(
        "go-governance-grpc",
        calibration_loads,
        {"concurrency": 50, "calls_per_s": 8_000},
        request="HealthCheck",
    ),
    about="gRPC: a closed loop of unary calls (Go)",
)
