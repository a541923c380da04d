"""vegeta's output, read (for tools/vegeta and the analyses of its runs).

``vegeta attack`` writes one result per request; ``vegeta report -type json`` sums
them up with durations in integer nanoseconds: ``latencies`` (``mean``, ``min``,
``max`` exact; ``50th``, ``90th``, ``95th``, ``99th`` t-digest estimates) over every
request, failed ones included; ``duration``, the span of the send times, and ``wait``,
from the last send to the last reply; ``rate``, requests / duration, the rate actually
sent (the rate asked is not in the report: a shortfall shows only as ``requests``
below rate × duration); ``throughput``, successes (status 200–399) / (duration + wait);
``status_codes`` (code as text → requests; ``"0"`` is no response at all: refused,
timed out, reset), ``errors`` (each distinct error message once, no counts),
``bytes_in``/``bytes_out`` (bodies only).

vegeta exits 0 whatever the replies were; success is read from the status codes here.
``vegeta encode -to csv`` gives the per-request results, for exact percentiles.
"""

import json
import math
import re
from collections.abc import Iterable, Sequence
from io import StringIO
from typing import Any

import pandas as pd

from benchbook.measure.tools.base import ErrorKinds, LoadToolError
from benchbook.runs.columns import percentile_column

REQUIRED = ("latencies", "bytes_in", "duration", "wait", "requests", "rate", "throughput",
            "success", "status_codes", "errors")  # fmt: skip
# `vegeta encode -to csv`, no header: lib/results.go's NewCSVEncoder, in this order.
CSV_COLUMNS = ["timestamp_ns", "code", "latency_ns", "bytes_out", "bytes_in", "error",
               "body_b64", "attack", "seq", "method", "url", "headers_b64"]  # fmt: skip
CSV_NUMBERS = ["timestamp_ns", "code", "latency_ns", "bytes_out", "bytes_in", "seq"]


class VegetaError(LoadToolError, ValueError):
    """vegeta output that is not what vegeta writes, or that measured nothing."""


# What Go's net/http says when a request got no response, by kind.
ERRORS = ErrorKinds(
    tool="vegeta",
    markers={
        "err_timeout": ("Client.Timeout", "deadline exceeded", "i/o timeout", "timeout"),
        "err_connect": ("connection refused", "dial tcp", "no such host", "connect:"),
        "err_write": ("broken pipe", "write:"),
        "err_read": ("EOF", "connection reset", "read:", "server closed"),
    },
    table="ERRORS in measure/tools/vegeta_output.py",
    error=VegetaError,
    # net/http's url.Error puts the request before the cause (Get "<url>": cause): a URL
    # must not match.
    ignore=re.compile(r'^[A-Za-z]+ "[^"]*": '),
)


def parse_vegeta_report(text: str) -> dict[str, Any]:
    """The measurement columns of a tidy row from ``vegeta report -type json``, plus
    ``achieved_rate`` (vegeta's ``rate``: requests sent per second), ``throughput``
    (successes per second) and ``status_counts`` ({code: requests}, codes as ints).

    ``duration_s`` is from the first send to the last reply (duration + wait), and
    ``rps`` and ``bytes_per_s`` (response bodies) are over it, every response counted
    as in wrk. Requests with status 0 got no response: they count as ``err_connect``,
    ``err_timeout``, ``err_read`` or ``err_write`` by what ``errors`` says; when those
    messages are of more than one kind the report cannot split them, and
    VegetaError says to count them from the per-request records
    (``error_counts_from_records``). Statuses of 400 and above are ``non_2xx``.

    Latencies are over every request, failed ones included, as vegeta reports them;
    all None when no request got a response (they would time failures). vegeta has no
    p75, p99.9 or standard deviation: None here, exact from the records.
    """
    try:
        report = json.loads(text)
    except json.JSONDecodeError as err:
        raise VegetaError(
            f"vegeta output is not JSON ({err}); was it `vegeta report -type json`?"
        ) from None
    if not isinstance(report, dict):
        raise VegetaError("vegeta output is JSON but not a report; use `vegeta report -type json`")
    missing = [key for key in REQUIRED if key not in report]
    if missing:
        raise VegetaError(f"vegeta report lacks {missing}; was it `vegeta report -type json`?")
    requests = report["requests"]
    if requests == 0:
        raise VegetaError("vegeta's report holds no request at all")
    status_counts = {int(code): n for code, n in report["status_codes"].items()}
    if sum(status_counts.values()) != requests:
        raise VegetaError(
            f"vegeta's status codes {report['status_codes']} add up to "
            f"{sum(status_counts.values())}, not to its {requests} requests"
        )
    no_response = status_counts.get(0, 0)
    duration_s = (report["duration"] + report["wait"]) / 1e9
    if duration_s <= 0:
        raise VegetaError(f"vegeta's report spans no time (duration + wait = {duration_s} s)")
    return {
        "duration_s": duration_s,
        "requests": requests,
        "rps": requests / duration_s,
        "bytes_per_s": report["bytes_in"]["total"] / duration_s,
        **_latency_columns(report["latencies"], responded=no_response < requests),
        **_split_no_response(no_response, report["errors"]),
        "non_2xx": sum(n for code, n in status_counts.items() if code >= 400),
        "achieved_rate": report["rate"],
        "throughput": report["throughput"],
        "status_counts": status_counts,
    }


