"""Locust: a load generator with user behaviour (wait times), driven headless.

Final numbers come from ``--json`` on stdout, never from ``_stats.csv``, which misses
requests still being counted at exit (12-17 % of them in runs captured here), nor from
``--json-file``, which with ``--processes`` every worker writes too, so that an empty
worker array can end up in the file. Latency percentiles come from Locust's response-time histogram,
whose buckets are rounded (1 ms below 100 ms, 10 ms below 1 s, 100 ms above).
"""

import csv
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from benchbook.loadgen import Finished, ToolRun, require_loopback, run_to_files
from benchbook.params import parse_duration, require_choice, require_int

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
USER_CLASSES = {"HttpUser": "HttpUserGet", "FastHttpUser": "FastHttpUserGet"}
PERCENTILES = {0.5: "lat_p50_ms", 0.75: "lat_p75_ms", 0.9: "lat_p90_ms", 0.99: "lat_p99_ms",
               0.999: "lat_p999_ms"}  # fmt: skip


class LocustError(RuntimeError):
    pass


@dataclass(frozen=True)
class LocustLoad:
    users: int
    spawn_rate: float
    wait_min_s: float
    wait_max_s: float
    duration_s: float
    user_class: str
    processes: int

    @classmethod
    def from_params(
        cls,
        users: object,
        spawn_rate: object,
        wait: object,
        duration: object,
        user_class: object,
        processes: object = 1,
    ) -> "LocustLoad":
        """``wait`` is '10-20ms'-style text or a (min, max) pair of seconds."""
        if isinstance(wait, str):
            low, _, high = wait.partition("-")
            unit = "".join(ch for ch in high if ch.isalpha())
            wait_min = parse_duration("wait", low + unit, allow_zero=True)
            wait_max = parse_duration("wait", high, allow_zero=True)
        else:
            wait_min, wait_max = (parse_duration("wait", w, allow_zero=True) for w in wait)
        if wait_min > wait_max:
            raise ValueError(f"wait: {wait!r}; the minimum is above the maximum")
        try:
            rate = float(spawn_rate)
        except (TypeError, ValueError):
            raise ValueError(f"spawn_rate: {spawn_rate!r} is not a number (users/s)") from None
        if rate <= 0:
            raise ValueError(f"spawn_rate: {rate:g} must be above zero")
        return cls(
            users=require_int("users", users, 1),
            spawn_rate=rate,
            wait_min_s=wait_min,
            wait_max_s=wait_max,
            duration_s=parse_duration("duration", duration),
            user_class=require_choice("user_class", str(user_class), USER_CLASSES),
            processes=require_int("processes", processes, 1),
        )


def locust_command(host: str, path: str, load: LocustLoad, output_prefix: Path) -> list[str]:
    """The Locust command line; final statistics go to stdout (--json), per-second
    history and failures to ``<prefix>_*.csv``."""
    require_loopback("host", host)
    argv = [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), USER_CLASSES[load.user_class],
        "--headless", "--only-summary",
        "--users", str(load.users), "--spawn-rate", f"{load.spawn_rate:g}",
        "--run-time", f"{max(1, round(load.duration_s))}s",
        "--host", host, "--bb-path", path,
        "--bb-wait-min", f"{load.wait_min_s:g}", "--bb-wait-max", f"{load.wait_max_s:g}",
        "--json", "--csv", str(output_prefix), "--csv-full-history",
    ]  # fmt: skip
    if load.processes > 1:
        argv += ["--processes", str(load.processes)]
    return argv


def run_locust(
    host: str,
    path: str,
    load: LocustLoad,
    output_prefix: Path,
    cpus: Sequence[int] | None = None,
) -> Finished:
    """Run Locust once: statistics (stdout) to ``<prefix>.json.txt``, its log to
    ``<prefix>.log``, both on disk before anything parses them."""
    argv = locust_command(host, path, load, output_prefix)
    log_path = output_prefix.with_suffix(".log")
    finished = run_to_files(argv, log_path, stats_path(output_prefix), cpus)
    # Locust exits 1 when any request failed; that is a result, not a crash.
    if finished.exit_code not in (0, 1):
        raise LocustError(
            f"locust exited with code {finished.exit_code}; its log is {log_path}:\n"
            + log_path.read_text(errors="replace")[-2000:]
        )
    return finished


def stats_path(output_prefix: Path) -> Path:
    return output_prefix.with_name(output_prefix.name + ".json.txt")


