"""One comparison across measuring sessions and machines: every stored run of the
experiment, which of them measured the same comparison under the same conditions, on
which machine class, and what the sessions of this class predict for the next one.

A session is one finished run of an experiment (one `make report`, or one of
`make replicate`'s N) on one machine. A machine class is one CPU identity (vendor,
family, model, stepping) and core count (machine_classes): machines of one class differ
little, classes may differ by CPU generation, by how much the stored sessions say
(across_classes). So a headline pools the sessions of this class only (`levels.pooled`), and
shows the sessions of other classes apart, each with its machine-speed reference and
what that reference predicts for it.
"""

import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from benchbook.analyse.numbers.pairing import within_band
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.sessions import levels, machines
from benchbook.analyse.sessions.estimate import estimates_version, session_estimate
from benchbook.analyse.sessions.machine_classes import UNRECORDED, with_unrecorded
from benchbook.store.query import open_store
from benchbook.store.sessions import SessionSource, StoredSession, computed_estimates


@dataclass(frozen=True)
class OtherClass:
    """The sessions of the same comparison on another machine class."""

    machine_class: str
    sessions: int
    estimate: float  # pooled over its sessions (3 or more), else their median
    low: float  # its prediction interval (3 or more sessions), else its estimates' range
    high: float
    go_s: float | None  # its mean machine-speed reference, seconds
    python_s: float | None
    # This class's estimate (pooled, else this session's) moved by the two references'
    # speeds (Go over Python comparisons only): what the machine's speed alone predicts.
    expected: float | None = None
    # ... moved instead by how the servers' own CPU time per request changed (spread's
    # cpu_cost): what the cost of a request alone explains, in that class's sessions.
    cpu_expected: float | None = None
    predicted: bool = False  # low–high is its prediction interval (else its sessions' range)


@dataclass(frozen=True)
class Replication:
    """The sessions behind one headline on this session's machine class, the model of
    them, its leave-one-session-out check, and the other classes' sessions."""

    machine_class: str = ""
    sessions: int = 1  # on this class under the same conditions, this one included
    pooled: levels.Pooled | None = None  # own sessions' model; None below levels.MIN_SESSIONS
    # Each session of this class left out and predicted from the rest (levels.leave_one_out);
    # the same on every other class, with that class's borrowed spread.
    held_out: tuple[levels.HeldOut, ...] = ()
    held_out_elsewhere: tuple[levels.HeldOut, ...] = ()
    others: tuple[OtherClass, ...] = ()
    # The spread between sessions of the other headlines of this kind (levels.kind_spread):
    # on this class, else on every class; None where no other headline has two sessions.
    spread: levels.Spread | None = None
    # The prediction for the next session at every k: ``pooled`` from MIN_SESSIONS on,
    # below that the sessions' mean with ``spread`` (levels.borrowed).
    predicted: levels.Pooled | None = None
    # What a session on a machine of this class not yet measured should give, and the
    # class's machines each left out and judged by the others' (sessions.machines).
    another_machine: machines.AnotherMachine | None = None
    machines_held_out: tuple[machines.MachineHeldOut, ...] = ()
    # What another session on this session's machine should give, and each session of a
    # machine of this class left out of that machine's others (sessions.machines).
    another_session: machines.AnotherSession | None = None
    held_out_on_machines: tuple[levels.HeldOut, ...] = ()

    def judged(self, c: Comparison) -> tuple[float, float]:
        """The interval a verdict against an article is judged on: the one the answer
        prints — the prediction for the next session ("the next session should give …"),
        else this session's own interval. One interval, read, drawn and judged."""
        if self.predicted is not None:
            return self.predicted.predict_low, self.predicted.predict_high
        return c.ratio_low, c.ratio_high

    def estimate(self, c: Comparison) -> float:
        """The headline's estimate: the mean (log scale) of this class's sessions, the
        centre of its prediction; this session's own without a model."""
        return self.predicted.estimate if self.predicted else c.ratio

    def within_band(self, c: Comparison, band: float | None) -> bool:
        """The estimate lies no farther from 1 than the A/A control strays (``band``)."""
        return within_band(self.estimate(c), band)

    def significant(self, c: Comparison) -> bool:
        """A difference holds: the pooled interval excludes 1 (this session's p < α while
        the class has too few sessions to pool)."""
        if self.pooled is None:
            return c.significant
        return not self.pooled.low <= 1 <= self.pooled.high


def spread(
    experiment: str,
    a: str,
    b: str,
    column: str = "rps",
    select: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    current: set[str] | None = None,
    source: SessionSource | None = None,
    ignore: Sequence[str] = (),
) -> list[dict]:
    """The same comparison in every stored run of ``experiment`` that has both targets:
    date, machine class and its speed, ratio with its CI and level, n, and whether the
    run measured it under this session's conditions (``same_conditions``; this session's
    run is ``current``; ``ignore``: see ``conditions``; ``source``: the results store of
    data/runs/ unless given). Each run's part is its session estimate, which the store
    computes once (``select``, a function, is computed every time)."""
    source = source or open_store()

    def estimate(run: StoredSession) -> dict | None:
        return session_estimate(run, experiment, a, b, column, select, ignore)

    if select is None:
        key = json.dumps(["spread", a, b, column, list(ignore)])
        found = source.estimates(experiment, key, estimates_version(), estimate)
    else:
        found = computed_estimates(source.sessions(experiment), estimate)
    rows, keys = [], {}
    for run_id, row in found:
        if row is None:
            continue  # nothing of this comparison in that run (e.g. not that tool)
        keys[run_id] = row.pop("conditions")
        rows.append(row | {"current": run_id in (current or set())})
    reference = next((keys[row["run_id"]] for row in rows if row["current"]), None)
    for row in rows:
        # A session set apart (a busy machine, nothing at its limit) is never pooled.
        same = reference is not None and keys[row["run_id"]] == reference
        row["same_conditions"] = same and not row.get("set_apart")
    return with_unrecorded(rows)


