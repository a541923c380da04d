"""An experiment's plan: the description ``measure.run`` was given (benchbook.runs's
``Experiment``), checked, with what follows from it worked out once.

The plan is built before any process starts (every refusal happens while building it)
and is then the one thing the measuring code passes on: the rounds, each measured run
and the profiled phase take it. Its description is what the run's manifest stores as
written and the reuse key digests; what was worked out is stored beside it
(``worked_out``). A run measured in this session carries its plan (``PlannedRun``).
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import cast

from benchbook.measure.calibration import Ceilings
from benchbook.measure.hosts.placement import LOCAL, HostsPlan
from benchbook.measure.instances import slug
from benchbook.measure.params import SettingError
from benchbook.measure.registry import Registry, Request, ServerSpec, Target
from benchbook.measure.run_store import Run
from benchbook.measure.targets import loaded_requests
from benchbook.measure.tools import capabilities
from benchbook.measure.tools.base import LoadTool, MultiServerLoad
from benchbook.runs.experiment import Experiment, Pinning, RunPlan
from benchbook.runs.layout import repo_relative

Sends = tuple[tuple[Request, float], ...]  # a target's requests and their weights


@dataclass(frozen=True)
class Config:
    """One measured configuration: a target under one load tool and load."""

    target: Target
    tool: LoadTool

    @property
    def slug(self) -> str:
        return f"{slug(self.target.label)}_{self.tool.slug}"

    @property
    def together(self) -> MultiServerLoad | None:
        """The load, when one client measures several servers at once (Go's benchmarks)."""
        together = capabilities(self.tool).measures_together
        return cast(MultiServerLoad, self.tool) if together else None


@dataclass(frozen=True)
class ExperimentPlan:
    """An experiment's description and what was worked out from it once (see the
    module's docstring): the registry it names, every configuration, each server's fixed
    parameters, the warm-up in seconds, the CPUs and the hosts."""

    experiment: Experiment
    registry: Registry
    configs: tuple[Config, ...]
    server_params: Mapping[str, Mapping[str, float]]
    warmup_s: float
    pinning: Pinning
    hosts: HostsPlan = LOCAL
    # The load tools' ceilings each row's headroom is relative to; None until the run
    # measures (orchestration reads the latest calibration's then: a stored run that
    # stands in for this one needs none).
    ceilings: Ceilings | None = None

    # Worked out once from the fields above (see __post_init__).
    targets: tuple[Target, ...] = field(init=False, repr=False)
    specs: Mapping[str, ServerSpec] = field(init=False, repr=False)
    sends: Mapping[Target, Sends] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        """Every target measured (the servers of a multi-server load's group too), their
        servers' specifications and what each target sends; a target that needs a
        record when none is created is refused."""
        found: list[Target] = []
        for config in self.configs:
            group = config.together
            found += [Target(s) for s in group.servers.values()] if group else [config.target]
        targets = tuple(dict.fromkeys(found))
        specs = {t.server: self.registry.get(t.server) for t in targets}
        sends = {t: tuple(loaded_requests(specs[t.server], t)) for t in targets}
        for name, value in (("targets", targets), ("specs", specs), ("sends", sends)):
            object.__setattr__(self, name, value)
        for target, requests in sends.items():
            for request, _ in requests:
                if request.needs_record and not self.records:
                    raise SettingError(
                        "records",
                        f"0, but {target.label} sends {request.path}, which needs the id of "
                        "a created record; use records >= 1",
                    )

    @property
    def name(self) -> str:
        return self.experiment.name

    @property
    def repetitions(self) -> int:
        return self.experiment.repetitions

    @property
    def records(self) -> int:
        return self.experiment.records

    @property
    def verify(self) -> bool:
        return self.experiment.verify

    @property
    def restart(self) -> bool:
        return self.experiment.restart

    @property
    def profiled(self) -> bool:
        return self.experiment.profiled

    @property
    def measured_ceilings(self) -> Ceilings:
        """The ceilings the rows are measured against, read before the rounds start."""
        if self.ceilings is None:
            raise RuntimeError(f"{self.name}: measuring before its ceilings were read")
        return self.ceilings

    @property
    def tools(self) -> list[LoadTool]:
        return list(dict.fromkeys(c.tool for c in self.configs))

    def worked_out(self) -> RunPlan:
        """What the manifest stores beside the description: the plan's targets, loads
        (every setting), CPUs and hosts, and the calibration once read (recorded beside
        the reuse key, never in it)."""
        calibration = self.ceilings and {
            "run_id": self.ceilings.run_id, "ceilings_rps": self.ceilings.by_setting,
        }  # fmt: skip
        return RunPlan(
            targets=tuple(t.label for t in self.targets),
            tools=tuple(sorted({tool.setting for tool in self.tools})),
            loads=tuple(asdict(tool.load) for tool in self.tools),
            warmup_s=self.warmup_s,
            runs_planned=self.repetitions * len(self.configs),
            server_params={n: dict(self.server_params.get(n, {})) for n in self.specs},
            pinning=self.pinning,
            registry=repo_relative(self.registry.path),
            hosts=self.hosts.params() if self.hosts.kind != "local" else None,
            calibration=calibration,
        )

    def params_of(self, target: Target) -> dict[str, float]:
        """The server parameters one instance starts with: fixed, then swept ones."""
        return {**self.server_params.get(target.server, {}), **dict(target.params)}


class PlannedRun(Run):
    """A run measured (or reused) in this session, with the plan it was measured with:
    what a later phase of the same experiment (profiling) starts from."""

    def __init__(self, path: Path, plan: ExperimentPlan):
        super().__init__(path)
        self.experiment_plan = plan
