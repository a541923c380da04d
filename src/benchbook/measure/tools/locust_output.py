"""Locust's output, made into a row: the measurement columns of its final statistics
and its failures by kind (for tools/locust). Reading the output itself is
benchbook.runs.locust_output's, shared with the analyses.
"""

import csv
from pathlib import Path

from benchbook.measure.tools.base import ErrorKinds, LoadToolError
from benchbook.runs.columns import CORE_PERCENTILES, percentile_column
from benchbook.runs.locust_output import percentile_of, response_times


class LocustError(LoadToolError):
    pass


def parse_locust_stats(entries: list[dict]) -> dict[str, float | int | None]:
    """Measurement columns of a tidy row from Locust's final JSON statistics (all request
    names pooled)."""
    requests = sum(e["num_requests"] for e in entries)
    if not entries or requests == 0:
        raise LocustError("Locust's statistics hold no request at all")
    duration_s = max(e["last_request_timestamp"] for e in entries) - min(
        e["start_time"] for e in entries
    )
    histogram = response_times(entries)
    mean = sum(e["total_response_time"] for e in entries) / requests
    variance = sum(c * (v - mean) ** 2 for v, c in histogram.items()) / requests
    return {
        "duration_s": duration_s,
        "requests": requests,
        "rps": requests / duration_s,
        "bytes_per_s": sum(e["total_content_length"] for e in entries) / duration_s,
        "lat_mean_ms": mean,
        "lat_stdev_ms": variance**0.5,
        **{percentile_column(s): percentile_of(histogram, requests, s) for s in CORE_PERCENTILES},
        "lat_max_ms": max(e["max_response_time"] for e in entries),
    }


# What Locust's failures say, by kind (HttpUser's requests and FastHttpUser's
# geventhttpclient word them differently).
FAILURES = ErrorKinds(
    tool="Locust",
    markers={
        "non_2xx": ("BadStatus:", "HTTPError(", "BadStatusCode(", "status code"),
        "err_timeout": ("Timeout", "timed out", "timeout("),
        "err_connect": ("ConnectionRefused", "Connection refused", "NewConnectionError"),
        "err_read": (
            "RemoteDisconnected", "ConnectionResetError", "Connection reset", "Connection aborted",
            "IncompleteRead", "ChunkedEncodingError", "HTTPParseError", "BrokenPipe",
        ),
    },
    table="FAILURES in measure/tools/locust_output.py",
    error=LocustError,
    called="a failure",
)  # fmt: skip


def classify_failures(failures_csv: Path, total: int) -> dict[str, int]:
    """``total`` failures (from the JSON statistics) split by kind (FAILURES).
    ``<prefix>_failures.csv`` gives the kinds but, written at exit like ``_stats.csv``,
    misses some occurrences, so its shares are scaled to ``total``."""
    with open(failures_csv, newline="") as f:
        kinds = FAILURES.count((row["Error"], int(row["Occurrences"])) for row in csv.DictReader(f))
    seen = sum(kinds.values())
    if total and not seen:
        raise LocustError(f"{total} failures, but none listed in {failures_csv}")
    scaled = {kind: count * total // seen if seen else 0 for kind, count in kinds.items()}
    largest = max(kinds, key=kinds.__getitem__)
    scaled[largest] += total - sum(scaled.values())  # rounding remainder
    return scaled
