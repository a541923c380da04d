"""What another machine of this class should give: machines as a level between sessions and
classes.

A machine is one boot of a host (its boot id, recorded since 2026-11-25; a session without
one belongs to no machine and is left out here). Sessions on one machine share its speed
that day; two machines of one class can differ by more (issue 45: Go over FastAPI with a
1 ms sleep spread 7.5–9.9× between machines of one class, 6.1–7.4× within one machine).
So the class's next-session prediction (levels.predicted, every session of the class
pooled) says what another session should give, and this module what a session on a
machine not yet seen should give:

    y_jt = mu + b_j + w_jt,   b_j ~ N(0, σ_B²) the machine's shift, w_jt its session's

A new machine's session varies by σ_B² + σ_w² around mu. Each machine's mean of its log
estimates m_j varies by σ_B² + σ_w²/n_j, so with M machines

    mean of the m_j  ±  t(d) · √(S_B² (1 + 1/M) + S_w² (1 − 1/n̄))

S_B² the machine means' variance moderated as levels.moderated moderates a session
spread: S_B² = (d₀ s₀² + Σ (m_j − m̄)²) / (d₀ + M − 1), d = d₀ + M − 1, with s₀ and d₀ from
how far machine means of the other headlines of its kind differ on classes that have two
machines or more (this class's where it has them, else every class's, named so); its own
alone where they scatter more than the kind's allow (levels.strays_more). S_w is the
kind's spread between sessions (levels.borrowed_spread) and n̄ the sessions per machine:
one session per machine leaves nothing of it to add. From a single machine the width is
all borrowed, and the statement says so. interval_coverage simulates this rule on the
report's designs, and the sessions appendix checks it on the stored machines, each left
out in turn.

Another session on this session's machine varies by σ_w² alone: levels.predicted over that
machine's sessions, moderated by the kind's spread between sessions on one machine
(within_machine_spread), checked by leaving each session of a machine out of that machine's
others (leave_one_out_on_machines).
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from benchbook.analyse.sessions import levels

# Machine class → headline → each machine's mean ratio (geometric, over its sessions).
KindMachines = Mapping[str, Mapping[str, Sequence[float]]]
# Machine class → headline → machine → that machine's sessions' ratios.
KindWithin = Mapping[str, Mapping[str, Mapping[str, Sequence[float]]]]


@dataclass(frozen=True)
class AnotherMachine:
    """The prediction for a session on a machine of this class not yet measured."""

    machines: int  # M: this class's machines with a session of the headline
    estimate: float  # exp(mean of the machines' mean log ratios)
    low: float
    high: float
    borrowed: levels.Spread | None  # the kind's spread between machines it leaned on

    def holds(self, ratio: float) -> bool:
        return self.low <= ratio <= self.high


def machine_means(sessions: Sequence[levels.Session]) -> dict[str, list[float]]:
    """Each recorded machine's sessions' log ratios, in first-seen order (sessions without
    a machine, or without a usable ratio, left out)."""
    found: dict[str, list[float]] = {}
    for s in sessions:
        if s.machine and math.isfinite(s.ratio) and s.ratio > 0:
            found.setdefault(s.machine, []).append(math.log(s.ratio))
    return found


def geometric_means(ratios: Mapping[str, Sequence[float]]) -> list[float]:
    """Each machine's ratios (by machine) as one: their geometric mean."""
    return [math.exp(float(np.mean(np.log(r)))) for r in ratios.values() if len(r)]


def borrowed_machine_spread(
    kinds: KindMachines, machine_class: str, key: str
) -> levels.Spread | None:
    """How far machine means of the other headlines of this kind differ: on this class
    where two or more of them have two machines, else on every class (named so); None
    where no other headline has two machines on any class."""
    here = [m for name, m in kinds.get(machine_class, {}).items() if name != key]
    spread = levels.kind_spread(here, levels.THIS_CLASS)
    if spread is not None and spread.headlines >= 2:
        return spread
    every = [(name, m) for group in kinds.values() for name, m in group.items() if name != key]
    pooled = levels.kind_spread([m for _, m in every], levels.EVERY_CLASS)
    if pooled is None:
        return spread
    # A headline on two classes counts twice in the estimate, once in what is said.
    return replace(pooled, headlines=len({name for name, m in every if len(m) >= 2}))


