"""One way to run an experiment, end to end: parameters checked, services and servers
up, verified, warmed up, measured in interleaved turns, checked after every run.

Everything a notebook passes in is validated before the first process starts, and
every measurement is on disk (raw output, then its row) before the next one begins.
Load tools come from ``benchbook.measure.tools`` (``tool("wrk", connections=…)``);
this module names none of them.
"""

import tempfile
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from benchbook.measure.calibration import (
    Ceilings,
    latest_ceilings,
)
from benchbook.measure.instances import Instance, start_instance
from benchbook.measure.layout import repo_relative
from benchbook.measure.measured_run import Config, Row, measure_run
from benchbook.measure.params import as_list, parse_duration, require_int
from benchbook.measure.pinning import Pinning, plan_pinning
from benchbook.measure.registry import Registry, Target
from benchbook.measure.reuse import fingerprint, reuse_enabled, stored_run_with
from benchbook.measure.run_store import Run
from benchbook.measure.runlock import machine_lock
from benchbook.measure.servers import build_server
from benchbook.measure.targets import extra_columns, load_plan, loaded_requests, select_targets
from benchbook.measure.tools import versions
from benchbook.measure.tools.base import LoadTool
from benchbook.measure.verification import VerificationError, verify

ToolsGiven = Sequence[LoadTool | Sequence[LoadTool]] | Mapping[str, Sequence[LoadTool]]


