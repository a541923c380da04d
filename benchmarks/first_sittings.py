"""What makes a machine's first sitting differ (issue 45, item 4): every stored headline's
sessions on each class, each judged against the others of its class, beside what its run
recorded of the machine then — the minutes since the machine booted, whether it was the
machine's first sitting (boot and commit), how far the speed reference moved from before
its runs to after them, and how far it sat from that machine's own typical speed.

A session's distance is d = (y − ȳ₋) / s₋: its log ratio against the mean and SD of the
class's other sessions of that headline (four or more sessions, so s₋ has two degrees of
freedom at least), and again against its own machine's others alone: a first sitting is
often a machine the class had not seen, so against the class it also shows how machines
differ. Sessions that share a machine's state share its shift, so the rows are counted
per sitting too.

    python benchmarks/first_sittings.py     # prints the tables
"""

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from benchbook.analyse.sessions.every_headline import every_headline
from benchbook.analyse.sessions.machine_classes import UNRECORDED
from benchbook.render.spread_page import sittings
from benchbook.store.query import open_store

MIN_OTHERS = 3
FAR = 2.0  # |d| beyond which a session lies outside what the others' scatter makes usual
MINUTE_BINS = ((0, 30), (30, 60), (60, 120), (120, math.inf))
HEADER = "| Sessions | headline-sessions | sittings | median abs(d) | abs(d) > 2 |"


@dataclass(frozen=True)
class Judged:
    run_id: str
    distance: float  # d
    machine: str
    first: bool
    minutes: float | None  # since the machine booted, when the run began
    speed_change: float | None  # the larger of Go's and Python's reference moves, as a share
    speed_off: float | None  # the run's Go reference over its machine's median, less 1


def _minutes(manifest: dict) -> float | None:
    booted = ((manifest.get("provenance") or {}).get("machine") or {}).get("booted_at")
    if not booted:
        return None
    begun = datetime.strptime(manifest["run_id"][:16], "%Y%m%dT%H%M%SZ")
    return (begun - datetime.strptime(booted, "%Y-%m-%dT%H:%M:%SZ")).total_seconds() / 60


def _speed_change(manifest: dict) -> float | None:
    speed = manifest.get("machine_speed") or {}
    moves = [abs(speed[k]) for k in ("go_time_change", "python_time_change") if speed.get(k)]
    return max(moves) if moves else None


def _go_reference(manifest: dict) -> float | None:
    return ((manifest.get("machine_speed") or {}).get("before") or {}).get("go_s")


def distances(rows: Sequence[dict], within_machine: bool) -> Iterable[tuple[str, float]]:
    """Each same-conditions session of each class against its class's others (or its
    machine's others, ``within_machine``: what the machine itself moved, not how it differs
    from the class's other machines)."""
    by_class: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        if row.get("same_conditions") and row["machine_class"] != UNRECORDED and row["ratio"] > 0:
            machine = (row.get("boot") or "") if within_machine else ""
            if machine or not within_machine:
                by_class[(row["machine_class"], machine)].append(row)
    for members in by_class.values():
        logs = [math.log(r["ratio"]) for r in members]
        for i, row in enumerate(members):
            others = logs[:i] + logs[i + 1 :]
            if len(others) < MIN_OTHERS or statistics.stdev(others) == 0:
                continue
            yield row["run_id"], (logs[i] - statistics.fmean(others)) / statistics.stdev(others)


def judged(within_machine: bool) -> list[Judged]:
    store = open_store()
    manifests = {m["run_id"]: m for m in store.manifests()}
    where = sittings(list(manifests.values()))
    typical: dict[str, list[float]] = defaultdict(list)
    for run_id, sitting in where.items():
        if (go := _go_reference(manifests[run_id])) is not None:
            typical[sitting.machine].append(go)
    found = []
    for rows, _ in every_headline(store).values():
        for run_id, d in distances(rows, within_machine):
            sitting, manifest = where.get(run_id), manifests[run_id]
            if sitting is None:
                continue  # no recorded boot: no machine, no sitting
            go = _go_reference(manifest)
            median = (
                statistics.median(typical[sitting.machine]) if typical[sitting.machine] else None
            )
            off = go / median - 1 if go and median else None
            found.append(Judged(run_id, d, sitting.machine, sitting.first, _minutes(manifest),
                                _speed_change(manifest), off))  # fmt: skip
    return found


def summary(label: str, group: Sequence[Judged]) -> str:
    if not group:
        return f"| {label} | 0 | – | – | – |"
    size = [abs(j.distance) for j in group]
    sittings_in = len({(j.machine, j.first) for j in group})
    far = sum(s > FAR for s in size) / len(size)
    return (f"| {label} | {len(group)} | {sittings_in} | {statistics.median(size):.2f} | "
            f"{100 * far:.0f} % |")  # fmt: skip


def main() -> None:
    for within_machine in (False, True):
        print(f"\n{'Within each machine' if within_machine else 'Within each class'}:\n")
        tables(judged(within_machine))


def tables(rows: Sequence[Judged]) -> None:
    print(HEADER)
    print("| --- | --- | --- | --- | --- |")
    print(summary("first sitting after a boot", [j for j in rows if j.first]))
    print(summary("later sittings", [j for j in rows if not j.first]))
    for low, high in MINUTE_BINS:
        inside = [j for j in rows if j.minutes is not None and low <= j.minutes < high]
        print(summary(f"begun {low}–{high:g} min after boot", inside))
    for name, test in (
        ("speed reference moved ≥ 5 %", lambda j: (j.speed_change or 0) >= 0.05),
        ("speed reference moved < 5 %", lambda j: (j.speed_change or 0) < 0.05),
        ("Go reference ≥ 10 % off its machine's median", lambda j: abs(j.speed_off or 0) >= 0.1),
        ("Go reference < 10 % off its machine's median", lambda j: abs(j.speed_off or 0) < 0.1),
    ):
        print(summary(name, [j for j in rows if test(j)]))
    print()
    print(HEADER.replace("Sessions", "Machine, sitting, minutes after boot"))
    print("| --- | --- | --- | --- | --- |")
    groups: dict[tuple[str, bool], list[Judged]] = defaultdict(list)
    for j in rows:
        groups[(j.machine, j.first)].append(j)
    for (machine, first), group in sorted(groups.items()):
        minutes = [j.minutes for j in group if j.minutes is not None]
        span = f"{min(minutes):.0f}–{max(minutes):.0f}" if minutes else "–"
        print(summary(f"{machine}, {'first' if first else 'later'}, {span}", group))


if __name__ == "__main__":
    main()