def another_machine(
    sessions: Sequence[levels.Session],
    between: levels.Spread | None,
    within: levels.Spread | None,
) -> AnotherMachine | None:
    """The module's rule over one class's ``sessions`` of a headline: ``between`` the kind's
    spread of machine means to lean on, ``within`` its spread between sessions. None
    without a recorded machine, or with fewer than 3 machines and nothing to borrow."""
    means = machine_means(sessions)
    if not means:
        return None
    m = np.array([float(np.mean(y)) for y in means.values()])
    count = len(m)
    squares = float(((m - m.mean()) ** 2).sum())
    per_machine = float(np.mean([len(y) for y in means.values()]))
    within_sd = within.sd if within is not None else 0.0
    if between is None or levels.strays_more(squares, count, between):
        if count < levels.MIN_SESSIONS:
            return None
        sd, df, used = math.sqrt(squares / (count - 1)), float(count - 1), None
    elif math.isinf(between.df):
        sd, df, used = between.sd, math.inf, between
    else:
        df = between.df + count - 1
        sd, used = math.sqrt((between.df * between.sd**2 + squares) / df), between
    q = levels.quantile(df)
    half = q * math.sqrt(sd**2 * (1 + 1 / count) + within_sd**2 * (1 - 1 / per_machine))
    centre = float(m.mean())
    return AnotherMachine(count, math.exp(centre), math.exp(centre - half),
                          math.exp(centre + half), used)  # fmt: skip


@dataclass(frozen=True)
class AnotherSession:
    """The prediction for another session on the machine this session ran on: its own
    sessions there, with the kind's spread between sessions on one machine."""

    sessions: int  # this machine's sessions of the headline, this one included
    model: levels.Pooled
    leaned: levels.Spread | None  # the spread it leaned on (None: its own sessions alone)


def within_machine_spread(kinds: KindWithin, machine_class: str, key: str) -> levels.Spread | None:
    """How far sessions on one machine differ over the other headlines of this kind (each
    headline's sessions on each machine that has two or more, a group of their own): on
    this class, else on every class (named so); None where no other headline has two
    sessions on one machine. Its ``headlines`` counts headlines, not groups."""
    for scope, classes in ((levels.THIS_CLASS, [machine_class]), (levels.EVERY_CLASS, [*kinds])):
        groups = [(name, ratios) for cls in classes for name, by in kinds.get(cls, {}).items()
                  if name != key for ratios in by.values() if len(ratios) >= 2]  # fmt: skip
        spread = levels.kind_spread([ratios for _, ratios in groups], scope)
        if spread is not None:
            return replace(spread, headlines=len({name for name, _ in groups}))
    return None


def another_session(
    sessions: Sequence[levels.Session], machine: str, within: levels.Spread | None
) -> AnotherSession | None:
    """What another session on ``machine`` should give: levels.predicted over that machine's
    ``sessions`` of one class, moderated by ``within`` (within_machine_spread). None where
    the machine was not recorded, or with fewer than 3 sessions and nothing to borrow."""
    mine = [s for s in sessions if machine and s.machine == machine and s.ratio > 0]
    model = levels.predicted(mine, within) if mine else None
    if model is None:
        return None
    y = np.log([s.ratio for s in mine])
    squares = float(((y - y.mean()) ** 2).sum())
    strays = within is None or levels.strays_more(squares, len(y), within)
    return AnotherSession(len(mine), model, None if strays else within)


def leave_one_out_on_machines(
    sessions: Sequence[levels.Session], within: levels.Spread | None
) -> list[levels.HeldOut]:
    """Each session of a machine with two or more judged by that machine's other sessions
    (levels.leave_one_out with ``within``): the check of another_session's rule."""
    held = []
    for machine in machine_means(sessions):
        held += levels.leave_one_out([s for s in sessions if s.machine == machine], within)
    return held


@dataclass(frozen=True)
class MachineHeldOut:
    """One machine's sessions judged by the statement the class's other machines make."""

    machine: str
    sessions: int
    inside: int


def leave_one_machine_out(
    sessions: Sequence[levels.Session],
    between: levels.Spread | None,
    within: levels.Spread | None,
) -> list[MachineHeldOut]:
    """Each recorded machine of one class left out in turn: how many of its sessions lie
    inside ``another_machine`` of the rest ([] below two machines)."""
    machines = list(machine_means(sessions))
    held = []
    for machine in machines if len(machines) >= 2 else []:
        rest = [s for s in sessions if s.machine != machine]
        statement = another_machine(rest, between, within)
        if statement is None:
            continue
        own = [s for s in sessions if s.machine == machine and s.ratio > 0]
        held.append(MachineHeldOut(machine, len(own), sum(statement.holds(s.ratio) for s in own)))
    return held
