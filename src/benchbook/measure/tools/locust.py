"""Locust: a load generator with user behaviour (wait times), driven headless.

Final numbers come from ``--json`` on stdout, never from ``_stats.csv``, which misses
requests still being counted at exit (12-17 % of them in runs captured here), nor from
``--json-file``, which with ``--processes`` every worker writes too, so that an empty
worker array can end up in the file. Latency percentiles come from Locust's response-time histogram,
whose buckets are rounded (1 ms below 100 ms, 10 ms below 1 s, 100 ms above).
"""

import csv
import json
import subprocess
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd

from benchbook.measure.layout import REPO_ROOT
from benchbook.measure.params import as_list, counts, parse_duration, require_choice, require_int
from benchbook.measure.pinning import load_cores
from benchbook.measure.processes import ManagedProcess
from benchbook.measure.sampling import TreeSampler, cpu_seconds_between
from benchbook.measure.servers import free_port
from benchbook.measure.tools import Calibration, ToolEntry
from benchbook.measure.tools.base import (
    CORE_PERCENTILES,
    Finished,
    LoadPlan,
    LoadToolError,
    ToolDefaults,
    ToolRun,
    percentile_column,
    require_exit,
    require_loopback,
    run_to_files,
)

LOCUSTFILE = Path(__file__).with_name("_locustfile.py")
USER_CLASSES = {"HttpUser": "HttpUserPlan", "FastHttpUser": "FastHttpUserPlan"}
WORKERS_CONNECT_S = 30  # the master gives up (exit 1) if its workers are not all there
WORKERS_EXIT_S = 15  # workers quit when the master tells them; this long at most
# Start-up (imports, forks, workers connecting) and shutdown on top of -t; past that, hung.
DEADLINE_GRACE_S = WORKERS_CONNECT_S + 30
# The percentiles Locust prints (and articles quote): 50 % … 100 %.
LOCUST_PERCENTILES = (0.5, 0.66, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 0.9999, 1.0)


class LocustError(LoadToolError):
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
    workers: int = 0  # > 0: a master and this many workers (Locust's distributed mode)

    @classmethod
    def from_params(
        cls,
        users: object,
        spawn_rate: object,
        wait: object,
        duration: object,
        user_class: object,
        processes: object = 1,
        workers: object = 0,
    ) -> "LocustLoad":
        """``wait`` is '10-20ms'-style text or a (min, max) pair of seconds. ``processes``
        forks workers inside one Locust; ``workers`` runs a master that expects that many
        worker processes, as a distributed run across machines does."""
        if isinstance(wait, str):
            low, _, high = wait.partition("-")
            unit = "".join(ch for ch in high if ch.isalpha())
            if not any(ch.isalpha() for ch in low):  # '10-20ms': the unit is written once
                low += unit
            wait_min = parse_duration("wait", low, allow_zero=True)
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
        n_processes = require_int("processes", processes, 1)
        n_workers = require_int("workers", workers, 0)
        if n_workers and n_processes > 1:
            raise ValueError(
                f"processes: {n_processes} with workers: {n_workers}; choose one: "
                "processes forks workers inside one Locust, workers runs a master and workers"
            )
        return cls(
            users=require_int("users", users, 1),
            spawn_rate=rate,
            wait_min_s=wait_min,
            wait_max_s=wait_max,
            duration_s=parse_duration("duration", duration),
            user_class=require_choice("user_class", str(user_class), USER_CLASSES),
            processes=n_processes,
            workers=n_workers,
        )


def plan_json(plan: LoadPlan) -> str:
    """The plan as the locustfile reads it (--bb-plan)."""
    return json.dumps({"requests": [asdict(r) for r in plan.requests]}, separators=(",", ":"))


