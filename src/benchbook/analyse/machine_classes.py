"""Which machine class a stored run belongs to when its manifest names no CPU identity.

A class is a recorded CPU identity and core count (replication.machine_class). Runs from
before the identity was recorded still name their CPU model and count, and their
machine-speed reference (a fixed workload per language, timed before and after the run).
Such a run joins a class only when its model name and count agree with the class's and
its reference lies as close to the class's as the class's own recorded sessions lie to
each other: that width is measured by leaving each recorded session out of its class
(speed_width), so it widens with a noisy machine and narrows with a steady one. A run
that matches no class, or more than one, is no class: it stays its own session.
"""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from benchbook.runs.manifest import COMPLETED
from benchbook.store.query import open_store
from benchbook.store.sessions import SessionSource

# The share of held-out recorded sessions the width must keep in their own class.
KEEP = 0.95
# Runs measured before the CPU's identity was recorded (2026-11-25) that join no class
# (matching_class): each its own session, never pooled as a class.
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


@dataclass(frozen=True)
class SpeedWidth:
    """The width a run's reference may stray from a class's and still join it, and the
    leave-one-out figures that chose it."""

    width: float  # on the log scale, the larger of the workloads' strays
    kept: int  # held-out recorded sessions within the width of their own class
    held_out: int  # recorded sessions held out (of classes with 3 or more)
    admitted: int  # recorded sessions within the width of another class
    compared: int  # (session, other class) pairs compared

    @property
    def percent(self) -> float:
        """The width as a percentage of the reference ('±12 %')."""
        return (math.exp(self.width) - 1) * 100


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


def stored_width(source: SessionSource | None = None) -> SpeedWidth | None:
    """The width the recorded sessions of the runs folder justify (speed_width)."""
    records = machine_records(source or open_store())
    return speed_width(recorded_classes(list(records.values())))


def center(references: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """A class's typical reference: the median per workload (a busy machine only ever
    slows a reading, so the mean would follow the outliers)."""
    return (
        statistics.median(r[0] for r in references),
        statistics.median(r[1] for r in references),
    )


def stray(reference: tuple[float, float], typical: tuple[float, float]) -> float:
    """How far a reference lies from a class's: the larger log ratio of its workloads."""
    return max(abs(math.log(r / t)) for r, t in zip(reference, typical, strict=True))


@dataclass(frozen=True)
class RecordedClass:
    """One recorded class: the CPU model name and count its runs recorded, and each
    run's reference."""

    cpu_model: str | None
    logical_cpus: int | None
    references: tuple[tuple[float, float], ...]


def recorded_classes(records: Sequence[MachineRecord]) -> dict[str, RecordedClass]:
    """The recorded runs with a reference, by class, in first-seen order."""
    found: dict[str, list[MachineRecord]] = {}
    for record in records:
        if record.machine_class and record.reference:
            found.setdefault(record.machine_class, []).append(record)
    return {
        name: RecordedClass(
            members[0].cpu_model,
            members[0].logical_cpus,
            tuple(m.reference for m in members if m.reference),
        )
        for name, members in found.items()
    }


def speed_width(classes: dict[str, RecordedClass], keep: float = KEEP) -> SpeedWidth | None:
    """The smallest width that keeps ``keep`` of the recorded sessions within the
    reference of the rest of their class (each left out in turn; classes of 3 or more),
    and how many sessions of other classes that width would let in. None without a class
    of three recorded sessions."""
    strays = []
    for recorded in classes.values():
        references = recorded.references
        if len(references) < 3:
            continue
        for i, reference in enumerate(references):
            strays.append(stray(reference, center(references[:i] + references[i + 1 :])))
    if not strays:
        return None
    # The (n + 1)·keep-th smallest of n held-out strays: a new session of the class, as
    # exchangeable with them as they are with each other, lies within it with
    # probability ≥ keep (the conformal quantile; the plain keep-quantile keeps less).
    strays.sort()
    width = strays[min(math.ceil(keep * (len(strays) + 1)), len(strays)) - 1]
    admitted = compared = 0
    for name, recorded in classes.items():
        typical = center(recorded.references)
        for other, them in classes.items():
            if other != name:
                compared += len(them.references)
                admitted += sum(1 for r in them.references if stray(r, typical) <= width)
    return SpeedWidth(width, sum(1 for s in strays if s <= width), len(strays), admitted, compared)


def matching_class(
    record: MachineRecord, classes: dict[str, RecordedClass], width: SpeedWidth | None
) -> str:
    """The one class ``record`` (no CPU identity) may join: its CPU model and count agree
    with the class's and its reference lies within ``width`` of the class's; '' with none
    or several."""
    if width is None or record.reference is None:
        return ""
    matches = [
        name
        for name, recorded in classes.items()
        if (recorded.cpu_model, recorded.logical_cpus) == (record.cpu_model, record.logical_cpus)
        and stray(record.reference, center(recorded.references)) <= width.width
    ]
    return matches[0] if len(matches) == 1 else ""


def attribute_unrecorded(rows: list[dict], records: dict[str, MachineRecord]) -> list[dict]:
    """Runs without a recorded CPU identity join the one class their CPU model, count and
    speed reference match (machine_classes.matching_class, with the width the recorded
    sessions justify), marked ``class_inferred``; else they are UNRECORDED: no class, each
    its own session. ``records``: every finished run's machine, by run id (machine_records)."""
    classes = recorded_classes(list(records.values()))
    width = speed_width(classes)
    for row in rows:
        if row["machine_class"]:
            continue
        record = records.get(row["run_id"])
        name = matching_class(record, classes, width) if record else ""
        row["machine_class"], row["class_inferred"] = name or UNRECORDED, bool(name)
    return rows
