"""One experiment, end to end: services and servers up, verified, warmed up, measured
in turns, checked after every run.

Everything a notebook passes in is validated before the first process starts, and
every measurement is on disk (raw output, then its row) before the next one begins.
"""

import os
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import psutil

from benchbook.measure import data_loss
from benchbook.measure.calibration import (
    CALIBRATION_EXPERIMENT,
    NOT_CALIBRATED,
    Ceilings,
    latest_ceilings,
)
from benchbook.measure.flags import flags_for
from benchbook.measure.instances import Instance, slug, start_instance
from benchbook.measure.layout import BUILD_BIN, GO_MODULE, built_tool, repo_relative
from benchbook.measure.params import ClosedLoopLoad, as_list, parse_duration, require_int
from benchbook.measure.registry import Registry, Request, ServerSpec, Target
from benchbook.measure.reuse import fingerprint, reuse_enabled, stored_run_with
from benchbook.measure.run_store import Run
from benchbook.measure.runlock import machine_lock
from benchbook.measure.sampling import (
    SamplerError,
    TreeSampler,
    cpu_seconds_between,
    host_cpu_jiffies,
    steal_pct,
)
from benchbook.measure.servers import build_server, died_message
from benchbook.measure.tools.base import LoadPlan, LoadRequest, LoadTool, LoadToolError
from benchbook.measure.tools.ghz import Ghz, GrpcLoad
from benchbook.measure.tools.gobench import (
    compile_benchmarks,
    parse_gobench,
    run_benchmarks,
    tidy_rows,
)
from benchbook.measure.tools.locust import Locust, LocustLoad
from benchbook.measure.tools.vegeta import OpenLoopLoad, Vegeta, vegeta_path
from benchbook.measure.tools.wrk import Wrk, wrk_path
from benchbook.measure.verification import (
    ResponseSampler,
    VerificationError,
    ad_hoc_get,
    all_problems,
    request_problems,
    verify,
)

SERVICE_COLUMNS = ["service_cpu_pct", "service_rss_mb"]


@dataclass(frozen=True)
class Pinning:
    """Disjoint CPU sets for servers and the load tool (None: not pinned).

    Pinning a Go server also sets its GOMAXPROCS, which the runtime derives from the
    CPU affinity it starts with. A server's services run on the server's CPUs.
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
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, list[object]]]]:
    """Give each server the parameters it declares: fixed values, checked, and swept
    ones (a list, e.g. workers [1, 2, 4]: one server instance per value, the parameter a
    factor column of the results). A name no server declares is an error."""
    declared = {key for spec in specs.values() for key in spec.params}
    for key in server_params:
        if key not in declared:
            raise ValueError(
                f"server_params: {key!r} is not a parameter of {', '.join(specs)}; "
                f"valid choices: {', '.join(sorted(declared))}"
            )
    fixed: dict[str, dict[str, float]] = {}
    sweeps: dict[str, dict[str, list[object]]] = {}
    for name, spec in specs.items():
        own = {k: v for k, v in server_params.items() if k in spec.params}
        swept = {k: list(v) for k, v in own.items() if isinstance(v, list | tuple)}
        for key, values in swept.items():
            for value in values:
                spec.resolve_params({key: value})  # each value checked now
        fixed[name] = spec.resolve_params({k: v for k, v in own.items() if k not in swept})
        if swept:
            sweeps[name] = swept
    return fixed, sweeps


def select_targets(
    registry: Registry,
    servers: object,
    variants: Mapping[str, object] | None,
    paths: Mapping[str, object] | None,
    requests: Mapping[str, object] | None,
    mix: Mapping[str, float] | None,
    server_params: Mapping[str, object] | None,
) -> tuple[list[Target], dict[str, dict[str, float]]]:
    """The targets an experiment measures, and each server's fixed parameters."""
    names = as_list("servers", servers)
    specs = {name: registry.get(name) for name in names}
    fixed, sweeps = split_server_params(specs, server_params or {})
    targets = registry.targets(names, variants, paths, requests, sweeps)
    if mix:
        weights = {name: float(weight) for name, weight in dict(mix).items()}
        for spec in specs.values():
            for name in weights:
                spec.request(name)
        if any(w <= 0 for w in weights.values()):
            raise ValueError(f"mix: {mix!r}; every weight must be above zero")
        targets = list(dict.fromkeys(Target(t.server, t.variant, params=t.params) for t in targets))
        targets = [t.with_mix(tuple(weights.items())) for t in targets]
    return targets, fixed


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
        return f"{slug(self.target.label)}_{self.tool.slug}"