def locust_command(
    host: str,
    plan: LoadPlan,
    load: LocustLoad,
    output_prefix: Path,
    master_port: int | None = None,
) -> list[str]:
    """The Locust command line; final statistics go to stdout (--json), per-second
    history and failures to ``<prefix>_*.csv``. With ``load.workers``, the command of a
    master listening on 127.0.0.1:``master_port``."""
    require_loopback("host", host)
    argv = [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), USER_CLASSES[load.user_class],
        "--headless", "--only-summary",
        "--users", str(load.users), "--spawn-rate", f"{load.spawn_rate:g}",
        "--run-time", f"{max(1, round(load.duration_s))}s",
        "--host", host, "--bb-plan", plan_json(plan),
        "--bb-wait-min", f"{load.wait_min_s:g}", "--bb-wait-max", f"{load.wait_max_s:g}",
        "--json", "--csv", str(output_prefix), "--csv-full-history",
    ]  # fmt: skip
    if plan.capture_status and plan.capture_dir:
        plan.capture_dir.mkdir(parents=True, exist_ok=True)
        argv += [
            "--bb-capture", str(plan.capture_dir / "locust"),
            "--bb-capture-status", str(plan.capture_status),
        ]  # fmt: skip
    if load.processes > 1:
        argv += ["--processes", str(load.processes)]
    if load.workers:
        if master_port is None:
            raise ValueError("a master needs a port for its workers")
        argv += [
            "--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(master_port),
            "--expect-workers", str(load.workers),
            "--expect-workers-max-wait", str(WORKERS_CONNECT_S),
        ]  # fmt: skip
    return argv


def worker_command(master_host: str, master_port: int) -> list[str]:
    """A worker of a distributed run. The master sends it the user class, the users to
    spawn and the custom options (path, wait); on another machine, run the same command
    from a clone of this repository with the master's address."""
    return [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--worker",
        "--master-host", master_host, "--master-port", str(master_port),
    ]  # fmt: skip


def run_locust(
    host: str,
    plan: LoadPlan,
    load: LocustLoad,
    output_prefix: Path,
    cpus: Sequence[int] | None = None,
) -> Finished:
    """Run Locust once: statistics (stdout) to ``<prefix>.json.txt``, its log to
    ``<prefix>.log``, both on disk before anything parses them. With ``load.workers``,
    the workers run here too, on the same CPUs, logging to ``<prefix>_worker<i>.log``;
    their CPU time counts as the tool's."""
    log_path = output_prefix.with_suffix(".log")
    if not load.workers:
        argv = locust_command(host, plan, load, output_prefix)
        finished = run_to_files(argv, log_path, stats_path(output_prefix), cpus, deadline(load))
    else:
        finished = _run_distributed(host, plan, load, output_prefix, log_path, cpus)
    # Locust exits 1 when any request failed; that is a result, not a crash.
    return require_exit(finished, "locust", log_path, LocustError, accepted=(0, 1))


def _run_distributed(
    host: str,
    plan: LoadPlan,
    load: LocustLoad,
    output_prefix: Path,
    log_path: Path,
    cpus: Sequence[int] | None,
) -> Finished:
    port = free_port()
    output_prefix.parent.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        workers = []
        for i in range(1, load.workers + 1):
            worker_log = stack.enter_context(
                open(output_prefix.with_name(f"{output_prefix.name}_worker{i}.log"), "wb")
            )
            worker = stack.enter_context(
                ManagedProcess(
                    worker_command("127.0.0.1", port),
                    stdout=worker_log,
                    stderr=subprocess.STDOUT,
                    cpus=cpus,
                )
            )
            workers.append((worker, stack.enter_context(TreeSampler(worker.pid))))
        master = run_to_files(
            locust_command(host, plan, load, output_prefix, port),
            log_path,
            stats_path(output_prefix),
            cpus,
            deadline(load),
        )
        workers_cpu_s = sum(w.wait_with_usage(WORKERS_EXIT_S)[1] for w, _ in workers)
    return replace(
        master,
        client_cpu_s=master.client_cpu_s + workers_cpu_s,
        cpu_timelines=master.cpu_timelines + tuple(s.cpu_timeline for _, s in workers),
    )


def deadline(load: LocustLoad) -> float:
    """Seconds after which a Locust run is hung and is stopped."""
    return load.duration_s + DEADLINE_GRACE_S