def _latency_columns(latencies: dict[str, int], responded: bool) -> dict[str, float | None]:
    if not responded:
        return dict.fromkeys(
            ["lat_mean_ms", "lat_stdev_ms", "lat_p50_ms", "lat_p75_ms", "lat_p90_ms",
             "lat_p99_ms", "lat_p999_ms", "lat_max_ms"]
        )  # fmt: skip
    return {
        "lat_mean_ms": latencies["mean"] / 1e6,
        "lat_stdev_ms": None,
        "lat_p50_ms": latencies["50th"] / 1e6,
        "lat_p75_ms": None,
        "lat_p90_ms": latencies["90th"] / 1e6,
        "lat_p99_ms": latencies["99th"] / 1e6,
        "lat_p999_ms": None,
        "lat_max_ms": latencies["max"] / 1e6,
    }


def _split_no_response(no_response: int, errors: Iterable[str]) -> dict[str, int]:
    counts = dict.fromkeys(ERRORS.markers, 0)
    if not no_response:
        return counts
    # A status error's message is the HTTP status ("404 Not Found"); the rest are
    # the errors of requests that got no response.
    kinds = {ERRORS.kind(e) for e in errors if not _is_status_text(e)}
    if len(kinds) != 1:
        raise VegetaError(
            f"{no_response} requests got no response, and vegeta's errors name "
            f"{sorted(kinds) or 'no cause'}: the report cannot split them; count them "
            "from the per-request records (vegeta encode -to csv, error_counts_from_records)"
        )
    counts[kinds.pop()] = no_response
    return counts


def _is_status_text(message: str) -> bool:
    code, _, _ = message.partition(" ")
    return len(code) == 3 and code.isdigit()


def parse_vegeta_csv(text: str) -> pd.DataFrame:
    """vegeta's per-request results (``vegeta encode -to csv``), one row per request in
    CSV_COLUMNS, plus ``timestamp`` (the send time, UTC) and ``latency_ms``; ``error``
    is "" for a request without error."""
    try:
        frame = pd.read_csv(
            StringIO(text),
            header=None,
            names=CSV_COLUMNS,
            dtype={c: str for c in CSV_COLUMNS if c not in CSV_NUMBERS},
            keep_default_na=False,
        )
    except (pd.errors.ParserError, ValueError) as err:
        raise VegetaError(
            f"not vegeta's CSV results ({err}); use `vegeta encode -to csv`"
        ) from None
    if frame.empty:
        raise VegetaError("vegeta's CSV holds no request at all")
    numbers = frame[CSV_NUMBERS].apply(pd.to_numeric, errors="coerce")
    broken = numbers.isna().any(axis=1) | frame.isna().any(axis=1)
    if broken.any():
        line = int(broken.idxmax())
        raise VegetaError(
            f"vegeta CSV line {line + 1} is not a result of {len(CSV_COLUMNS)} fields "
            f"with numbers in {CSV_NUMBERS}: {text.splitlines()[line][:200]!r}"
        )
    frame[CSV_NUMBERS] = numbers.astype("int64")
    frame["timestamp"] = pd.to_datetime(frame["timestamp_ns"], unit="ns", utc=True)
    frame["latency_ms"] = frame["latency_ns"] / 1e6
    return frame


def percentiles_from_records(
    frame: pd.DataFrame, shares: Sequence[float] = (0.5, 0.75, 0.9, 0.99, 0.999)
) -> dict[str, float]:
    """Exact latency percentiles (ms) over every request of ``parse_vegeta_csv``'s
    frame, keyed by column name (``lat_p75_ms``): for each share, the smallest latency
    with at least that share of the requests at or below it (nearest rank)."""
    if frame.empty:
        raise VegetaError("no request to take percentiles of")
    ordered = frame["latency_ns"].sort_values().to_numpy()
    result = {}
    for share in shares:
        if not 0 < share <= 1:
            raise ValueError(f"share {share!r} is not in (0, 1]")
        rank = max(1, math.ceil(share * len(ordered) - 1e-9))
        result[percentile_column(share)] = float(ordered[rank - 1]) / 1e6
    return result


def error_counts_from_records(frame: pd.DataFrame) -> dict[str, int]:
    """Requests without response (status 0) counted by kind (ERRORS), and responses of
    status 400 and above as ``non_2xx``, from ``parse_vegeta_csv``'s frame."""
    messages = frame.loc[frame["code"] == 0, "error"].value_counts().items()
    counts = ERRORS.count((str(message), int(n)) for message, n in messages)
    return counts | {"non_2xx": int((frame["code"] >= 400).sum())}


def parse_hdrplot(text: str, shares: Sequence[float] = (0.5, 0.75, 0.9, 0.99, 0.999)) -> dict:
    """Latency percentiles (ms) from ``vegeta report -type hdrplot`` (vegeta's HDR
    histogram, quantiles down to 1 in a million): for each share, the value at the
    first listed quantile at or above it."""
    rows = []
    for line in text.splitlines()[1:]:
        parts = line.split()
        if len(parts) == 4:
            rows.append((float(parts[1]), float(parts[0])))
    if not rows or not text.startswith("Value(ms)"):
        raise VegetaError("not vegeta's hdrplot report (`vegeta report -type hdrplot`)")
    found = {}
    for share in shares:
        value = next((v for q, v in rows if q >= share - 1e-12), rows[-1][1])
        found[percentile_column(share)] = value
    return found


def max_in_flight(frame: pd.DataFrame) -> int:
    """The most requests that were waiting for a reply at once (from the per-request
    records): when it reaches the workers vegeta may use, the schedule slipped."""
    starts = frame["timestamp_ns"].to_numpy()
    ends = starts + frame["latency_ns"].to_numpy()
    events = sorted([(t, 1) for t in starts] + [(t, -1) for t in ends], key=lambda e: (e[0], e[1]))
    current = peak = 0
    for _, change in events:
        current += change
        peak = max(peak, current)
    return peak
