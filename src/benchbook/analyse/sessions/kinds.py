"""The sessions of every stored headline of one kind, by machine class: what a headline with
one or two sessions borrows its spread between sessions from (levels.borrowed_spread).

A kind is the compared column (req/s ratios, time-per-call ratios, latency ratios,
capacities): sessions of a req/s ratio scatter like other req/s ratios, not like latencies.
A/A controls (one server measured as two targets) are a kind of their own: two copies of
one server scatter less between sessions than two different servers do, and the A/A band
is built from them.
kind_machines gives the same sessions as each recorded machine's mean, what a statement
about another machine of the class borrows from (machines.borrowed_machine_spread), and
kind_within each machine's own, what a statement about another session on this machine
borrows from (machines.within_machine_spread).
The headlines are those the store's checks sweep (sessions.every_headline: each experiment's newest
session's first target against each other target), each over its sessions measured under
the newest one's conditions.
"""

from functools import cache
from pathlib import Path

from benchbook.analyse.sessions.estimate import headline_key
from benchbook.analyse.sessions.every_headline import experiments, pairs, shapes
from benchbook.analyse.sessions.levels import KindSessions
from benchbook.analyse.sessions.machines import KindMachines, KindWithin, geometric_means
from benchbook.analyse.sessions.replication import UNRECORDED, spread
from benchbook.runs.labels import aa_copy_of
from benchbook.runs.layout import runs_dir
from benchbook.store.query import open_store
from benchbook.store.sessions import SessionSource

# Machine class → headline → its sessions as (ratio, machine: the boot, '' unrecorded).
Gathered = dict[str, dict[str, list[tuple[float, str]]]]


def kind_sessions(
    column: str, control: bool = False, source: SessionSource | None = None
) -> KindSessions:
    """Machine class → headline → its sessions' ratios on ``column``: A/A controls only
    (``control``) or no A/A control (the results store of data/runs/ unless ``source``)."""
    found = _gathered(column, control, source)
    return {cls: {key: [r for r, _ in rows] for key, rows in group.items()}
            for cls, group in found.items()}  # fmt: skip


def kind_machines(
    column: str, control: bool = False, source: SessionSource | None = None
) -> KindMachines:
    """Machine class → headline → each recorded machine's mean ratio (machines.KindMachines),
    over the same sessions as kind_sessions."""
    within = kind_within(column, control, source)
    return {cls: {key: geometric_means(by) for key, by in group.items()}
            for cls, group in within.items()}  # fmt: skip


def kind_within(
    column: str, control: bool = False, source: SessionSource | None = None
) -> KindWithin:
    """Machine class → headline → each recorded machine's sessions' ratios (a session
    without a machine left out), over the same sessions as kind_sessions."""
    found = _gathered(column, control, source)
    within: dict[str, dict[str, dict[str, list[float]]]] = {}
    for cls, group in found.items():
        for key, rows in group.items():
            by_machine = within.setdefault(cls, {}).setdefault(key, {})
            for ratio, machine in rows:
                if machine:
                    by_machine.setdefault(machine, []).append(ratio)
    return within


def kind_levels(column: str) -> tuple[KindSessions, KindMachines, KindWithin]:
    """What a headline on ``column`` borrows from: kind_sessions, kind_machines and
    kind_within."""
    return kind_sessions(column), kind_machines(column), kind_within(column)


def _gathered(column: str, control: bool, source: SessionSource | None) -> Gathered:
    if source is None:
        return _stored(column, control, runs_dir())
    found: Gathered = {}
    for experiment in experiments(source):
        sessions = shapes(source, experiment)
        if any(column not in shape["columns"] for _, shape in sessions):
            continue  # another kind of experiment: its runs do not measure this column
        for a, b in pairs(source, experiment):
            if (b == aa_copy_of(a) or a == aa_copy_of(b)) != control:
                continue
            current = {sessions[-1][0]}
            rows = spread(experiment, a, b, column, current=current, source=source)
            for row in rows:  # a run of no class (UNRECORDED) is no class's session
                if row["same_conditions"] and row["machine_class"] != UNRECORDED:
                    group = found.setdefault(row["machine_class"], {})
                    group.setdefault(headline_key(experiment, a, b), []).append(
                        (row["ratio"], row.get("boot") or "")
                    )
    return found


@cache
def _stored(column: str, control: bool, runs: Path) -> Gathered:
    """The store's of ``runs``, once per process: every headline borrows from the same."""
    return _gathered(column, control, open_store(runs))
