"""One way to run an experiment, end to end: parameters checked, services and servers
up, verified, warmed up, measured in interleaved turns, checked after every run.

Everything a notebook passes in is validated before the first process starts, and
every measurement is on disk (raw output, then its row) before the next one begins.
An experiment is described by benchbook.runs's ``Experiment``, its loads made by
``benchbook.measure.tools`` (``tool("wrk", connections=…)``); this module names no tool.
"""

import os
import tempfile
from contextlib import ExitStack
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from benchbook.measure.calibration import latest_ceilings
from benchbook.measure.experiment_plan import ExperimentPlan, PlannedRun
from benchbook.measure.hosts.bring_up import placed
from benchbook.measure.instances import start_instance
from benchbook.measure.machine_check import check_machine
from benchbook.measure.machine_speed import measure_speed, speed_change
from benchbook.measure.params import as_list
from benchbook.measure.pinning import Pinning
from benchbook.measure.planning import plan_experiment
from benchbook.measure.registry import Registry, Target
from benchbook.measure.reuse import fingerprint, reuse_enabled, stored_run_with
from benchbook.measure.rounds import Rounds, verify_instance
from benchbook.measure.run_store import Run
from benchbook.measure.servers import build_server
from benchbook.measure.targets import extra_columns
from benchbook.measure.tools import require_installed, versions
from benchbook.runs.experiment import Experiment
from benchbook.runs.runlock import machine_lock

SPEED_RUNS = 2  # of each reference workload, before and after an experiment (~5 s in all)


def run(experiment: Experiment, registry: Registry | None = None) -> PlannedRun:
    """Measure every target of ``experiment``'s servers under every one of its loads,
    ``repetitions`` times, interleaved (see run_experiment): the description is checked
    whole before anything starts, and stored as written in the run's manifest. The
    servers are the repository's registry's (``registry``: another one, as tests use)."""
    return run_experiment(plan_experiment(experiment, registry))


def run_experiment(plan: ExperimentPlan) -> PlannedRun:
    """Measure every configuration (a target under a load tool) once in each of the
    plan's rounds, in a random order, on servers started afresh for each round
    (``restart``), verified and warmed up (see rounds).

    Rounds make drift on a shared machine hit every configuration alike, and let a
    comparison pair two configurations measured seconds apart. Targets on the same server
    instance (server, variant, swept parameters) share one server process. Only one
    experiment measures on a machine at a time (runlock). When reuse is on, a stored run
    with the plan's key (reuse: its description, the code it touches, the machine) stands
    in, found before anything is looked for, built or read: no load tool, no server
    build, no calibration. Each row's ``headroom`` is relative to the latest calibration's
    ceilings, read when the run measures (see calibration) and stored in its plan. The
    manifest holds the description as written, the plan worked out from it and, once
    placed, the hosts.
    """
    key = fingerprint(plan)
    if reuse_enabled() and (stored := stored_run_with(key)):
        print(
            f"{plan.name}: reusing run {stored.name}, measured with the same code, "
            "parameters and machine (BENCHBOOK_REUSE_RUNS=1)",
            flush=True,
        )
        return PlannedRun(stored, plan)
    require_installed(sorted({tool.name for tool in plan.tools}))
    if plan.ceilings is None:
        plan = replace(plan, ceilings=latest_ceilings())
    with machine_lock(plan.name) as lock:
        created = Run.create(
            plan.experiment,
            plan.worked_out(),
            fingerprint=key,
            extra_columns=extra_columns(plan.registry, list(plan.targets), plan.tools),
            tool_versions=versions(sorted({tool.name for tool in plan.tools})),
        )
        lock.name_run(created.run_id)
        for spec in plan.specs.values():
            build_server(spec)
        check = check_machine(lambda said: print(f"{plan.name}: {said}", flush=True))
        created.update_manifest(machine_check=check.stored())
        run_ = PlannedRun(created.path, plan)
        _measure_on_hosts(Rounds(run_, plan, busy_at_start=check.busy_at_start))
    return run_


def _measure_on_hosts(rounds: Rounds) -> None:
    """The rounds on the plan's hosts, between two readings of the machine's speed on
    the servers' CPUs (a session on a slower machine shows there, whatever the servers
    did); both, and the hosts, in the run's manifest."""
    run_, plan = rounds.run, rounds.plan
    before = speed_reference(plan.pinning)
    with placed(plan.hosts, run_.path / "hosts", plan.pinning) as placement:
        run_.update_manifest(hosts=placement.manifest)
        rounds.placement = placement
        with placement.server_side():
            rounds.measure()
    after = speed_reference(plan.pinning)
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