def _warmup_seconds(warmup: object) -> float:
    seconds = parse_duration("warmup", warmup, allow_zero=True)
    if seconds and (seconds < 1 or seconds != int(seconds)):
        raise ValueError(f"warmup: {seconds:g} s; load tools take whole seconds (0 to skip)")
    return seconds


def _measure(
    experiment: str,
    registry: Registry,
    configs: list["Config"],
    params: Mapping[str, Mapping[str, float]],
    *,
    warmup: object,
    repetitions: object,
    records: object,
    pinning: Pinning,
) -> Run:
    """run_experiment with the notebook-facing parameters checked and this machine's
    load-tool ceilings."""
    return run_experiment(
        experiment,
        registry,
        configs,
        warmup_s=_warmup_seconds(warmup),
        repetitions=require_int("repetitions", repetitions, 1),
        server_params=params,
        records=require_int("records", records, 0),
        pinning=pinning,
        ceilings=latest_ceilings(),
    )


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
    requests: Mapping[str, object] | None = None,
    mix: Mapping[str, float] | None = None,
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    records: object = 1,
    uncorrected: bool = False,
    think: object = 0,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure every target under every connection count with wrk (see run_experiment).
    ``think``: each connection waits this long after a reply before its next request
    (wrk's Lua ``delay()``: a closed loop at roughly connections ÷ think requests per
    second). ``uncorrected`` adds the percentiles of what wrk timed before its
    coordinated-omission fill-in (tools.wrk.uncorrected_percentiles)."""
    registry = registry or Registry.load()
    targets, params = select_targets(
        registry, servers, variants, paths, requests, mix, server_params
    )
    loads = [
        ClosedLoopLoad.from_params(c, threads, duration, timeout, think)
        for c in _counts("connections", connections)
    ]
    wrk_path()  # fail now, not after the servers started, if wrk is missing
    configs = [Config(t, Wrk(load, bool(uncorrected))) for t in targets for load in loads]
    return _measure(
        experiment,
        registry,
        configs,
        params,
        warmup=warmup,
        repetitions=repetitions,
        records=records,
        pinning=plan_pinning(bool(pin_cpus)),
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
    requests: Mapping[str, object] | None = None,
    mix: Mapping[str, float] | None = None,
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    records: object = 1,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure every target under every user count with Locust (see run_experiment).

    ``processes`` defaults to the cores left for the load tool once the servers have
    theirs (Locust's own ``--processes``). ``workers`` > 0 runs Locust distributed
    instead: a master expecting that many workers, started here on the same cores.
    ``mix`` sends several requests by weight, as a locustfile's weighted tasks do.
    """
    registry = registry or Registry.load()
    targets, params = select_targets(
        registry, servers, variants, paths, requests, mix, server_params
    )
    pinning = plan_pinning(bool(pin_cpus))
    if processes is None:
        processes = 1 if workers else len(pinning.load_cpus or os.sched_getaffinity(0))
    loads = [
        LocustLoad.from_params(u, spawn_rate, wait, duration, user_class, processes, workers)
        for u in _counts("users", users)
    ]
    configs = [Config(t, Locust(load)) for t in targets for load in loads]
    return _measure(
        experiment,
        registry,
        configs,
        params,
        warmup=warmup,
        repetitions=repetitions,
        records=records,
        pinning=pinning,
    )


