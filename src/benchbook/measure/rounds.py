"""Repetitions as rounds: in each round every configuration is measured once, in a random
order, and (by default) on server processes started afresh for the round, verified and
warmed up. So repetitions sample what changes between runs — a server's start, its
memory layout, the machine's speed that minute — not only the noise of a few seconds
inside one process; and a comparison can pair A and B measured seconds apart in the same
round. The order of every round is stored in the run's manifest.
"""

import random
import time
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from benchbook.measure import foreign_cpu
from benchbook.measure.experiment_plan import Config, ExperimentPlan
from benchbook.measure.hosts.placement import Placement
from benchbook.measure.instances import Instance, slug, start_instance
from benchbook.measure.measured_run import Row, measure_run
from benchbook.measure.registry import Target
from benchbook.measure.run_store import Run
from benchbook.measure.targets import load_plan
from benchbook.measure.verification import VerificationError, verify
from benchbook.runs.layout import repo_relative
from benchbook.runs.limits import limit_columns


@dataclass
class Rounds:
    """One experiment's measured rounds (see the module's docstring). The plan's
    ``restart`` False keeps one process per server for the whole experiment (where
    starting afresh costs too much; the notebook's method then says so)."""

    run: Run
    plan: ExperimentPlan
    placement: Placement = field(default_factory=Placement)
    dead: set[Target] = field(default_factory=set)
    orders: list[list[str]] = field(default_factory=list)
    busy_at_start: float = 0.0  # machine_check's: other work that never settled
    _random: random.Random = field(default_factory=random.Random)

    def measure(self) -> None:
        plan = self.plan
        with ExitStack() as whole:
            instances = {} if plan.restart else self._ready(whole, self.run.path / "servers")
            for rep in range(1, plan.repetitions + 1):
                with ExitStack() as this_round:
                    if plan.restart:
                        logs = self.run.path / "servers" / f"round{rep:02d}"
                        instances = self._ready(this_round, logs)
                    order = self._random.sample(plan.configs, len(plan.configs))
                    self.orders.append([f"{c.target.label} | {c.tool.describe()}" for c in order])
                    self.run.update_manifest(round_orders=self.orders)
                    for i, config in enumerate(order):
                        step = f"[{(rep - 1) * len(order) + i + 1}/{plan.repetitions * len(order)}]"
                        self._measure(step, config, instances, rep)

    def _ready(self, stack: ExitStack, logs: Path) -> dict[Target, Instance]:
        """Every live server instance started (its log and data in ``logs``), verified
        and warmed up."""
        plan = self.plan
        instances: dict[Target, Instance] = {}
        for target in plan.targets:
            if target.instance not in instances and target.instance not in self.dead:
                instances[target.instance] = start_instance(
                    stack,
                    plan.registry,
                    plan.specs[target.server],
                    target.instance,
                    plan.params_of(target),
                    logs,
                    plan.pinning.server_cpus,
                )
                instance = instances[target.instance]
                instance.exposed = self.placement.expose(slug(target.label), instance.port, stack)
        if plan.verify:
            for instance in instances.values():
                verify_instance(instance, list(plan.targets), plan.records)
        if not self.orders:  # the commands are the same in every round
            record_servers(self.run, instances)
        if plan.warmup_s:
            self._warm_up(instances)
        return instances

    def _warm_up(self, instances: Mapping[Target, Instance]) -> None:
        """One unrecorded run per server instance, with its first configuration's load.
        Multi-server tools warm up by their own first iterations (Go's benchmarks grow
        b.N before they time)."""
        plan = self.plan
        firsts = {c.target.instance: c for c in reversed(plan.configs) if not c.together}
        for target, config in firsts.items():
            if target not in instances:
                continue
            instance = instances[target]
            print(f"warm-up {instance.target.label}: {plan.warmup_s:g} s", flush=True)
            instance.reset(plan.records)
            raw = self.run.raw_path(f"warmup_{config.slug}")
            load = load_plan(instance, config.target, plan.sends[config.target],
                             raw.with_name(raw.name + "_created"))  # fmt: skip
            instance.load_with(config.tool, load, raw, plan.pinning.load_cpus, plan.warmup_s)

    def _measure(
        self,
        step: str,
        config: Config,
        instances: Mapping[Target, Instance],
        rep: int,
    ) -> None:
        """One configuration's run of this round; a server that died is skipped from then on."""
        if config.target.instance in self.dead:
            print(f"{step} {config.target.label}: skipped, its server died", flush=True)
            return
        print(f"{step} {config.target.label} repetition {rep}/{self.plan.repetitions}: "
              + config.tool.describe(), flush=True)  # fmt: skip
        if group := config.together:
            before, started = foreign_cpu.snapshot(), time.monotonic()
            rows = group.measure_together(self.run, instances, rep, self.plan.pinning)
            other = foreign_cpu.foreign_use(before, foreign_cpu.snapshot(),
                                            time.monotonic() - started)  # fmt: skip
            for row in rows:
                row |= {"busy_at_start": self.busy_at_start, "foreign_cpu_pct": other.cpu_pct,
                        "foreign_processes": other.processes_text()}  # fmt: skip
                self.run.append(row | limit_columns(row))
            return
        row = measure_run(self.run, self.plan, instances[config.target.instance], config, rep,
                          self.busy_at_start)  # fmt: skip
        self.run.append(row)
        if "server_died" in row["flags"]:
            self.dead.add(config.target.instance)
        print_row(row)


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


def record_servers(run: Run, instances: Mapping[Target, Instance]) -> None:
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


def print_row(row: Row) -> None:
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