def stats_path(output_prefix: Path) -> Path:
    return output_prefix.with_name(output_prefix.name + ".json.txt")


STATS_KEYS = {"name", "method", "num_requests", "num_failures", "response_times"}


def final_stats(stdout: str) -> list[dict]:
    """The run's final statistics from Locust's ``--json`` stdout: one array per
    process (with ``--processes``, empty ones from the workers and the master's
    aggregate). Anything else in stdout, or more than one non-empty array, is an error
    rather than a guess."""
    arrays = json_arrays(stdout)
    if not arrays:
        raise LocustError("no JSON statistics in Locust's output; was it run with --json?")
    for array in arrays:
        for entry in array:
            if not isinstance(entry, dict) or not STATS_KEYS <= set(entry):
                raise LocustError(
                    f"Locust's output holds a JSON array that is not request statistics "
                    f"(an entry without {sorted(STATS_KEYS)}): {str(entry)[:200]}"
                )
    filled = [array for array in arrays if array]
    if len(filled) > 1:
        raise LocustError(
            f"Locust's output holds {len(filled)} non-empty statistics arrays; expected one "
            "(the master's aggregate), so which is the run's total is unknown"
        )
    return filled[0] if filled else []


def json_arrays(text: str) -> list[list]:
    """The JSON arrays that make up ``text``, one after the other; any other content
    is an error naming where it starts."""
    decoder, arrays, position = json.JSONDecoder(), [], 0
    while (position := _skip_space(text, position)) < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            value = None
        if not isinstance(value, list):
            raise LocustError(
                f"Locust's stdout is not only JSON statistics: at character {position}: "
                f"{text[position : position + 120]!r}"
            )
        arrays.append(value)
    return arrays


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def history_path(stats_file: Path) -> Path:
    """``<prefix>_stats_history.csv`` beside ``<prefix>.json.txt``."""
    return stats_file.with_name(stats_file.name.removesuffix(".json.txt") + "_stats_history.csv")


def per_second(stats_file: Path) -> pd.DataFrame:
    """The run second by second, from its start: ``rps``, the requests completed in that
    second (exact counts from the final statistics; the last second is partial),
    ``users`` running, and ``p95_ms``, Locust's own p95 over the preceding 10 s (its
    history CSV, written every second)."""
    entries = final_stats(stats_file.read_text(errors="replace"))
    counts: dict[int, int] = {}
    for entry in entries:
        for second, count in entry["num_reqs_per_sec"].items():
            counts[int(second)] = counts.get(int(second), 0) + count
    history = pd.read_csv(history_path(stats_file), na_values=["N/A"])
    history = history[history["Name"] == "Aggregated"].set_index("Timestamp")
    seconds = sorted(set(counts) | set(history.index))
    return pd.DataFrame(
        {
            "t_s": [t - seconds[0] for t in seconds],
            "rps": [counts.get(t, 0) for t in seconds],
            "users": history["User Count"].reindex(seconds).ffill().fillna(0).astype(int).values,
            "p95_ms": history["95%"].reindex(seconds).values,
        }
    )


def steady_rps(stats_file: Path, settle_s: float) -> float:
    """Requests per second once every user is running and ``settle_s`` more has passed
    (their first requests, sent at start, no longer count), to the last whole second.
    NaN when the run was too short to settle."""
    series = per_second(stats_file)
    full = series.index[series["users"] == series["users"].max()]
    if full.empty:
        return float("nan")
    start = series.loc[full[0], "t_s"] + settle_s
    steady = series[(series["t_s"] >= start) & (series.index < series.index[-1])]
    return float(steady["rps"].mean()) if len(steady) else float("nan")


def _histogram(entries: list[dict]) -> dict[float, int]:
    """Response time (ms, rounded as Locust rounds it) → count, all names pooled."""
    histogram: dict[float, int] = {}
    for e in entries:
        for value, count in e["response_times"].items():
            histogram[float(value)] = histogram.get(float(value), 0) + count
    return histogram