def run(
    experiment: str,
    servers: object,
    tools: ToolsGiven,
    *,
    variants: Mapping[str, object] | None = None,
    paths: Mapping[str, object] | None = None,
    requests: Mapping[str, object] | None = None,
    mix: Mapping[str, float] | None = None,
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    records: object = 1,
    pin_cpus: bool = True,
    verify: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure every target of ``servers`` under every load of ``tools``, ``repetitions``
    times, interleaved (see run_experiment).

    ``tools``: loads from ``tool(name, …)`` (lists are flattened), or a mapping from a
    server to its own loads (e.g. open-loop rates around each server's capacity).
    ``variants``/``paths``/``requests``/``mix`` pick what each server is sent (see
    targets.select_targets); ``server_params`` a server's declared parameters (a list
    sweeps). ``verify=False`` exists for one purpose: reproducing an article that
    timed failures; the rows of a server that answers wrongly are still flagged.
    """
    registry = registry or Registry.load()
    targets, params = select_targets(registry, servers, variants, paths, requests, mix,
                                     server_params)  # fmt: skip
    configs = _configs(targets, tools)
    return run_experiment(
        experiment,
        registry,
        configs,
        warmup_s=warmup_seconds(warmup),
        repetitions=require_int("repetitions", repetitions, 1),
        server_params=params,
        records=require_int("records", records, 0),
        pinning=plan_pinning(bool(pin_cpus)),
        ceilings=latest_ceilings(),
        verify=verify,
    )


def _configs(targets: list[Target], tools: ToolsGiven) -> list[Config]:
    """Every (target, load) pair; a tool that measures several servers at once (Go's
    benchmarks: one client binary for a backend's HTTP and gRPC servers) is one
    configuration, on the first of its servers."""
    per_server = dict(tools) if isinstance(tools, Mapping) else None
    if per_server is not None:
        known = {t.server for t in targets}
        for name in per_server:
            if name not in known:
                raise ValueError(f"tools: given for {name!r}, which is not among the servers")
    configs = []
    for target in targets:
        loads = _flat(per_server.get(target.server, ()) if per_server is not None else tools)
        if not loads:
            raise ValueError(f"tools: none given for {target.server}")
        for load in loads:
            group = getattr(load, "servers", None)
            if group is None:
                configs.append(Config(target, load))
            elif target.server == next(iter(group.values())):
                configs.append(Config(target, load))
    return configs


def _flat(tools: object) -> list[LoadTool]:
    if isinstance(tools, str) or not isinstance(tools, Sequence):
        raise ValueError(f"tools: {tools!r}; give loads made by tool(name, …)")
    flat: list[LoadTool] = []
    for item in tools:
        flat += _flat(item) if isinstance(item, list | tuple) else [item]
    if not flat:
        raise ValueError("tools: none given, e.g. [tool('wrk', connections=10, duration='5s')]")
    return flat


def warmup_seconds(warmup: object) -> float:
    seconds = parse_duration("warmup", warmup, allow_zero=True)
    if seconds and (seconds < 1 or seconds != int(seconds)):
        raise ValueError(f"warmup: {seconds:g} s; load tools take whole seconds (0 to skip)")
    return seconds


def run_experiment(
    experiment: str,
    registry: Registry,
    configs: list[Config],
    *,
    warmup_s: float,
    repetitions: int,
    server_params: Mapping[str, Mapping[str, float]],
    pinning: Pinning,
    ceilings: Ceilings,
    records: int = 1,
    verify: bool = True,
) -> Run:
    """Measure every configuration (a target under a load tool) ``repetitions`` times,
    interleaved A B C A B C …, after verifying every server and warming each up once.

    Interleaving makes drift on a shared machine hit every configuration alike instead
    of whichever happened to run last. Targets on the same server instance (server,
    variant, swept parameters) share one server process and its services. Only one
    experiment measures on a machine at a time (runlock). A stored run measured with
    the same code, parameters and machine stands in when reuse is on (reuse). Each
    row's ``headroom`` is relative to ``ceilings`` (see calibration).
    """
    specs = _check_records(registry, configs, records)
    params = _parameters(registry, configs, specs, warmup_s, repetitions, server_params,
                         pinning, ceilings, records, verify)  # fmt: skip
    key = fingerprint(experiment, params)
    if reuse_enabled() and (stored := stored_run_with(key)):
        print(
            f"{experiment}: reusing run {stored.name}, measured with the same code, "
            "parameters and machine (BENCHBOOK_REUSE_RUNS=1)",
            flush=True,
        )
        return Run(stored)
    tools = list(dict.fromkeys(c.tool for c in configs))
    with machine_lock(experiment) as lock:
        run_ = Run.create(
            experiment,
            params=params,
            fingerprint=key,
            extra_columns=extra_columns(registry, _targets(configs), tools),
            tool_versions=versions(sorted({tool.name for tool in tools})),
        )
        lock.name_run(run_.run_id)
        for spec in specs.values():
            build_server(spec)
        with ExitStack() as stack:
            instances = _start(stack, registry, specs, configs, server_params, run_, pinning)
            if verify:
                for instance in instances.values():
                    verify_instance(instance, _targets(configs), records)
            _record_servers(run_, instances)
            if warmup_s:
                _warm_up_each(run_, configs, instances, warmup_s, pinning, records)
            _measure_in_turns(run_, configs, instances, repetitions, pinning, ceilings, records)
        run_.update_manifest(completed_utc=datetime.now(UTC).isoformat(timespec="seconds"))
    return run_


def _targets(configs: list[Config]) -> list[Target]:
    """Every target a configuration measures, the servers of multi-server tools too."""
    found = []
    for config in configs:
        group = getattr(config.tool, "servers", None)
        found += [Target(s) for s in group.values()] if group else [config.target]
    return list(dict.fromkeys(found))


def _check_records(registry: Registry, configs: list[Config], records: int) -> dict:
    specs = {t.server: registry.get(t.server) for t in _targets(configs)}
    for target in _targets(configs):
        for request, _ in loaded_requests(specs[target.server], target):
            if request.needs_record and not records:
                raise ValueError(
                    f"records: 0, but {target.label} sends {request.path}, which needs the "
                    "id of a created record; use records >= 1"
                )
    return specs


def _parameters(
    registry: Registry,
    configs: list[Config],
    specs: Mapping[str, object],
    warmup_s: float,
    repetitions: int,
    server_params: Mapping[str, Mapping[str, float]],
    pinning: Pinning,
    ceilings: Ceilings,
    records: int,
    verify: bool,
) -> dict[str, object]:
    """What a run is measured with, stored in its manifest and part of its fingerprint."""
    tools = list(dict.fromkeys(c.tool for c in configs))
    return {
        "targets": [t.label for t in _targets(configs)],
        "tools": sorted({tool.setting for tool in tools}),
        "loads": [asdict(tool.load) for tool in tools],
        "warmup_s": warmup_s,
        "repetitions": repetitions,
        "runs_planned": repetitions * len(configs),
        "records": records,
        "server_params": {name: dict(server_params.get(name, {})) for name in specs},
        "pinning": asdict(pinning),
        "verify_servers": verify,
        "registry": repo_relative(registry.path),
        "calibration": {"run_id": ceilings.run_id, "ceilings_rps": ceilings.by_setting},
    }


def _start(
    stack: ExitStack,
    registry: Registry,
    specs: Mapping,
    configs: list[Config],
    server_params: Mapping[str, Mapping[str, float]],
    run_: Run,
    pinning: Pinning,
) -> dict[Target, Instance]:
    """One instance (server with its services) per server, variant and swept parameter."""
    instances: dict[Target, Instance] = {}
    for target in _targets(configs):
        if target.instance not in instances:
            instances[target.instance] = start_instance(
                stack,
                registry,
                specs[target.server],
                target.instance,
                {**server_params.get(target.server, {}), **dict(target.params)},
                run_.path / "servers",
                pinning.server_cpus,
            )
    return instances


def _record_servers(run_: Run, instances: Mapping[Target, Instance]) -> None:
    run_.update_manifest(
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


def _warm_up_each(
    run_: Run,
    configs: list[Config],
    instances: Mapping[Target, Instance],
    seconds: float,
    pinning: Pinning,
    records: int,
) -> None:
    """One unrecorded run per server instance, with its first configuration's load, so
    that measured runs find the server warm. Multi-server tools warm up by their own
    first iterations (Go's benchmarks grow b.N before they time)."""
    firsts = {c.target.instance: c for c in reversed(configs) if not hasattr(c.tool, "servers")}
    for target, config in firsts.items():
        instance = instances[target]
        print(f"warm-up {instance.target.label}: {seconds:g} s", flush=True)
        instance.reset(records)
        plan = load_plan(instance, config.target, run_.raw_path(f"warmup_{config.slug}_created"))
        config.tool.run(instance.server.url, plan, run_.raw_path(f"warmup_{config.slug}"),
                        pinning.load_cpus, duration_s=seconds)  # fmt: skip


def verify_instance(instance: Instance, targets: list[Target], records: int) -> None:
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
    run_: Run,
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
            step = f"[{(rep - 1) * len(configs) + i + 1}/{total}]"
            if instance.target in dead:
                print(f"{step} {config.target.label}: skipped, its server died", flush=True)
                continue
            print(f"{step} {config.target.label} repetition {rep}/{repetitions}: "
                  + config.tool.describe(), flush=True)  # fmt: skip
            if hasattr(config.tool, "measure_together"):
                for row in config.tool.measure_together(run_, instances, rep, pinning):
                    run_.append(row)
                continue
            row = measure_run(run_, instance, config, rep, pinning, ceilings, records)
            run_.append(row)
            if "server_died" in row["flags"]:
                dead.add(instance.target)
            _print_row(row)


def _print_row(row: Row) -> None:
    if "server_died" not in row["flags"]:
        p99 = row["lat_p99_ms"]
        print(
            f"    {row['rps']:,.0f} req/s, p99 "
            + (f"{p99:.2f} ms" if p99 is not None else "n/a")
            + (f"  [{row['flags']}]" if row["flags"] else ""),
            flush=True,
        )
    if row["incident"]:
        print(f"    {row['incident']}", flush=True)


def verify_servers(servers: object, registry: Registry | None = None) -> None:
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
            verify_instance(instance, [Target(name)], records=1)
