"""CPU used by other work: processes outside the measuring process's own tree, read from
``/proc`` at both ends of a window. A server woken by a request waits behind any other
runnable process, even one at nice 19, so a loopback benchmark beside other work loses
much of its rate while neither the server nor the load tool looks saturated: this is how
a busy machine shows (the rule that names it is benchbook.runs.limits).

The run's own tree is the measuring process, its ancestors (make, papermill, a shell:
idle while it measures) and its descendants (servers, services, load tools). Kernel
threads work on the run's behalf (softirqs of loopback traffic) and are not counted.
Each process's figure includes the children it has reaped (``cutime``/``cstime``), so a
short-lived process of other work (a compiler spawned by make) is counted through its
parent even when it starts and ends inside the window.
"""

import os
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_S = os.sysconf("SC_CLK_TCK")
KTHREADD = 2  # the parent of every kernel thread


@dataclass(frozen=True)
class Process:
    pid: int
    ppid: int
    name: str
    ticks: int  # CPU ticks used by it and by the children it has reaped


@dataclass(frozen=True)
class Snapshot:
    """Every process's CPU so far, and the machine's steal and total ticks (/proc/stat)."""

    processes: dict[int, Process]
    steal: int
    total: int


@dataclass(frozen=True)
class ForeignUse:
    """What other work used of the CPU in a window: percent of one core in all, and the
    busiest processes as (name, PID, percent of one core), busiest first."""

    cpu_pct: float
    steal_pct: float
    busiest: tuple[tuple[str, int, float], ...]

    def processes_text(self, at_most: int = 3) -> str:
        """'yes (PID 4121) 97 %, yes (PID 4122) 96 %' ('' when none used any)."""
        return ", ".join(
            f"{name} (PID {pid}) {pct:.0f} %" for name, pid, pct in self.busiest[:at_most]
        )


def _read_process(stat: Path) -> Process | None:
    try:
        text = stat.read_text()
    except OSError:  # gone between listing and reading
        return None
    # The name is in parentheses and may hold spaces or parentheses itself.
    head, _, tail = text.rpartition(")")
    pid_text, _, name = head.partition(" (")
    fields = tail.split()
    # After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
    ticks = sum(int(v) for v in fields[11:15])
    return Process(int(pid_text), int(fields[1]), name, ticks)


def snapshot() -> Snapshot:
    processes = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        if (process := _read_process(stat)) is not None:
            processes[process.pid] = process
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    steal = fields[7] if len(fields) > 7 else 0
    return Snapshot(processes, steal, sum(fields[:8]))


def own_tree(processes: dict[int, Process], root: int) -> set[int]:
    """``root``, its ancestors up to (not including) init, and all its descendants."""
    own = set()
    pid = root
    while pid > 1 and pid in processes:
        own.add(pid)
        pid = processes[pid].ppid
    children: dict[int, list[int]] = {}
    for p in processes.values():
        children.setdefault(p.ppid, []).append(p.pid)
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in own:
                own.add(child)
                stack.append(child)
    return own


def _kernel(processes: dict[int, Process], pid: int) -> bool:
    return pid == KTHREADD or processes[pid].ppid == KTHREADD


def foreign_use(
    before: Snapshot, after: Snapshot, seconds: float, root: int | None = None
) -> ForeignUse:
    """What processes outside ``root``'s tree (this process's by default) used between two
    snapshots ``seconds`` apart."""
    root = root or os.getpid()
    own = own_tree(before.processes, root) | own_tree(after.processes, root)
    used: dict[int, float] = {}
    for pid, now in after.processes.items():
        if pid in own or _kernel(after.processes, pid):
            continue
        then = before.processes.get(pid)
        same = then is not None and then.name == now.name
        used[pid] = now.ticks - (then.ticks if same else 0)
    # A process of other work that ended in the window is counted through its parent's
    # reaped-children ticks, which include what it had used before the window: take that off.
    for pid, then in before.processes.items():
        if pid in after.processes or pid in own or _kernel(before.processes, pid):
            continue
        if then.ppid in used:
            used[then.ppid] -= then.ticks
    per_core = 100 / TICKS_PER_S / seconds if seconds > 0 else 0.0
    busiest = sorted(
        (
            (after.processes[pid].name, pid, ticks * per_core)
            for pid, ticks in used.items()
            if ticks > 0
        ),
        key=lambda item: -item[2],
    )
    total = after.total - before.total
    steal = 100 * (after.steal - before.steal) / total if total > 0 else 0.0
    return ForeignUse(
        cpu_pct=round(max(0.0, sum(ticks for ticks in used.values())) * per_core, 1),
        steal_pct=round(steal, 1),
        busiest=tuple((name, pid, round(pct, 1)) for name, pid, pct in busiest),
    )