def with_locust_percentiles(results: pd.DataFrame) -> pd.DataFrame:
    """Locust runs' results plus a column per percentile Locust prints (50 % … 100 %),
    each computed from the run's raw statistics."""
    rows = []
    for raw_path in results["raw_path"]:
        histogram = _histogram(final_stats((REPO_ROOT / raw_path).read_text(errors="replace")))
        total = sum(histogram.values())
        rows.append(
            {percentile_column(s): _percentile(histogram, total, s) for s in LOCUST_PERCENTILES}
        )
    return results.assign(**pd.DataFrame(rows, index=results.index))


def percentile_table(results: pd.DataFrame) -> pd.DataFrame:
    """Locust's "Response time percentiles" table (ms) per target, each percentile the
    median over the runs, and the median request count."""
    data = with_locust_percentiles(results)
    columns = {percentile_column(s): f"{100 * s:g}%" for s in LOCUST_PERCENTILES}
    table = data.groupby("target", sort=False)[[*columns, "requests"]].median()
    return table.rename(columns=columns | {"requests": "# reqs"})


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
    histogram = _histogram(entries)
    mean = sum(e["total_response_time"] for e in entries) / requests
    variance = sum(c * (v - mean) ** 2 for v, c in histogram.items()) / requests
    return {
        "duration_s": duration_s,
        "requests": requests,
        "rps": requests / duration_s,
        "bytes_per_s": sum(e["total_content_length"] for e in entries) / duration_s,
        "lat_mean_ms": mean,
        "lat_stdev_ms": variance**0.5,
        **{percentile_column(s): _percentile(histogram, requests, s) for s in CORE_PERCENTILES},
        "lat_max_ms": max(e["max_response_time"] for e in entries),
    }


# What Locust's failures say, by kind (HttpUser's requests and FastHttpUser's
# geventhttpclient word them differently): the first kind whose text matches wins.
FAILURE_KINDS = {
    "non_2xx": ("BadStatus:", "HTTPError(", "BadStatusCode(", "status code"),
    "err_timeout": ("Timeout", "timed out", "timeout("),
    "err_connect": ("ConnectionRefused", "Connection refused", "NewConnectionError"),
    "err_read": (
        "RemoteDisconnected", "ConnectionResetError", "Connection reset", "Connection aborted",
        "IncompleteRead", "ChunkedEncodingError", "HTTPParseError", "BrokenPipe",
    ),
}  # fmt: skip


def failure_kind(error: str) -> str:
    """The column a Locust failure counts in; an unknown kind is an error, not a guess."""
    for kind, markers in FAILURE_KINDS.items():
        if any(marker in error for marker in markers):
            return kind
    raise LocustError(
        f"Locust reported a failure benchbook cannot classify: {error!r}. Add what it "
        "means to FAILURE_KINDS in measure/tools/locust.py"
    )


