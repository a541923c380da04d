"""Locust: a load generator with user behaviour (wait times), driven headless, on one
load host or — its distributed mode — a master and workers spread over several.

Its output files are read by locust_output (final statistics, percentiles, failures,
the run second by second).
"""

import json
import subprocess
import sys
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from benchbook.measure.hosts.addresses import require_allowed
from benchbook.measure.hosts.exposure import LoadHost
from benchbook.measure.params import as_list, counts, require_choice, require_int
from benchbook.measure.pinning import load_cores
from benchbook.measure.sampling import busiest_process_pct, cpu_seconds_between
from benchbook.measure.servers import free_port
from benchbook.measure.tools import Calibration, Capabilities, ToolEntry, VersionPin
from benchbook.measure.tools.base import (
    Finished,
    Job,
    LoadPlan,
    ToolDefaults,
    ToolRun,
    require_exit,
    run_all_to_files,
    run_to_files,
)
from benchbook.measure.tools.locust_output import LocustError, classify_failures, parse_locust_stats
from benchbook.runs.durations import parse_duration
from benchbook.runs.locust_output import LocustOutputError, final_stats

LOCUSTFILE = Path(__file__).with_name("_locustfile.py")
USER_CLASSES = {"HttpUser": "HttpUserPlan", "FastHttpUser": "FastHttpUserPlan"}
WORKERS_CONNECT_S = 30  # the master gives up (exit 1) if its workers are not all there
WORKERS_EXIT_S = 15  # workers quit when the master tells them; this long at most
# Start-up (imports, forks, workers connecting) and shutdown on top of -t; past that, hung.
DEADLINE_GRACE_S = WORKERS_CONNECT_S + 30


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
    master_address: str = "127.0.0.1",
) -> list[str]:
    """The Locust command line; final statistics go to stdout (--json), per-second
    history and failures to ``<prefix>_*.csv``. With ``load.workers``, the command of a
    master listening on ``master_address``:``master_port``."""
    require_allowed("host", host)
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
            "--master", "--master-bind-host", master_address,
            "--master-bind-port", str(master_port),
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
    hosts: Sequence[LoadHost] = (),
) -> tuple[Finished, list[float]]:
    """Run Locust once: statistics (stdout) to ``<prefix>.json.txt``, its log to
    ``<prefix>.log``, both on disk before anything parses them. With ``load.workers``,
    a master and its workers, logging to ``<prefix>_worker<i>.log``: here, on the same
    CPUs, or, given load ``hosts``, the master on the first and the workers spread over
    the others. The workers' CPU time counts as the tool's. Also returned: the CPU
    seconds used on each load host."""
    log_path = output_prefix.with_suffix(".log")
    if not load.workers:
        argv = locust_command(host, plan, load, output_prefix)
        finished = run_to_files(argv, log_path, stats_path(output_prefix), cpus, deadline(load))
        by_host = [finished.client_cpu_s]
    else:
        here = (LoadHost(host, "127.0.0.1", nullcontext),)
        finished, by_host = _run_distributed(plan, load, output_prefix, log_path, cpus,
                                             hosts or here)  # fmt: skip
    # Locust exits 1 when any request failed; that is a result, not a crash.
    return require_exit(finished, "locust", log_path, LocustError, accepted=(0, 1)), by_host


def _run_distributed(
    plan: LoadPlan,
    load: LocustLoad,
    output_prefix: Path,
    log_path: Path,
    cpus: Sequence[int] | None,
    hosts: Sequence[LoadHost],
) -> tuple[Finished, list[float]]:
    master_host, worker_hosts = hosts[0], hosts[1:] or hosts[:1]
    with master_host.enter():
        port = free_port()
    output_prefix.parent.mkdir(parents=True, exist_ok=True)
    master_job = Job(
        locust_command(master_host.url, plan, load, output_prefix, port, master_host.address),
        log_path,
        stats_path(output_prefix),
        master_host.enter,
    )
    placed = [worker_hosts[(i - 1) % len(worker_hosts)] for i in range(1, load.workers + 1)]
    worker_jobs = [
        Job(
            worker_command(master_host.address, port),
            output_prefix.with_name(f"{output_prefix.name}_worker{i}.log"),
            None,
            on.enter,
        )
        for i, on in enumerate(placed, 1)
    ]
    # Workers first, so they are there when the master starts expecting them.
    finished = run_all_to_files([*worker_jobs, master_job], cpus, deadline(load) + WORKERS_EXIT_S)
    *workers, master = finished
    by_host = [
        sum(f.client_cpu_s for f, on in zip(finished, [*placed, master_host], strict=True)
            if on is host)
        for host in hosts
    ]  # fmt: skip
    merged = replace(
        master,
        client_cpu_s=sum(f.client_cpu_s for f in finished),
        cpu_timelines=tuple(t for f in (master, *workers) for t in f.cpu_timelines),
        process_timelines={pid: t for f in finished for pid, t in f.process_timelines.items()},
    )
    return merged, by_host


