"""Which machine class a stored run belongs to: its CPU identity (vendor, family, model,
stepping) and core count, as its manifest recorded it — nothing else.

Runs from before the identity was recorded (2026-11-25) belong to no class: each is its
own session, never pooled. They used to join a class when their CPU name, count and
machine-speed reference agreed with it, but the reference cannot tell machines apart: the
width the recorded sessions justified let in 241 of 267 comparisons between two classes,
and a new boot of a family-25 machine (2026-12-02) had 4 of its 22 runs outside its own
class's width.
"""

from dataclasses import dataclass

from benchbook.runs.manifest import COMPLETED
from benchbook.store.sessions import SessionSource

# Runs measured before the CPU's identity was recorded: each its own session.
UNRECORDED = "CPU identity unrecorded"
WORKLOADS = ("go_s", "python_s")  # the reference's workloads, as manifests name them


@dataclass(frozen=True)
class MachineRecord:
    """One finished run's machine as its manifest recorded it."""

    run_id: str
    machine_class: str  # '' when no CPU identity was recorded
    cpu_model: str | None
    logical_cpus: int | None
    reference: tuple[float, float] | None  # mean of before and after, per workload


def machine_class(machine: dict) -> str:
    """'AMD EPYC (family 25, model 17, stepping 1), 2 CPUs' — '' when the run recorded
    no CPU identity."""
    cpu = machine.get("cpu")
    if not isinstance(cpu, dict) or not cpu.get("family"):
        return ""
    return (
        f"{machine.get('cpu_model') or cpu.get('vendor')} (family {cpu['family']}, model "
        f"{cpu.get('model')}, stepping {cpu.get('stepping')}), {machine.get('logical_cpus')} CPUs"
    )


def machine_records(source: SessionSource) -> dict[str, MachineRecord]:
    """Every finished run's machine, by run id, over the whole runs folder: a class's
    typical reference, and how far its sessions stray from it, come from all its runs."""
    records = {}
    for manifest in source.manifests():  # migrated to the current shape (runs.manifest)
        if manifest["completion"] != COMPLETED:
            continue
        machine, speed = manifest["provenance"]["machine"], manifest["machine_speed"]
        records[manifest["run_id"]] = MachineRecord(
            run_id=manifest["run_id"],
            machine_class=machine_class(machine),
            cpu_model=machine.get("cpu_model"),
            logical_cpus=machine.get("logical_cpus"),
            reference=_reference(speed),
        )
    return records


def _reference(speed: dict | None) -> tuple[float, float] | None:
    """A run's reference: each workload's mean of its before and after readings."""
    if not speed:
        return None
    go_s, python_s = ((speed["before"][w] + speed["after"][w]) / 2 for w in WORKLOADS)
    return go_s, python_s


def with_unrecorded(rows: list[dict]) -> list[dict]:
    """Runs without a recorded CPU identity named UNRECORDED: no class, each its own
    session."""
    for row in rows:
        row["machine_class"] = row["machine_class"] or UNRECORDED
    return rows
