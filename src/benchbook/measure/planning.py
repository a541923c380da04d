"""From what a notebook gives ``measure.run`` to an ``ExperimentPlan``: every value
checked against the registry and the load tools before any process starts.

A refusal is a ``SettingError`` naming the setting (``measure.run`` renames it to the
notebook's parameter where the notebook said which one gave it).
"""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import cast

from benchbook.measure.experiment_plan import Config, ExperimentPlan
from benchbook.measure.hosts.placement import HostsPlan
from benchbook.measure.params import SettingError, require_int
from benchbook.measure.pinning import plan_pinning
from benchbook.measure.registry import Registry, Target
from benchbook.measure.targets import select_targets
from benchbook.measure.tools import capabilities, spreading_tools
from benchbook.measure.tools.base import LoadTool, SpreadLoad
from benchbook.runs.durations import parse_duration
from benchbook.runs.labels import AA_COPY

ToolsGiven = Sequence[LoadTool | Sequence[LoadTool]] | Mapping[str, Sequence[LoadTool]]


def plan_experiment(
    experiment: str,
    servers: object,
    tools: ToolsGiven,
    *,
    variants: Mapping[str, object] | None,
    paths: Mapping[str, object] | None,
    requests: Mapping[str, object] | None,
    mix: Mapping[str, float] | None,
    warmup: object,
    repetitions: object,
    server_params: Mapping[str, object] | None,
    records: object,
    pin_cpus: bool,
    verify: bool,
    restart: bool,
    control: str | None,
    hosts: HostsPlan,
    registry: Registry | None,
    profiled: bool = False,
) -> ExperimentPlan:
    """The plan of ``measure.run``'s arguments (see its docstring), or the SettingError
    that names the first value refused. Nothing here runs or looks for a load tool, a
    build or the calibration: a stored run may stand in for the plan (reuse)."""
    if not isinstance(hosts, HostsPlan):
        raise SettingError("hosts", f"{hosts!r}; give measure.hosts('local' | 'netns' | 'ssh', …)")
    registry = registry or Registry.load()
    targets, params = select_targets(registry, servers, variants, paths, requests, mix,
                                     server_params)  # fmt: skip
    if control is not None:
        targets = with_control(targets, control)
    configs = configurations(targets, tools)
    check_hosts(hosts, configs)
    return ExperimentPlan(
        experiment,
        registry,
        tuple(configs),
        params,
        warmup_s=warmup_seconds(warmup),
        repetitions=require_int("repetitions", repetitions, 1),
        pinning=plan_pinning(bool(pin_cpus)),
        records=require_int("records", records, 0),
        verify=verify,
        restart=restart,
        hosts=hosts,
        profiled=profiled,
    )


def with_control(targets: list[Target], control: str) -> list[Target]:
    """``targets`` with an A/A copy of the one labelled ``control`` right after it."""
    labels = [t.label for t in targets]
    if control not in labels:
        raise SettingError(
            "control", f"{control!r} is not a target; valid choices: {', '.join(labels)}"
        )
    at = labels.index(control) + 1
    return [*targets[:at], replace(targets[at - 1], copy=AA_COPY), *targets[at:]]


def configurations(targets: list[Target], tools: ToolsGiven) -> list[Config]:
    """Every (target, load) pair; a tool that measures several servers at once (Go's
    benchmarks: one client binary for a backend's HTTP and gRPC servers) is one
    configuration, on the first of its servers."""
    per_server = dict(tools) if isinstance(tools, Mapping) else None
    if per_server is not None:
        known = {t.server for t in targets}
        for name in per_server:
            if name not in known:
                raise SettingError("tools", f"given for {name!r}, which is not among the servers")
    configs = []
    for target in targets:
        loads = _flat(per_server.get(target.server, ()) if per_server is not None else tools)
        if not loads:
            raise SettingError("tools", f"none given for {target.server}")
        for load in loads:
            config = Config(target, load)
            group = config.together
            if group is None or target.server == next(iter(group.servers.values())):
                configs.append(config)
    return configs


def check_hosts(hosts: HostsPlan, configs: list[Config]) -> None:
    """The hosts plan can run every configuration here, or a refusal (AddressRefused)
    says why, before anything starts: a multi-server tool runs on loopback only, a load
    over several load hosts needs tools that spread it, a remote host the allow-list."""
    if hosts.kind != "local" and any(c.together for c in configs):
        raise SettingError(
            "hosts",
            f"{hosts.kind!r}; {configs[0].tool.name} measures several servers from one "
            "client binary on loopback and runs with hosts='local' only",
        )
    if hosts.load_hosts > 1:
        single = [c.tool.name for c in configs if not capabilities(c.tool).spreads_over_hosts]
        if single:
            raise SettingError(
                "hosts",
                f"{hosts.load_hosts} load hosts, but {', '.join(dict.fromkeys(single))} runs "
                f"on one; tools that spread a load over several hosts: "
                f"{', '.join(spreading_tools())}",
            )
        for config in configs:
            spread = cast(SpreadLoad, config.tool)  # every tool here spreads (checked above)
            if problem := spread.spread_problem(hosts.load_hosts):
                raise SettingError("hosts", problem)
    hosts.check()


def _flat(tools: object) -> list[LoadTool]:
    if isinstance(tools, str) or not isinstance(tools, Sequence):
        raise SettingError("tools", f"{tools!r}; give loads made by tool(name, …)")
    flat: list[LoadTool] = []
    for item in tools:
        flat += _flat(item) if isinstance(item, list | tuple) else [item]
    if not flat:
        raise SettingError("tools", "none given, e.g. [tool('wrk', connections=10, duration='5s')]")
    return flat


def warmup_seconds(warmup: object) -> float:
    seconds = parse_duration("warmup", warmup, allow_zero=True)
    if seconds and (seconds < 1 or seconds != int(seconds)):
        raise SettingError("warmup", f"{seconds:g} s; load tools take whole seconds (0 to skip)")
    return seconds
