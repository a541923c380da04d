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
from typing import Any

from benchbook.loadgen import LoadToolError

PERCENTILES = {50: "lat_p50_ms", 75: "lat_p75_ms", 90: "lat_p90_ms", 99: "lat_p99_ms"}
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
            ["lat_mean_ms", "lat_stdev_ms", *PERCENTILES.values(), "lat_p999_ms", "lat_max_ms"]
        )
    by_percentage = {entry["percentage"]: entry["latency"] / 1e6 for entry in distribution}
    missing = [p for p in PERCENTILES if p not in by_percentage]
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
        **{column: by_percentage[p] for p, column in PERCENTILES.items()},
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
