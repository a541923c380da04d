"""One experiment, end to end: servers up, verified, warmed up, measured in turns.

Everything a notebook passes in is validated before the first process starts, and
every measurement is on disk (raw output, then its row) before the next one begins.
"""

import os
import re
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import psutil

from benchbook import checks
from benchbook.calibration import (
    CALIBRATION_EXPERIMENT,
    NOT_CALIBRATED,
    Ceilings,
    latest_ceilings,
)
from benchbook.layout import repo_relative
from benchbook.loadgen import LoadTool, LoadToolError
from benchbook.loadgen.locust import Locust, LocustLoad
from benchbook.loadgen.wrk import Wrk, wrk_path
from benchbook.params import ClosedLoopLoad, as_list, parse_duration, require_int
from benchbook.registry import Registry, ServerSpec, Target
from benchbook.results import Run
from benchbook.runlock import machine_lock
from benchbook.sampling import (
    SamplerError,
    TreeSampler,
    cpu_seconds_between,
    host_cpu_jiffies,
    steal_pct,
)
from benchbook.servers import (
    ResponseSampler,
    RunningServer,
    build_server,
    died_message,
    server_problems,
    start_server,
    verify_server,
)


@dataclass(frozen=True)
class Pinning:
    """Disjoint CPU sets for servers and the load tool (None: not pinned).

    Pinning a Go server also sets its GOMAXPROCS, which the runtime derives from the
    CPU affinity it starts with.
    """

    server_cpus: tuple[int, ...] | None
    load_cpus: tuple[int, ...] | None


def plan_pinning(pin_cpus: bool) -> Pinning:
    cpus = sorted(os.sched_getaffinity(0))
    if not pin_cpus or len(cpus) < 2:
        return Pinning(None, None)
    half = len(cpus) // 2
    return Pinning(tuple(cpus[:half]), tuple(cpus[half:]))


def split_server_params(
    specs: Mapping[str, ServerSpec], server_params: Mapping[str, object]
) -> dict[str, dict[str, float]]:
    """Give each server the parameters it declares; a name no server declares is an error."""
    declared = {key for spec in specs.values() for key in spec.params}
    for key in server_params:
        if key not in declared:
            raise ValueError(
                f"server_params: {key!r} is not a parameter of {', '.join(specs)}; "
                f"valid choices: {', '.join(sorted(declared))}"
            )
    return {
        name: spec.resolve_params({k: v for k, v in server_params.items() if k in spec.params})
        for name, spec in specs.items()
    }


def _counts(name: str, value: object) -> list[int]:
    """One count, or several for a sweep ('-p connections 10,100' or a YAML list)."""
    if isinstance(value, int | str) and "," not in str(value):
        return [require_int(name, value, 1)]
    return [require_int(name, v, 1) for v in as_list(name, value)]


@dataclass(frozen=True)
class Config:
    """One measured configuration: a target under one load tool and load."""

    target: Target
    tool: LoadTool

    @property
    def slug(self) -> str:
        name = re.sub(r"[^A-Za-z0-9]+", "-", self.target.label).strip("-")
        return f"{name}_{self.tool.slug}"


def _warmup_seconds(warmup: object) -> float:
    seconds = parse_duration("warmup", warmup, allow_zero=True)
    if seconds and (seconds < 1 or seconds != int(seconds)):
        raise ValueError(f"warmup: {seconds:g} s; load tools take whole seconds (0 to skip)")
    return seconds


