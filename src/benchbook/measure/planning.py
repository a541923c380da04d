"""From an experiment's description to its ``ExperimentPlan``: every value checked
against the registry and the load tools before any process starts.

A refusal is a ``SettingError`` naming the experiment, then the setting and the value.
"""

from collections.abc import Sequence
from dataclasses import replace
from typing import cast

from benchbook.measure.experiment_plan import Config, ExperimentPlan
from benchbook.measure.hosts.placement import HostsPlan, plan_hosts
from benchbook.measure.params import SettingError, require_int
from benchbook.measure.pinning import plan_pinning
from benchbook.measure.registry import Registry, Target
from benchbook.measure.targets import select_targets
from benchbook.measure.tools import capabilities, spreading_tools, tool_loads
from benchbook.measure.tools.base import SpreadLoad
from benchbook.runs.durations import parse_duration
from benchbook.runs.experiment import Experiment, Load
from benchbook.runs.labels import AA_COPY


def plan_experiment(experiment: Experiment, registry: Registry | None = None) -> ExperimentPlan:
    """The plan of ``experiment`` with the servers of ``registry`` (the repository's
    unless given), or the SettingError that names the experiment and the first value
    refused. Nothing here runs or looks for a load tool, a build or the calibration: a
    stored run may stand in for the plan (reuse)."""
    try:
        return _plan(experiment, registry or Registry.load())
    except ValueError as error:  # every refusal reads "setting: problem"; its type stays
        error.args = (f"{experiment.name}: {error}",)
        raise


def _plan(experiment: Experiment, registry: Registry) -> ExperimentPlan:
    hosts = plan_hosts(experiment.hosts)
    targets, params = select_targets(
        registry, experiment.servers, experiment.variants, experiment.paths,
        experiment.requests, experiment.mix, experiment.server_params,
    )  # fmt: skip
    if experiment.control is not None:
        targets = with_control(targets, experiment.control)
    configs = configurations(targets, experiment.loads)
    check_hosts(hosts, configs)
    require_int("repetitions", experiment.repetitions, 1)
    require_int("records", experiment.records, 0)
    return ExperimentPlan(
        experiment,
        registry,
        tuple(configs),
        params,
        warmup_s=warmup_seconds(experiment.warmup),
        pinning=plan_pinning(bool(experiment.pin_cpus)),
        hosts=hosts,
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


def configurations(targets: list[Target], loads: Sequence[Load]) -> list[Config]:
    """Every (target, load) pair, a load given for one server on that server's targets
    only; a tool that measures several servers at once (Go's benchmarks: one client
    binary for a backend's HTTP and gRPC servers) is one configuration, on the first of
    its servers."""
    known = {t.server for t in targets}
    for load in loads:
        if load.server is not None and load.server not in known:
            raise SettingError(
                "loads", f"given for {load.server!r}, which is not among the servers"
            )
    if not loads:
        raise SettingError(
            "loads", "none given, e.g. measure.tool('wrk', connections=10, duration='5s')"
        )
    made = [(load.server, tool) for load in loads for tool in tool_loads(load)]
    configs = []
    for target in targets:
        own = [tool for server, tool in made if server in (None, target.server)]
        if not own:
            raise SettingError("loads", f"none given for {target.server}")
        for tool in own:
            config = Config(target, tool)
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


def warmup_seconds(warmup: object) -> float:
    seconds = parse_duration("warmup", warmup, allow_zero=True)
    if seconds and (seconds < 1 or seconds != int(seconds)):
        raise SettingError("warmup", f"{seconds:g} s; load tools take whole seconds (0 to skip)")
    return seconds