def deadline(load: LocustLoad) -> float:
    """Seconds after which a Locust run is hung and is stopped."""
    return load.duration_s + DEADLINE_GRACE_S


def stats_path(output_prefix: Path) -> Path:
    return output_prefix.with_name(output_prefix.name + ".json.txt")


@dataclass(frozen=True)
class Locust(ToolDefaults):
    """Locust as a LoadTool. Users wait between requests, so it is not a closed loop in
    Little's sense: fewer than ``users`` requests are in flight."""

    load: LocustLoad
    name = "locust"
    closed_loop = False
    extra_columns = ("client_cpu_pct_by_host", "client_cpu_busiest_pct", "think_ms")

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
        """Its users, and their mean wait between requests (a uniform wait's midpoint)."""
        think_ms = round(500 * (self.load.wait_min_s + self.load.wait_max_s), 3)
        return {"users": self.load.users} | ({"think_ms": think_ms} if think_ms else {})

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
        return self.run_spread((LoadHost(host, "127.0.0.1", nullcontext),), plan, raw_prefix,
                               cpus, duration_s)  # fmt: skip

    def spread_problem(self, load_hosts: int) -> str:
        """Why this load cannot be spread over ``load_hosts`` hosts ('' if it can)."""
        if load_hosts > 1 and self.load.workers < load_hosts - 1:
            return (
                f"locust with workers={self.load.workers} cannot spread over {load_hosts} load "
                f"hosts: the master runs on the first, give workers={load_hosts - 1} or more "
                "for the others"
            )
        return ""

    def run_spread(
        self,
        hosts: Sequence[LoadHost],
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        """Locust's distributed mode over load hosts: the master on the first, its workers
        on the others (with one host, all of it here). ``client_cpu_pct_by_host``: each
        host's share of the tool's CPU, when there are several."""
        load = replace(self.load, duration_s=duration_s) if duration_s else self.load
        url = require_allowed("host", hosts[0].url)
        finished, by_host = run_locust(url, plan, load, raw_prefix, cpus,
                                       hosts if len(hosts) > 1 else ())  # fmt: skip
        try:
            entries = final_stats(stats_path(raw_prefix).read_text(errors="replace"))
        except LocustOutputError as err:
            log = raw_prefix.with_suffix(".log")
            tail = log.read_text(errors="replace")[-2000:]
            raise LocustError(f"{err}\nits log, {log}:\n{tail}") from None
        failures = sum(e["num_failures"] for e in entries)
        kinds = classify_failures(raw_prefix.with_name(raw_prefix.name + "_failures.csv"), failures)
        measured = parse_locust_stats(entries) | kinds | {"err_write": 0}
        if len(hosts) > 1:
            measured["client_cpu_pct_by_host"] = ";".join(
                f"{100 * cpu_s / finished.wall_s:.1f}" for cpu_s in by_host
            )
        start = min(e["start_time"] for e in entries)
        end = max(e["last_request_timestamp"] for e in entries)
        if end - start < 1 or not all(finished.cpu_timelines):  # too short to sample
            return ToolRun(measured, finished.wall_s, finished.client_cpu_s, stats_path(raw_prefix))
        # Locust's CPU while it generated load, from its first user to its last request:
        # start-up (imports, forks, workers connecting) and shutdown would dilute it.
        cpu_s = sum(cpu_seconds_between(t, start, end) for t in finished.cpu_timelines)
        busiest = busiest_process_pct(finished.process_timelines, start, end)
        return ToolRun(measured, end - start, cpu_s, stats_path(raw_prefix), (start, end), busiest)


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
    pinned=VersionPin("requirements.txt", "locust"),
    capabilities=Capabilities(spreads_over_hosts=True),
    calibration=Calibration(
        "go-hello",
        calibration_loads,
        {"users": 100, "user_classes": ["HttpUser", "FastHttpUser"], "processes": [1, 2]},
    ),
    about="Python users with waits between requests (HttpUser or FastHttpUser)",
)