def run_wrk_experiment(
    experiment: str,
    servers: object,
    variants: Mapping[str, object] | None = None,
    paths: Mapping[str, object] | None = None,
    *,
    connections: object,
    threads: object,
    duration: object,
    timeout: object = "2s",
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure every target under every connection count with wrk (see run_experiment)."""
    registry = registry or Registry.load()
    targets = registry.targets(servers, variants, paths)
    loads = [
        ClosedLoopLoad.from_params(c, threads, duration, timeout)
        for c in _counts("connections", connections)
    ]
    wrk_path()  # fail now, not after the servers started, if wrk is missing
    return run_experiment(
        experiment,
        registry,
        targets,
        [Wrk(load) for load in loads],
        warmup_s=_warmup_seconds(warmup),
        repetitions=require_int("repetitions", repetitions, 1),
        server_params=server_params or {},
        pinning=plan_pinning(bool(pin_cpus)),
        ceilings=latest_ceilings(),
    )


def run_locust_experiment(
    experiment: str,
    servers: object,
    variants: Mapping[str, object] | None = None,
    paths: Mapping[str, object] | None = None,
    *,
    users: object,
    spawn_rate: object,
    wait: object,
    duration: object,
    user_class: object = "HttpUser",
    processes: object | None = None,
    workers: object = 0,
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure every target under every user count with Locust (see run_experiment).

    ``processes`` defaults to the cores left for the load tool once the servers have
    theirs (Locust's own ``--processes``). ``workers`` > 0 runs Locust distributed
    instead: a master expecting that many workers, started here on the same cores.
    """
    registry = registry or Registry.load()
    targets = registry.targets(servers, variants, paths)
    pinning = plan_pinning(bool(pin_cpus))
    if processes is None:
        processes = 1 if workers else len(pinning.load_cpus or os.sched_getaffinity(0))
    loads = [
        LocustLoad.from_params(u, spawn_rate, wait, duration, user_class, processes, workers)
        for u in _counts("users", users)
    ]
    return run_experiment(
        experiment,
        registry,
        targets,
        [Locust(load) for load in loads],
        warmup_s=_warmup_seconds(warmup),
        repetitions=require_int("repetitions", repetitions, 1),
        server_params=server_params or {},
        pinning=pinning,
        ceilings=latest_ceilings(),
    )


def run_calibration(
    server: str = "go-hello",
    *,
    wrk_connections: object,
    locust_users: object,
    user_classes: object,
    locust_processes: object,
    duration: object,
    warmup: object = "2s",
    repetitions: object = 5,
    registry: Registry | None = None,
) -> Run:
    """Each load-tool setting at full speed against one fast server, interleaved: wrk
    with one thread, and Locust with every user class and process count, its users
    all started in the first second and never waiting. The median req/s of each setting
    is its ceiling on this machine (see calibration)."""
    registry = registry or Registry.load()
    targets = registry.targets([server])
    wrk_path()
    connections = require_int("wrk_connections", wrk_connections, 1)
    users = require_int("locust_users", locust_users, 1)
    tools: list[LoadTool] = [
        Wrk(ClosedLoopLoad.from_params(connections, 1, duration, "2s")),
        *(
            Locust(LocustLoad.from_params(users, users, "0-0ms", duration, cls, n))
            for cls in as_list("user_classes", user_classes)
            for n in _counts("locust_processes", locust_processes)
        ),
    ]
    return run_experiment(
        CALIBRATION_EXPERIMENT,
        registry,
        targets,
        tools,
        warmup_s=_warmup_seconds(warmup),
        repetitions=require_int("repetitions", repetitions, 1),
        server_params={},
        pinning=plan_pinning(True),
        ceilings=NOT_CALIBRATED,  # measuring the ceilings themselves
    )


def run_experiment(
    experiment: str,
    registry: Registry,
    targets: list[Target],
    tools: list[LoadTool],
    *,
    warmup_s: float,
    repetitions: int,
    server_params: Mapping[str, object],
    pinning: Pinning,
    ceilings: Ceilings,
) -> Run:
    """Measure every target under every tool ``repetitions`` times, interleaved
    A B C A B C …, after verifying every server and warming each up once.

    Interleaving makes drift on a shared machine hit every configuration alike instead
    of whichever happened to run last. Targets on the same server and variant share one
    server process. Nothing starts before every parameter has been validated, and only
    one experiment measures on a machine at a time (runlock). A server that dies is
    reported, its runs flagged ``server_died``, and the others are still measured.
    Each row's ``headroom`` is relative to ``ceilings`` (see calibration).
    """
    specs = {t.server: registry.get(t.server) for t in targets}
    params_by_server = split_server_params(specs, server_params)
    configs = [Config(t, tool) for t in targets for tool in tools]
    with machine_lock(experiment) as lock:
        run = Run.create(
            experiment,
            params={
                "targets": [t.label for t in targets],
                "tools": sorted({tool.setting for tool in tools}),
                "loads": [asdict(tool.load) for tool in tools],
                "warmup_s": warmup_s,
                "repetitions": repetitions,
                "runs_planned": repetitions * len(configs),
                "server_params": params_by_server,
                "pinning": asdict(pinning),
                "registry": repo_relative(registry.path),
                "calibration": {"run_id": ceilings.run_id, "ceilings_rps": ceilings.by_setting},
            },
        )
        lock.name_run(run.run_id)
        for spec in specs.values():
            build_server(spec)
        with ExitStack() as stack:
            instances = _start_servers(stack, run, specs, targets, tools, params_by_server, pinning)
            servers_by_target = {t: instances[Target(t.server, t.variant)] for t in targets}
            for instance, server in instances.items():
                verify_server(server, _paths_of(server, instance, targets))
            run.update_manifest(
                servers={
                    s.target.label: {"command": s.process.argv, "log": repo_relative(s.log_path)}
                    for s in instances.values()
                }
            )
            if warmup_s:
                for instance, server in instances.items():
                    print(f"warm-up {instance.label}: {warmup_s:g} s", flush=True)
                    tools[-1].run(
                        server.url,
                        load_path(server, instance),
                        run.raw_path(f"warmup_{Config(instance, tools[-1]).slug}"),
                        pinning.load_cpus,
                        duration_s=warmup_s,
                    )
            _measure_in_turns(run, configs, servers_by_target, repetitions, pinning, ceilings)
        run.update_manifest(completed_utc=datetime.now(UTC).isoformat(timespec="seconds"))
    return run


def _start_servers(
    stack: ExitStack,
    run: Run,
    specs: Mapping[str, ServerSpec],
    targets: list[Target],
    tools: list[LoadTool],
    params_by_server: Mapping[str, Mapping[str, float]],
    pinning: Pinning,
) -> dict[Target, RunningServer]:
    """One process per server and variant, stopped when ``stack`` closes."""
    instances: dict[Target, RunningServer] = {}
    for target in targets:
        instance = Target(target.server, target.variant)
        if instance not in instances:
            instances[instance] = stack.enter_context(
                start_server(
                    specs[target.server],
                    instance,
                    params_by_server[target.server],
                    log_path=run.path / "servers" / f"{Config(instance, tools[0]).slug}.log",
                    cpus=pinning.server_cpus,
                )
            )
    return instances


def _paths_of(server: RunningServer, instance: Target, targets: list[Target]) -> list[str]:
    """The paths loaded on one server process."""
    return list(
        dict.fromkeys(
            load_path(server, t)
            for t in targets
            if (t.server, t.variant) == (instance.server, instance.variant)
        )
    )


def _measure_in_turns(
    run: Run,
    configs: list[Config],
    servers_by_target: Mapping[Target, RunningServer],
    repetitions: int,
    pinning: Pinning,
    ceilings: Ceilings,
) -> None:
    """The measured runs, interleaved; a server that died is skipped from then on."""
    dead: set[int] = set()  # pids of servers that exited
    total = repetitions * len(configs)
    for rep in range(1, repetitions + 1):
        for i, config in enumerate(configs):
            server = servers_by_target[config.target]
            step = (rep - 1) * len(configs) + i + 1
            if server.process.pid in dead:
                print(f"[{step}/{total}] {config.target.label}: skipped, its server died",
                      flush=True)  # fmt: skip
                continue
            print(
                f"[{step}/{total}] {config.target.label} repetition {rep}/{repetitions}: "
                + config.tool.describe(),
                flush=True,
            )
            row = measure_run(run, server, config, rep, pinning, ceilings)
            run.append(row)
            if "server_died" in row["flags"]:
                dead.add(server.process.pid)
                print(f"    {row['incident']}", flush=True)
                continue
            p99 = row["lat_p99_ms"]
            print(
                f"    {row['rps']:,.0f} req/s, p99 "
                + (f"{p99:.2f} ms" if p99 is not None else "n/a")
                + (f"  [{row['flags']}]" if row["flags"] else ""),
                flush=True,
            )
            if row["incident"]:
                print(f"    {row['incident']}", flush=True)


def load_path(server: RunningServer, target: Target) -> str:
    """The path loaded: the target's own, or the server's first registry endpoint."""
    return target.path or server.spec.endpoints[0].path


def measure_run(
    run: Run,
    server: RunningServer,
    config: Config,
    rep: int,
    pinning: Pinning,
    ceilings: Ceilings = NOT_CALIBRATED,
) -> dict[str, object]:
    """One load-tool invocation → one tidy row, raw output saved before it is parsed.

    The server's responses are sampled during the run and every endpoint re-verified
    after it: wrong answers flag the row ``bad_response``. A server that exits during
    the run gives a row flagged ``server_died`` that says what happened; its numbers,
    if the tool produced any, are kept but never ranked."""
    path = load_path(server, config.target)
    row: dict[str, object] = {
        "experiment": run.manifest()["experiment"],
        "repetition": rep,
        "target": config.target.label,
        "server": config.target.server,
        "language": server.spec.language,
        "variant": config.target.variant or "",
        "endpoint": path,
        "tool": config.tool.name,
        "tool_setting": config.tool.setting,
        **config.tool.row_fields(),
    }
    if not server.process.running():
        return row | _died(server, f"the pause before repetition {rep}")
    host_before = host_cpu_jiffies()
    try:
        with TreeSampler(server.process.pid) as sampler, ResponseSampler(server, path) as watch:
            result = config.tool.run(
                server.url, path, run.raw_path(f"rep{rep:02d}_{config.slug}"), pinning.load_cpus
            )
    except (LoadToolError, SamplerError, psutil.NoSuchProcess):
        if server.process.running():
            raise
        return row | _died(server, f"repetition {rep}")
    host_after = host_cpu_jiffies()
    usage = sampler.usage
    server_cpu_pct = usage.cpu_pct
    if result.load_phase:
        start, end = result.load_phase
        server_cpu_pct = 100 * cpu_seconds_between(sampler.cpu_timeline, start, end) / (end - start)
    row |= {
        **result.measured,
        "server_cpu_pct": round(server_cpu_pct, 1),
        "server_rss_mb": round(usage.peak_rss_mb, 1),
        "client_cpu_pct": round(100 * result.client_cpu_s / result.wall_s, 1),
        "headroom": ceilings.headroom(config.tool.setting, float(result.measured["rps"] or 0)),
        "host_steal_pct": round(steal_pct(host_before, host_after), 1),
        "raw_path": repo_relative(result.raw_path),
    }
    available = len(pinning.load_cpus or os.sched_getaffinity(0))
    flags = checks.flags_for(
        row,
        config.tool.client_cores(available),
        config.tool.closed_loop,
        ceiling_is_tools=config.tool.setting in ceilings.tool_bound,
    )
    if not server.process.running():
        return row | _died(server, f"repetition {rep}", flags)
    problems = watch.problems + [f"after the run: {p}" for p in server_problems(server, [path])]
    if problems:
        flags.append("bad_response")
        row["incident"] = (
            f"{config.target.label} served wrong responses in repetition {rep} "
            f"(verification passed before the load): " + "; ".join(problems)
        )
    else:
        row["incident"] = ""
    row["flags"] = ";".join(flags)
    return row


def _died(server: RunningServer, during: str, flags: list[str] = ()) -> dict[str, object]:
    return {"flags": ";".join([*flags, "server_died"]), "incident": died_message(server, during)}