def run_vegeta_experiment(
    experiment: str,
    servers: object,
    variants: Mapping[str, object] | None = None,
    paths: Mapping[str, object] | None = None,
    *,
    rates: object,
    duration: object,
    max_workers: object = 1000,
    max_connections: object = 100,
    timeout: object = "10s",
    requests: Mapping[str, object] | None = None,
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    records: object = 1,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure every target at every rate with vegeta, an open loop (see run_experiment).

    ``rates``: requests per second, one or a list; or per server, a mapping from server
    name to its own list (a sweep around each server's own capacity)."""
    registry = registry or Registry.load()
    targets, params = select_targets(registry, servers, variants, paths, requests, None,
                                     server_params)  # fmt: skip
    per_server = rates if isinstance(rates, Mapping) else {t.server: rates for t in targets}
    for name in per_server:
        if name not in {t.server for t in targets}:
            raise ValueError(f"rates: given for {name!r}, which is not among the servers")

    def loads(server: str) -> list[OpenLoopLoad]:
        if server not in per_server:
            raise ValueError(f"rates: none given for {server}")
        given = per_server[server]
        return [
            OpenLoopLoad.from_params(rate, duration, max_workers, max_connections, timeout)
            for rate in (given if isinstance(given, list | tuple) else [given])
        ]

    vegeta_path()  # fail now, not after the servers started, if vegeta is not built
    configs = [Config(t, Vegeta(load)) for t in targets for load in loads(t.server)]
    return _measure(
        experiment,
        registry,
        configs,
        params,
        warmup=warmup,
        repetitions=repetitions,
        records=records,
        pinning=plan_pinning(bool(pin_cpus)),
    )


def wrk_tool(
    connections: object,
    threads: object,
    duration: object,
    timeout: object = "2s",
    think: object = 0,
    uncorrected: bool = False,
) -> Wrk:
    """wrk at one connection count, for run_tools_experiment (see run_wrk_experiment)."""
    wrk_path()  # fail now, not after the servers started, if wrk is missing
    load = ClosedLoopLoad.from_params(
        require_int("connections", connections, 1), threads, duration, timeout, think
    )
    return Wrk(load, bool(uncorrected))


def vegeta_tool(
    rate: object,
    duration: object,
    max_workers: object = 1000,
    max_connections: object = 100,
    timeout: object = "10s",
) -> Vegeta:
    """vegeta at one rate, for run_tools_experiment (see run_vegeta_experiment)."""
    vegeta_path()  # fail now, not after the servers started, if vegeta is not built
    return Vegeta(OpenLoopLoad.from_params(rate, duration, max_workers, max_connections, timeout))


def run_tools_experiment(
    experiment: str,
    servers: object,
    tools: Sequence[LoadTool],
    *,
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    records: object = 1,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Every target under each of several load tools (wrk_tool, vegeta_tool), in one run
    with their repetitions interleaved, so the tools are compared on the same server in
    the same minutes (see run_experiment). Rows tell the tools apart by ``tool``."""
    if not tools:
        raise ValueError("tools: none given, e.g. [wrk_tool(10, 1, '5s'), vegeta_tool(1000, '5s')]")
    registry = registry or Registry.load()
    targets, params = select_targets(registry, servers, None, None, None, None, server_params)
    configs = [Config(t, tool) for t in targets for tool in tools]
    return _measure(
        experiment,
        registry,
        configs,
        params,
        warmup=warmup,
        repetitions=repetitions,
        records=records,
        pinning=plan_pinning(bool(pin_cpus)),
    )


def run_ghz_experiment(
    experiment: str,
    servers: object,
    *,
    requests: Mapping[str, object],
    concurrency: object,
    calls: object,
    connections: object = 1,
    timeout: object = "20s",
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    records: object = 1,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure gRPC servers with ghz: ``calls`` calls of a registry GRPC request,
    ``concurrency`` at a time (see run_experiment); one run per concurrency level."""
    registry = registry or Registry.load()
    targets, params = select_targets(registry, servers, None, None, requests, None,
                                     server_params)  # fmt: skip
    loads = [
        GrpcLoad.from_params(c, calls, connections, timeout)
        for c in _counts("concurrency", concurrency)
    ]
    built_tool("ghz")  # fail now, not after the servers started, if ghz is not built
    configs = [Config(t, Ghz(load)) for t in targets for load in loads]
    return _measure(
        experiment,
        registry,
        configs,
        params,
        warmup=warmup,
        repetitions=repetitions,
        records=records,
        pinning=plan_pinning(bool(pin_cpus)),
    )


GOBENCH_COLUMNS = [
    "backend", "transport", "benchmark", "operation", "procs", "iterations", "ns_per_op",
    "bytes_per_op", "allocs_per_op", "errors_per_op",
]  # fmt: skip


def run_gobench_experiment(
    experiment: str,
    backends: Mapping[str, Mapping[str, str]],
    *,
    bench: str,
    package: str = "./governance/bench/",
    benchtime: str = "200ms",
    repetitions: object = 6,
    env: Mapping[str, str] | None = None,
    verify_servers: bool = True,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Go's own benchmarks as a measurement source: ``go test -bench`` clients of the
    servers of each backend (``{"python": {"http": "python-governance-http", "grpc":
    …}}``: their addresses reach the benchmarks as GOVERNANCE_<TRANSPORT>_ADDR), run
    ``repetitions`` times, interleaved across backends, on the load tool's CPUs. One
    tidy row per benchmark result: ns/op, B/op and allocs/op, and ops/s as ``rps``.

    Benchmarks here fail on any error (a failed run raises). ``verify_servers=False``
    exists for one purpose: reproducing an article that timed failures (its loop only
    logs errors, and reports ``errors/op``): such rows are flagged ``bad_response``
    and never ranked.
    """
    registry = registry or Registry.load()
    if not backends:
        raise ValueError("backends: none given, e.g. {'go': {'http': 'go-governance-http'}}")
    specs = {
        server: registry.get(server) for servers in backends.values() for server in servers.values()
    }
    reps = require_int("repetitions", repetitions, 1)
    if not bench:
        raise ValueError("bench: give a -bench pattern, e.g. 'Ops|ParallelHealth'")
    built_tool("benchstat")  # its cross-check of these rows: fail now, not after measuring
    pinning = plan_pinning(bool(pin_cpus))
    params = {
        "backends": {label: dict(servers) for label, servers in backends.items()},
        "bench": bench, "package": package, "benchtime": benchtime, "repetitions": reps,
        "env": dict(env or {}), "verify_servers": verify_servers, "pinning": asdict(pinning),
    }  # fmt: skip
    key = fingerprint(experiment, params)
    if reuse_enabled() and (stored := stored_run_with(key)):
        print(f"{experiment}: reusing run {stored.name} (BENCHBOOK_REUSE_RUNS=1)", flush=True)
        return Run(stored)
    with machine_lock(experiment) as lock:
        run = Run.create(experiment, params, key, extra_columns=GOBENCH_COLUMNS)
        lock.name_run(run.run_id)
        for spec in specs.values():
            build_server(spec)
        binary = compile_benchmarks(package, GO_MODULE, BUILD_BIN / f"{slug(package)}.test")
        with ExitStack() as stack:
            instances = {}
            for server, spec in specs.items():
                instances[server] = start_instance(
                    stack, registry, spec, Target(server), spec.resolve_params({}),
                    run.path / "servers", pinning.server_cpus,
                )  # fmt: skip
            if verify_servers:
                for server, instance in instances.items():
                    verify(instance.port, instance.spec, server)
            for rep in range(1, reps + 1):
                for label, servers in backends.items():
                    print(f"[{rep}/{reps}] go test -bench {bench!r} against {label}", flush=True)
                    addresses = {
                        f"GOVERNANCE_{transport.upper()}_ADDR": f"127.0.0.1:{instances[s].port}"
                        for transport, s in servers.items()
                    }
                    raw = run.raw_path(f"rep{rep:02d}_{slug(label)}.txt")
                    variables = {**addresses, **(env or {})}
                    finished = run_benchmarks(
                        binary, bench, benchtime, variables, raw, pinning.load_cpus
                    )
                    if finished.exit_code != 0:
                        parse_gobench(raw.read_text(errors="replace"))  # raises with the cause
                    for row in gobench_rows(run, label, servers, instances, rep, raw):
                        run.append(row)
        run.update_manifest(completed_utc=datetime.now(UTC).isoformat(timespec="seconds"))
    return run


def gobench_rows(
    run: Run,
    label: str,
    servers: Mapping[str, str],
    instances: Mapping[str, Instance],
    rep: int,
    raw: Path,
) -> list[dict[str, object]]:
    """One tidy row per benchmark result of one run of the benchmark binary."""
    rows = []
    for result in tidy_rows(parse_gobench(raw.read_text(errors="replace"))):
        server = servers[result["transport"]]
        errors = result.get("errors_per_op")
        parallel = result["benchmark"].startswith("Parallel")
        row = {
            "experiment": run.manifest()["experiment"],
            "repetition": rep,
            "target": f"{server} {result['name'].rsplit('-', 1)[0]}",
            "server": server,
            "language": instances[server].spec.language,
            "variant": "",
            "request": result["operation"],
            "tool": "go test -bench",
            "tool_setting": "go test -bench",
            # RunParallel's goroutines: SetParallelism(p) × GOMAXPROCS ("p16", suffix -P)
            "connections": int(result["operation"][1:]) * (result["procs"] or 1)
            if parallel
            else None,
            "requests": result["iterations"],
            "duration_s": result["iterations"] * result["ns_per_op"] / 1e9,
            "rps": 1e9 / result["ns_per_op"],
            "lat_mean_ms": None if parallel else result["ns_per_op"] / 1e6,
            "backend": label,
            **{c: result.get(c) for c in GOBENCH_COLUMNS if c in result and c != "backend"},
            "raw_path": repo_relative(raw),
            "flags": "bad_response" if errors else "",
            "incident": (
                f"{server} {result['name'].rsplit('-', 1)[0]}: {errors:.0%} of its iterations "
                "failed and the benchmark timed the failures (the article's loop only logs "
                "errors)"
                if errors
                else ""
            ),
        }
        rows.append(row)
    return rows


def check_servers(servers: object, registry: Registry | None = None) -> None:
    """Start each server (with its services), verify every request, stop it: what an
    experiment does before it measures anything, without recording a run. Raises
    VerificationError naming what is wrong."""
    registry = registry or Registry.load()
    for name in as_list("servers", servers):
        spec = registry.get(name)
        build_server(spec)
        with ExitStack() as stack:
            logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="benchbook-")))
            instance = start_instance(
                stack, registry, spec, Target(name), spec.resolve_params({}), logs, None
            )
            _verify(instance, [Target(name)], records=1)


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
        [Config(t, tool) for t in targets for tool in tools],
        warmup_s=_warmup_seconds(warmup),
        repetitions=require_int("repetitions", repetitions, 1),
        server_params={server: {}},
        pinning=plan_pinning(True),
        ceilings=NOT_CALIBRATED,  # measuring the ceilings themselves
    )


def extra_columns(registry: Registry, targets: list[Target], tools: list[LoadTool]) -> list[str]:
    """The columns an experiment adds to the core ones: a column per factor, what its
    tools measure beyond the core, the data-loss counts of write runs, the services'
    CPU and memory."""
    columns: list[str] = []
    for target in targets:
        spec = registry.get(target.server)
        variant = spec.variants[target.variant] if target.variant else None
        columns += [*spec.factors, *(variant.factors if variant else {}), *dict(target.params)]
    for tool in tools:
        columns += list(getattr(tool, "extra_columns", ()))
    if any(_captures(registry.get(t.server), t) for t in targets):
        columns += [*data_loss.COLUMNS, "store_commits_per_request"]
    if any(needed for t in targets for needed in _services_of(registry, t)):
        columns += SERVICE_COLUMNS
    return list(dict.fromkeys(columns))


def _services_of(registry: Registry, target: Target) -> list[str]:
    spec = registry.get(target.server)
    variant = spec.variants[target.variant] if target.variant else None
    return [*spec.services, *(variant.services if variant else {})]


def loaded_requests(spec: ServerSpec, target: Target) -> list[tuple[Request, float]]:
    """What a target sends: its mix, its request, its ad-hoc path, or the first request."""
    if target.path:
        return [(ad_hoc_get(target.path), 1.0)]
    if target.mix:
        return [(spec.request(name), weight) for name, weight in target.mix]
    return [(spec.request(target.request) if target.request else spec.requests[0], 1.0)]


def _captures(spec: ServerSpec, target: Target) -> bool:
    """Whether a target creates records, so its runs get the data-loss check."""
    return spec.records is not None and any(
        r.name == spec.records.create for r, _ in loaded_requests(spec, target)
    )


def load_plan(instance: Instance, target: Target, capture_dir: Path | None) -> LoadPlan:
    """The target's requests as load tools send them, on the instance's records."""
    requests = loaded_requests(instance.spec, target)
    ids = tuple(r.id for r in instance.records)
    plan = tuple(
        LoadRequest(
            name=target.path or request.name,
            method=request.method,
            path=request.path,
            headers=dict(request.headers),
            body=request.body,
            ids=ids if "{id}" in request.path else (),
            expected_status=request.expect.status,
            weight=weight,
            proto=request.grpc.proto if request.grpc else None,
        )
        for request, weight in requests
    )
    if not _captures(instance.spec, target):
        return LoadPlan(plan)
    create = instance.spec.request(instance.spec.records.create)
    return LoadPlan(plan, capture_status=create.expect.status, capture_dir=capture_dir)


def run_experiment(
    experiment: str,
    registry: Registry,
    configs: list["Config"],
    *,
    warmup_s: float,
    repetitions: int,
    server_params: Mapping[str, Mapping[str, float]],
    pinning: Pinning,
    ceilings: Ceilings,
    records: int = 1,
) -> Run:
    """Measure every configuration (a target under a load tool) ``repetitions`` times,
    interleaved A B C A B C …, after verifying every server and warming each up once.

    Interleaving makes drift on a shared machine hit every configuration alike instead
    of whichever happened to run last. Targets on the same server instance (server,
    variant, swept parameters) share one server process and its services. Nothing
    starts before every parameter has been validated, and only one experiment measures
    on a machine at a time (runlock). Before each measured run the instance's services
    are emptied and ``records`` records created for requests on an id. A server that
    dies is reported, its runs flagged ``server_died``, and the others still measured.
    Each row's ``headroom`` is relative to ``ceilings`` (see calibration).
    """
    targets = list(dict.fromkeys(c.target for c in configs))
    tools = list(dict.fromkeys(c.tool for c in configs))
    specs = {t.server: registry.get(t.server) for t in targets}
    for target in targets:
        for request, _ in loaded_requests(specs[target.server], target):
            if request.needs_record and not records:
                raise ValueError(
                    f"records: 0, but {target.label} sends {request.path}, which needs the "
                    "id of a created record; use records >= 1"
                )
    params = {
        "targets": [t.label for t in targets],
        "tools": sorted({tool.setting for tool in tools}),
        "loads": [asdict(tool.load) for tool in tools],
        "warmup_s": warmup_s,
        "repetitions": repetitions,
        "runs_planned": repetitions * len(configs),
        "records": records,
        "server_params": {name: dict(server_params.get(name, {})) for name in specs},
        "pinning": asdict(pinning),
        "registry": repo_relative(registry.path),
        "calibration": {"run_id": ceilings.run_id, "ceilings_rps": ceilings.by_setting},
    }
    key = fingerprint(experiment, params)
    if reuse_enabled() and (stored := stored_run_with(key)):
        print(
            f"{experiment}: reusing run {stored.name}, measured with the same code, "
            "parameters and machine (BENCHBOOK_REUSE_RUNS=1)",
            flush=True,
        )
        return Run(stored)
    with machine_lock(experiment) as lock:
        columns = extra_columns(registry, targets, tools)
        run = Run.create(experiment, params=params, fingerprint=key, extra_columns=columns)
        lock.name_run(run.run_id)
        for spec in specs.values():
            build_server(spec)
        with ExitStack() as stack:
            instances: dict[Target, Instance] = {}
            for target in targets:
                if target.instance not in instances:
                    instance = start_instance(
                        stack,
                        registry,
                        specs[target.server],
                        target.instance,
                        {**server_params.get(target.server, {}), **dict(target.params)},
                        run.path / "servers",
                        pinning.server_cpus,
                    )
                    instances[target.instance] = instance
            for instance in instances.values():
                _verify(instance, targets, records)
            run.update_manifest(
                servers={
                    i.target.label: {
                        "command": i.server.process.argv,
                        "log": repo_relative(i.server.log_path),
                        "services": {
                            name: {"command": s.process.argv, "log": repo_relative(s.log_path)}
                            for name, s in i.services.items()
                        },
                    }
                    for i in instances.values()
                }
            )
            if warmup_s:  # once per server instance, with its first configuration's load
                firsts = {c.target.instance: c for c in reversed(configs)}
                for instance, config in firsts.items():
                    _warm_up(run, instances[instance], config.target, config.tool, warmup_s,
                             pinning, records)  # fmt: skip
            _measure_in_turns(run, configs, instances, repetitions, pinning, ceilings, records)
        run.update_manifest(completed_utc=datetime.now(UTC).isoformat(timespec="seconds"))
    return run


def _warm_up(
    run: Run,
    instance: Instance,
    target: Target,
    tool: LoadTool,
    seconds: float,
    pinning: Pinning,
    records: int,
) -> None:
    """One unrecorded run, so that measured runs find the server warm."""
    print(f"warm-up {instance.target.label}: {seconds:g} s", flush=True)
    instance.reset(records)
    slug_ = Config(target, tool).slug
    plan = load_plan(instance, target, run.raw_path(f"warmup_{slug_}_created"))
    tool.run(instance.server.url, plan, run.raw_path(f"warmup_{slug_}"), pinning.load_cpus,
             duration_s=seconds)  # fmt: skip


def _verify(instance: Instance, targets: list[Target], records: int) -> None:
    """Every registry request and every loaded path of one instance, before any load."""
    label = instance.target.label
    try:
        instance.reset(max(records, 1))
    except VerificationError as error:
        raise VerificationError(
            f"{label} failed verification, so it is not benchmarked:\n  {error}"
        ) from None
    paths = [t.path for t in targets if t.instance == instance.target and t.path]
    verify(instance.port, instance.spec, label, paths, instance.records)


def _measure_in_turns(
    run: Run,
    configs: list[Config],
    instances: Mapping[Target, Instance],
    repetitions: int,
    pinning: Pinning,
    ceilings: Ceilings,
    records: int,
) -> None:
    """The measured runs, interleaved; a server that died is skipped from then on."""
    dead: set[Target] = set()
    total = repetitions * len(configs)
    for rep in range(1, repetitions + 1):
        for i, config in enumerate(configs):
            instance = instances[config.target.instance]
            step = (rep - 1) * len(configs) + i + 1
            if instance.target in dead:
                print(f"[{step}/{total}] {config.target.label}: skipped, its server died",
                      flush=True)  # fmt: skip
                continue
            print(
                f"[{step}/{total}] {config.target.label} repetition {rep}/{repetitions}: "
                + config.tool.describe(),
                flush=True,
            )
            row = measure_run(run, instance, config, rep, pinning, ceilings, records)
            run.append(row)
            if "server_died" in row["flags"]:
                dead.add(instance.target)
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


def _sampled_request(instance: Instance, plan_requests: list[Request]) -> Request | None:
    """What to check during a run: a loaded request that writes nothing, else any
    registry request that writes nothing (checks must not add records)."""
    for request in [*plan_requests, *instance.spec.requests]:
        if not request.writes:
            return request
    return None


def measure_run(
    run: Run,
    instance: Instance,
    config: Config,
    rep: int,
    pinning: Pinning,
    ceilings: Ceilings = NOT_CALIBRATED,
    records: int = 1,
) -> dict[str, object]:
    """One load-tool invocation → one tidy row, raw output saved before it is parsed.

    The store is reset first (services emptied, records created). The server's
    responses are sampled during the run and every request re-verified after it: wrong
    answers flag the row ``bad_response``. A run that created records is checked for
    lost ones (``data_loss``). A server that exits during the run gives a row flagged
    ``server_died`` that says what happened; its numbers, if the tool produced any, are
    kept but never ranked."""
    server, target = instance.server, config.target
    requests = [r for r, _ in loaded_requests(instance.spec, target)]
    row: dict[str, object] = {
        "experiment": run.manifest()["experiment"],
        "repetition": rep,
        "target": target.label,
        "server": target.server,
        "language": instance.spec.language,
        "variant": target.variant or "",
        "request": "+".join(r.name for r in requests),
        "method": "+".join(dict.fromkeys(r.method for r in requests)),
        "endpoint": "+".join(r.path for r in requests),
        "tool": config.tool.name,
        "tool_setting": config.tool.setting,
        **instance.factors,
        **config.tool.row_fields(),
    }
    if not server.process.running():
        return row | _died(instance, f"the pause before repetition {rep}")
    raw_prefix = run.raw_path(f"rep{rep:02d}_{config.slug}")
    capture_dir = raw_prefix.with_name(raw_prefix.name + "_created")
    instance.reset(records)
    plan = load_plan(instance, target, capture_dir)
    before = instance.store_count() if plan.capture_status else None
    sampled = _sampled_request(instance, requests)
    host_before = host_cpu_jiffies()
    try:
        with ExitStack() as samplers:
            sampler = samplers.enter_context(TreeSampler(server.process.pid))
            service_samplers = [
                samplers.enter_context(TreeSampler(s.process.pid))
                for s in instance.services.values()
            ]
            watch = samplers.enter_context(
                ResponseSampler(
                    lambda: (
                        request_problems(instance.port, sampled, instance.records)
                        if sampled
                        else []
                    ),
                    server.process.running,
                )
            )
            result = config.tool.run(server.url, plan, raw_prefix, pinning.load_cpus)
    except (LoadToolError, SamplerError, psutil.NoSuchProcess):
        if server.process.running():
            raise
        return row | _died(instance, f"repetition {rep}")
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
    if service_samplers:
        row["service_cpu_pct"] = round(sum(s.usage.cpu_pct for s in service_samplers), 1)
        row["service_rss_mb"] = round(sum(s.usage.peak_rss_mb for s in service_samplers), 1)
    available = len(pinning.load_cpus or os.sched_getaffinity(0))
    flags = flags_for(
        row,
        config.tool.client_cores(available),
        config.tool.closed_loop,
        ceiling_is_tools=config.tool.setting in ceilings.tool_bound,
    )
    if not server.process.running():
        return row | _died(instance, f"repetition {rep}", flags)
    incidents = []
    if plan.capture_status and before is not None:
        after = instance.store_count()
        slack = int(row.get("connections") or row.get("users") or 0)
        found = data_loss.check(instance, capture_dir, before, after, slack)
        row |= found.columns()
        if before.commits is not None and after.commits is not None and row["requests"]:
            row["store_commits_per_request"] = round(
                (after.commits - before.commits) / float(row["requests"]), 3
            )
        if found.problems:
            flags.append("data_loss")
            incidents.append(
                f"{target.label} lost data in repetition {rep}: " + "; ".join(found.problems)
            )
    paths = [target.path] if target.path else []
    problems = watch.problems + [
        f"after the run: {p}"
        for p in all_problems(instance.port, instance.spec, paths, instance.records)
    ]
    if problems:
        flags.append("bad_response")
        incidents.append(
            f"{target.label} served wrong responses in repetition {rep} "
            f"(verification passed before the load): " + "; ".join(problems)
        )
    row["incident"] = " ".join(incidents)
    row["flags"] = ";".join(flags)
    return row


def _died(instance: Instance, during: str, flags: list[str] = ()) -> dict[str, object]:
    return {
        "flags": ";".join([*flags, "server_died"]),
        "incident": died_message(instance.server, during),
    }