def session_of(row: dict) -> levels.Session:
    """A spread row (spread) as a session of the levels model."""
    return levels.Session(
        ratio=row["ratio"],
        ci_low=row["ci_low"],
        ci_high=row["ci_high"],
        ci_level=row["ci_level"],
        machine_class=row["machine_class"],
        run_id=row["run_id"],
        variance=row.get("log_variance", math.nan),
        machine=row.get("boot") or "",
    )


def replication(
    c: Comparison | None,
    runs: list[dict],
    go_side: str = "",
    kinds: levels.KindSessions | None = None,
    kind_machines: machines.KindMachines | None = None,
    kind_within: machines.KindWithin | None = None,
) -> Replication:
    """This session (``c``) and the stored sessions of the same comparison under the same
    conditions (``runs``: ``spread``'s rows): the model of this class's sessions, its
    leave-one-session-out check, the other classes (``go_side``: 'a' or 'b' when the
    comparison is Go against Python, so the speed references can predict a shift), and
    the spread of the other headlines of its kind (``kinds``: kind_sessions of its column;
    ``kind_machines`` the same by machine, for what another machine should give, and
    ``kind_within`` each machine's sessions, for what another session here should give)."""
    current = next((r for r in runs if r.get("current")), None)
    if c is None or c.ratio != c.ratio or current is None:
        return Replication(sessions=0 if c is None or c.ratio != c.ratio else 1)
    # A run that joined no class (UNRECORDED) is a level of its own: never pooled with
    # another, never counted as a class.
    same = [r for r in runs if r.get("same_conditions") and r["machine_class"] != UNRECORDED]
    here = [r for r in same if r["machine_class"] == current["machine_class"]] or [current]
    sessions = [session_of(r) for r in here]
    key = current.get("headline", "")
    spread = levels.borrowed_spread(kinds or {}, current["machine_class"], key)
    pooled = levels.pooled(sessions)
    predicted = levels.predicted(sessions, spread)
    between = machines.borrowed_machine_spread(kind_machines or {}, current["machine_class"], key)
    within = machines.within_machine_spread(kind_within or {}, current["machine_class"], key)
    estimate = predicted.estimate if predicted else c.ratio
    others, held_elsewhere = [], []
    for name, members in levels.by_class([session_of(r) for r in same if r not in here]).items():
        rows = [r for r in same if r["machine_class"] == name]
        others.append(other_class(name, members, rows, here, estimate, go_side))
        held_elsewhere += levels.leave_one_out(
            members, levels.borrowed_spread(kinds or {}, name, key)
        )
    return Replication(
        machine_class=current["machine_class"],
        sessions=len(sessions),
        pooled=pooled,
        held_out=tuple(levels.leave_one_out(sessions, spread)),
        held_out_elsewhere=tuple(held_elsewhere),
        others=tuple(others),
        spread=spread,
        predicted=predicted,
        another_machine=machines.another_machine(sessions, between, spread),
        machines_held_out=tuple(machines.leave_one_machine_out(sessions, between, spread)),
        another_session=machines.another_session(sessions, current.get("boot") or "", within),
        held_out_on_machines=tuple(machines.leave_one_out_on_machines(sessions, within)),
    )


def other_class(
    name: str,
    sessions: list[levels.Session],
    rows: list[dict],
    here: list[dict],
    estimate: float,
    go_side: str,
) -> OtherClass:
    """Another class's sessions, and what the speed references, and the servers' own CPU
    time per request, predict there (``go_side``: '' where the model does not apply)."""
    model = levels.pooled(sessions)
    ratios = [s.ratio for s in sessions]
    go_s, python_s = mean_of(rows, "go_s"), mean_of(rows, "python_s")
    expected = None
    here_go, here_python = mean_of(here, "go_s"), mean_of(here, "python_s")
    if go_side and go_s and python_s and here_go and here_python:
        # A Go server's rate scales with Go's speed, a Python server's with Python's:
        # Go/Python moves by (Go speed-up) / (Python speed-up) between the classes.
        shift = (here_go / go_s) / (here_python / python_s)
        expected = estimate * (shift if go_side == "a" else 1 / shift)
    cost, here_cost = _geomean_of(rows, "cpu_cost"), _geomean_of(here, "cpu_cost")
    cpu_expected = estimate * cost / here_cost if go_side and cost and here_cost else None
    return OtherClass(
        machine_class=name,
        sessions=len(sessions),
        estimate=model.estimate if model else statistics.median(ratios),
        low=model.predict_low if model else min(ratios),
        high=model.predict_high if model else max(ratios),
        predicted=model is not None,
        go_s=go_s,
        python_s=python_s,
        expected=expected,
        cpu_expected=cpu_expected,
    )


def mean_of(rows: list[dict], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key)]
    return statistics.fmean(values) if values else None


def _geomean_of(rows: list[dict], key: str) -> float | None:
    values = [math.log(r[key]) for r in rows if r.get(key)]
    return math.exp(statistics.fmean(values)) if values else None