def final_stats(stdout: str) -> list[dict]:
    """The run's final statistics: the array holding the most requests (with
    ``--processes``, the master's aggregate; the workers print empty ones)."""
    arrays = json_arrays(stdout)
    if not arrays:
        raise LocustError("no JSON statistics in Locust's output; was it run with --json?")
    return max(arrays, key=lambda a: sum(e.get("num_requests", 0) for e in a))


def json_arrays(text: str) -> list[list[dict]]:
    """Every top-level JSON array in ``text``: ``--json`` with ``--processes`` prints one
    per process (empty ones from the workers, the aggregate from the master)."""
    decoder, arrays, position = json.JSONDecoder(), [], 0
    while (start := text.find("[", position)) != -1:
        try:
            value, position = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            position = start + 1
            continue
        if isinstance(value, list):
            arrays.append(value)
    return arrays


def _percentile(histogram: dict[float, int], total: int, share: float) -> float | None:
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= share * total:
            return value
    return None


def parse_locust_stats(entries: list[dict]) -> dict[str, float | int | None]:
    """Measurement columns of a tidy row from Locust's final JSON statistics (all request
    names pooled)."""
    requests = sum(e["num_requests"] for e in entries)
    if not entries or requests == 0:
        raise LocustError("Locust's statistics hold no request at all")
    duration_s = max(e["last_request_timestamp"] for e in entries) - min(
        e["start_time"] for e in entries
    )
    histogram: dict[float, int] = {}
    for e in entries:
        for value, count in e["response_times"].items():
            histogram[float(value)] = histogram.get(float(value), 0) + count
    mean = sum(e["total_response_time"] for e in entries) / requests
    variance = sum(c * (v - mean) ** 2 for v, c in histogram.items()) / requests
    return {
        "duration_s": duration_s,
        "requests": requests,
        "rps": requests / duration_s,
        "bytes_per_s": sum(e["total_content_length"] for e in entries) / duration_s,
        "lat_mean_ms": mean,
        "lat_stdev_ms": variance**0.5,
        **{col: _percentile(histogram, requests, share) for share, col in PERCENTILES.items()},
        "lat_max_ms": max(e["max_response_time"] for e in entries),
    }


def classify_failures(failures_csv: Path, total: int) -> dict[str, int]:
    """``total`` failures (from the JSON statistics) split by kind: HTTP error statuses
    count as non_2xx, timeouts as err_timeout, anything else (refused, reset) as
    err_connect. ``<prefix>_failures.csv`` gives the kinds but, written at exit like
    ``_stats.csv``, misses some occurrences, so its shares are scaled to ``total``."""
    kinds = {"non_2xx": 0, "err_timeout": 0, "err_connect": 0}
    with open(failures_csv, newline="") as f:
        for row in csv.DictReader(f):
            error, count = row["Error"], int(row["Occurrences"])
            if "HTTPError" in error or "status code" in error.lower():
                kinds["non_2xx"] += count
            elif "timeout" in error.lower() or "timed out" in error.lower():
                kinds["err_timeout"] += count
            else:
                kinds["err_connect"] += count
    seen = sum(kinds.values())
    if total and not seen:
        raise LocustError(f"{total} failures, but none listed in {failures_csv}")
    scaled = {kind: count * total // seen if seen else 0 for kind, count in kinds.items()}
    largest = max(kinds, key=kinds.__getitem__)
    scaled[largest] += total - sum(scaled.values())  # rounding remainder
    return scaled


@dataclass(frozen=True)
class Locust:
    """Locust as a LoadTool. Users wait between requests, so it is not a closed loop in
    Little's sense: fewer than ``users`` requests are in flight."""

    load: LocustLoad
    name = "locust"
    closed_loop = False

    @property
    def slug(self) -> str:
        return f"u{self.load.users}"

    def describe(self) -> str:
        return (
            f"locust {self.load.user_class} -u{self.load.users} -r{self.load.spawn_rate:g} "
            f"-t{self.load.duration_s:g}s --processes {self.load.processes}"
        )

    def row_fields(self) -> dict[str, object]:
        return {"users": self.load.users}

    def client_cores(self, available: int) -> int:
        return min(self.load.processes, available)

    def run(
        self,
        host: str,
        path: str,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        load = replace(self.load, duration_s=duration_s) if duration_s else self.load
        finished = run_locust(host, path, load, raw_prefix, cpus)
        entries = final_stats(stats_path(raw_prefix).read_text(errors="replace"))
        failures = sum(e["num_failures"] for e in entries)
        kinds = classify_failures(raw_prefix.with_name(raw_prefix.name + "_failures.csv"), failures)
        measured = parse_locust_stats(entries) | kinds | {"err_read": 0, "err_write": 0}
        return ToolRun(measured, finished.wall_s, finished.client_cpu_s, stats_path(raw_prefix))