def classify_failures(failures_csv: Path, total: int) -> dict[str, int]:
    """``total`` failures (from the JSON statistics) split by kind (FAILURE_KINDS).
    ``<prefix>_failures.csv`` gives the kinds but, written at exit like ``_stats.csv``,
    misses some occurrences, so its shares are scaled to ``total``."""
    kinds = dict.fromkeys(FAILURE_KINDS, 0)
    with open(failures_csv, newline="") as f:
        for row in csv.DictReader(f):
            kinds[failure_kind(row["Error"])] += int(row["Occurrences"])
    seen = sum(kinds.values())
    if total and not seen:
        raise LocustError(f"{total} failures, but none listed in {failures_csv}")
    scaled = {kind: count * total // seen if seen else 0 for kind, count in kinds.items()}
    largest = max(kinds, key=kinds.__getitem__)
    scaled[largest] += total - sum(scaled.values())  # rounding remainder
    return scaled


@dataclass(frozen=True)
class Locust(ToolDefaults):
    """Locust as a LoadTool. Users wait between requests, so it is not a closed loop in
    Little's sense: fewer than ``users`` requests are in flight."""

    load: LocustLoad
    name = "locust"
    closed_loop = False

    @property
    def slug(self) -> str:
        mode = f"w{self.load.workers}" if self.load.workers else f"p{self.load.processes}"
        return f"u{self.load.users}-{self.load.user_class}-{mode}"

    @property
    def setting(self) -> str:
        """What bounds Locust's throughput: its user class and how many processes
        generate load (forked with --processes or distributed workers alike)."""
        n = self.load.workers or self.load.processes
        return f"locust {self.load.user_class} x{n}"

    def describe(self) -> str:
        mode = (
            f"--master --expect-workers {self.load.workers}"
            if self.load.workers
            else f"--processes {self.load.processes}"
        )
        return (
            f"locust {self.load.user_class} -u{self.load.users} -r{self.load.spawn_rate:g} "
            f"-t{self.load.duration_s:g}s {mode}"
        )

    def row_fields(self) -> dict[str, object]:
        return {"users": self.load.users}

    def client_cores(self, available: int) -> int:
        return min(self.load.workers or self.load.processes, available)

    def run(
        self,
        host: str,
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        load = replace(self.load, duration_s=duration_s) if duration_s else self.load
        finished = run_locust(host, plan, load, raw_prefix, cpus)
        try:
            entries = final_stats(stats_path(raw_prefix).read_text(errors="replace"))
        except LocustError as err:
            log = raw_prefix.with_suffix(".log")
            tail = log.read_text(errors="replace")[-2000:]
            raise LocustError(f"{err}\nits log, {log}:\n{tail}") from None
        failures = sum(e["num_failures"] for e in entries)
        kinds = classify_failures(raw_prefix.with_name(raw_prefix.name + "_failures.csv"), failures)
        measured = parse_locust_stats(entries) | kinds | {"err_write": 0}
        start = min(e["start_time"] for e in entries)
        end = max(e["last_request_timestamp"] for e in entries)
        if end - start < 1 or not all(finished.cpu_timelines):  # too short to sample
            return ToolRun(measured, finished.wall_s, finished.client_cpu_s, stats_path(raw_prefix))
        # Locust's CPU while it generated load, from its first user to its last request:
        # start-up (imports, forks, workers connecting) and shutdown would dilute it.
        cpu_s = sum(cpu_seconds_between(t, start, end) for t in finished.cpu_timelines)
        return ToolRun(measured, end - start, cpu_s, stats_path(raw_prefix), (start, end))


def loads(
    users: object,
    spawn_rate: object,
    wait: object,
    duration: object,
    user_class: object = "HttpUser",
    processes: object | None = None,
    workers: object = 0,
) -> list[Locust]:
    """Locust at each user count (one, a list, or "100,1000").

    ``processes`` defaults to the cores the load tool gets once the servers have theirs
    (Locust's own ``--processes``). ``workers`` > 0 runs Locust distributed instead: a
    master expecting that many workers, started here on the same cores. A target's
    ``mix`` is sent by weight, as a locustfile's weighted tasks are."""
    if processes is None:
        processes = 1 if workers else load_cores()
    return [
        Locust(
            LocustLoad.from_params(u, spawn_rate, wait, duration, user_class, processes, workers)
        )  # fmt: skip
        for u in counts("users", users)
    ]


def locust_version() -> str:
    done = subprocess.run([sys.executable, "-m", "locust", "--version"], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    return (done.stdout or done.stderr).strip().splitlines()[0]


def calibration_loads(
    duration: object, users: object, user_classes: object, processes: object
) -> list[Locust]:
    """Every user class and process count, its users all started in the first second
    and never waiting: the most requests Locust itself can send."""
    return [
        load
        for cls in as_list("user_classes", user_classes)
        for n in counts("processes", processes)
        for load in loads(users, users, "0-0ms", duration, cls, n)
    ]


TOOL = ToolEntry(
    name="locust",
    make=loads,
    version=locust_version,
    calibration=Calibration(
        "go-hello",
        calibration_loads,
        {"users": 100, "user_classes": ["HttpUser", "FastHttpUser"], "processes": [1, 2]},
    ),
    about="Python users with waits between requests (HttpUser or FastHttpUser)",
)
