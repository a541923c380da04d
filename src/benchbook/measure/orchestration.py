"""One way to run an experiment, end to end: parameters checked, services and servers
up, verified, warmed up, measured in interleaved turns, checked after every run.

Everything a notebook passes in is validated before the first process starts, and
every measurement is on disk (raw output, then its row) before the next one begins.
Load tools come from ``benchbook.measure.tools`` (``tool("wrk", connections=…)``);
this module names none of them.
"""

import os
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, replace
from datetime import UTC, datetime
from pathlib import Path

from benchbook.measure.calibration import latest_ceilings
from benchbook.measure.hosts.bring_up import placed
from benchbook.measure.hosts.placement import LOCAL, HostsPlan
from benchbook.measure.instances import start_instance
from benchbook.measure.machine_speed import measure_speed, speed_change
from benchbook.measure.measured_run import Config
from benchbook.measure.params import as_list, require_int
from benchbook.measure.pinning import Pinning, plan_pinning
from benchbook.measure.profiling import Inputs, remember
from benchbook.measure.registry import Registry, Target
from benchbook.measure.reuse import fingerprint, reuse_enabled, stored_run_with
from benchbook.measure.rounds import Rounds, verify_instance
from benchbook.measure.run_store import Run
from benchbook.measure.runlock import machine_lock
from benchbook.measure.servers import build_server
from benchbook.measure.targets import extra_columns, loaded_requests, select_targets
from benchbook.measure.tools import versions
from benchbook.measure.tools.base import LoadTool
from benchbook.runs.calibration import Ceilings
from benchbook.runs.durations import parse_duration
from benchbook.runs.labels import AA_COPY
from benchbook.runs.layout import repo_relative

SPEED_RUNS = 2  # of each reference workload, before and after an experiment (~5 s in all)
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
    restart: bool = True,
    control: str | None = None,
    hosts: HostsPlan = LOCAL,
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
    ``restart`` (default) starts every server afresh for each round; False keeps one
    process for the whole experiment (say so in the notebook's method). ``control``: a
    target (its label) measured a second time in every round under another name, "<label>
    (A/A copy)": the A/A control, whose ratio to itself shows what this setup resolves.
    ``hosts`` (``measure.hosts(…)``): where servers and load tools run and the link
    between them; loopback by default.
    """
    if not isinstance(hosts, HostsPlan):
        raise ValueError(f"hosts: {hosts!r}; give measure.hosts('local' | 'netns' | 'ssh', …)")
    registry = registry or Registry.load()
    targets, params = select_targets(registry, servers, variants, paths, requests, mix,
                                     server_params)  # fmt: skip
    if control is not None:
        targets = with_control(targets, control)
    configs = _configs(targets, tools)
    _check_hosts(hosts, configs)
    warmup_s, reps = warmup_seconds(warmup), require_int("repetitions", repetitions, 1)
    records_n, pinning = require_int("records", records, 0), plan_pinning(bool(pin_cpus))
    measured = run_experiment(
        experiment, registry, configs, warmup_s=warmup_s, repetitions=reps,
        server_params=params, records=records_n, pinning=pinning,
        ceilings=latest_ceilings(), verify=verify, restart=restart, hosts=hosts,
    )  # fmt: skip
    # Kept for profiling.profile(run): the profiled phase after the rounds.
    return remember(measured, Inputs(registry, configs, params, pinning, records_n, verify))


def with_control(targets: list[Target], control: str) -> list[Target]:
    """``targets`` with an A/A copy of the one labelled ``control`` right after it."""
    labels = [t.label for t in targets]
    if control not in labels:
        raise ValueError(
            f"control: {control!r} is not a target; valid choices: {', '.join(labels)}"
        )
    at = labels.index(control) + 1
    return [*targets[:at], replace(targets[at - 1], copy=AA_COPY), *targets[at:]]


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


def _check_hosts(hosts: HostsPlan, configs: list[Config]) -> None:
    """The hosts plan can run every configuration here, or ValueError (AddressRefused)
    says why, before anything starts: a multi-server tool runs on loopback only, a load
    over several load hosts needs tools that spread it, a remote host the allow-list."""
    if hosts.kind != "local" and any(hasattr(c.tool, "measure_together") for c in configs):
        raise ValueError(
            f"hosts: {hosts.kind!r}; {configs[0].tool.name} measures several servers from one "
            "client binary on loopback and runs with hosts='local' only"
        )
    if hosts.load_hosts > 1:
        single = [c.tool.name for c in configs if not hasattr(c.tool, "run_spread")]
        if single:
            raise ValueError(
                f"hosts: {hosts.load_hosts} load hosts, but {', '.join(dict.fromkeys(single))} "
                "runs on one; tools that spread a load over several hosts: vegeta, locust"
            )
        for config in configs:
            if problem := getattr(config.tool, "spread_problem", lambda n: "")(hosts.load_hosts):
                raise ValueError(f"hosts: {problem}")
    hosts.check()


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
    restart: bool = True,
    hosts: HostsPlan = LOCAL,
) -> Run:
    """Measure every configuration (a target under a load tool) once in each of
    ``repetitions`` rounds, in a random order, on servers started afresh for each round
    (``restart``), verified and warmed up (see rounds).

    Rounds make drift on a shared machine hit every configuration alike, and let a
    comparison pair two configurations measured seconds apart. Targets on the same server
    instance (server, variant, swept parameters) share one server process. Only one
    experiment measures on a machine at a time (runlock). A stored run measured with
    the same code, parameters and machine stands in when reuse is on (reuse). Each
    row's ``headroom`` is relative to ``ceilings`` (see calibration). ``hosts``: where
    the servers and load tools run (hosts.placement); their description is in the
    manifest, and on loopback (the default) the parameters are as they always were.
    """
    specs = _check_records(registry, configs, records)
    params = _parameters(registry, configs, specs, warmup_s, repetitions, server_params,
                         pinning, ceilings, records, verify) | {"restart": restart}  # fmt: skip
    if hosts.kind != "local":
        params["hosts"] = hosts.params()
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
        rounds = Rounds(run_, registry, specs, configs, _targets(configs), server_params,
                        pinning, ceilings, records, warmup_s, verify, restart)  # fmt: skip
        _measure_on_hosts(rounds, hosts, repetitions)
    return run_


def _measure_on_hosts(rounds: Rounds, hosts: HostsPlan, repetitions: int) -> None:
    """The rounds on ``hosts``, between two readings of the machine's speed on the
    servers' CPUs (a session on a slower machine shows there, whatever the servers did);
    both, and the hosts, in the run's manifest."""
    run_, pinning = rounds.run, rounds.pinning
    before = speed_reference(pinning)
    with placed(hosts, run_.path / "hosts", pinning) as placement:
        run_.update_manifest(hosts=placement.manifest)
        rounds.placement = placement
        with placement.server_side():
            rounds.measure(repetitions)
    after = speed_reference(pinning)
    speed = {"before": before, "after": after, **speed_change(before, after)} if after else {}
    run_.update_manifest(
        hosts=placement.manifest,  # with what was measured while it ran (Toxiproxy's CPU)
        **({"machine_speed": speed} if speed else {}),
        completed_utc=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def speed_reference(pinning: Pinning) -> dict | None:
    """The machine-speed reference (machine_speed), unless BENCHBOOK_SPEED_REFERENCE=0:
    the test suite's switch, where it would add seconds to each of its many tiny runs."""
    if os.environ.get("BENCHBOOK_SPEED_REFERENCE", "1") == "0":
        return None
    return measure_speed(pinning.server_cpus, runs=SPEED_RUNS)


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
