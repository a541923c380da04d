"""How many rounds per session and how many sessions a headline needs for a target width,
and in how many minutes (after Kalibera & Jones, "Rigorous benchmarking in reasonable
time", ISMM 2013).

A headline's log ratio varies at two levels (levels' model): between rounds inside a
session (variance ``round_var`` per round, so a session of n rounds has v = round_var / n)
and between sessions on one machine class (``session_var``, tau²). A session's estimate
then scatters around the class's ratio with variance ``session_var + round_var / n``, and
with k sessions the report's two intervals (levels.pooled) have the half-widths, on the
log scale,

    pooled interval:        t(k−1) · √((tau² + σ²/n) / k)
    next-session interval:  t(k−1) · √((tau² + σ²/n) · (1 + 1/k))

The second never falls below z · tau, however many rounds and sessions: that is the floor
a target below it cannot reach. Each session costs ``fixed_s`` + n · ``round_s``
(``costs_from``: the run's own timestamps). ``plan`` searches whole n and k for the
cheapest design that reaches a target, which the tests check against the closed form
n* = √(σ² · fixed_s / (tau² · round_s)) where the target is not at a boundary.

A third level lies above them: machine classes. A headline pools and plans within its
class; where other classes hold sessions under the same conditions, the appendix names how
far the classes' means differ (words.sessions.classes_sentence), since another class's
next session is predicted from its own sessions, not from this class's interval.
"""

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from statistics import median

from scipy import stats

from benchbook.analyse.sessions.levels import normal_quantile

# Rounds per session: a paired signed-rank test reaches p < 0.05 from six rounds (the
# verdicts need one within each session); beyond sixty, a design is one long session.
MIN_ROUNDS, MAX_ROUNDS = 6, 60
MAX_SESSIONS = 40
POOLED, NEXT_SESSION = "pooled", "next session"


@dataclass(frozen=True)
class Components:
    """A headline's variance at each level, on the log scale, from its sessions."""

    round_var: float  # between rounds inside a session, per round (σ²)
    session_var: float  # between sessions on one machine class, beyond their rounds (tau²)
    rounds: int  # per session, as measured
    sessions: int  # on this machine class, under the same conditions

    def session_estimate_var(self, rounds: int) -> float:
        return self.session_var + self.round_var / rounds


@dataclass(frozen=True)
class Costs:
    """What a session of one experiment costs, in seconds: once, and per round."""

    fixed_s: float
    round_s: float

    def session_s(self, rounds: int) -> float:
        return self.fixed_s + rounds * self.round_s


@dataclass(frozen=True)
class Plan:
    """The cheapest design reaching ``target`` (a half-width as a share, 0.10 = ±10 %),
    or None where the target lies below the floor or past MAX_ROUNDS and MAX_SESSIONS."""

    interval: str  # POOLED or NEXT_SESSION
    target: float
    rounds: int | None
    sessions: int | None
    minutes: float | None  # of all ``sessions``
    reached: float | None  # the half-width that design gives, as a share
    floor: float  # the smallest half-width any design reaches (0 for the pooled interval)


def as_share(log_half_width: float) -> float:
    """A half-width on the log scale as a share of the ratio (its upper side)."""
    return math.expm1(log_half_width)


def _t(sessions: int) -> float:
    return float(stats.t.ppf(0.975, sessions - 1))


def half_width(c: Components, interval: str, rounds: int, sessions: int) -> float:
    """The expected half-width (as a share) of ``interval`` with ``sessions`` sessions of
    ``rounds`` rounds each (2 sessions at least: one gives no spread of its own)."""
    spread = c.session_estimate_var(rounds)
    factor = 1 / sessions if interval == POOLED else 1 + 1 / sessions
    return as_share(_t(sessions) * math.sqrt(spread * factor))


def floor(c: Components, interval: str) -> float:
    """What no number of rounds and sessions narrows: z · tau for the next session's
    interval, nothing for the pooled one."""
    if interval == POOLED:
        return 0.0
    return as_share(normal_quantile() * math.sqrt(c.session_var))


def plan(c: Components, costs: Costs, target: float, interval: str) -> Plan:
    """The design of the fewest seconds whose ``interval`` is at most ``target`` wide."""
    best: tuple[float, int, int] | None = None
    for rounds in range(MIN_ROUNDS, MAX_ROUNDS + 1):
        for sessions in range(2, MAX_SESSIONS + 1):
            if half_width(c, interval, rounds, sessions) <= target:
                seconds = sessions * costs.session_s(rounds)
                if best is None or seconds < best[0]:
                    best = (seconds, rounds, sessions)
                break  # more sessions at these rounds only cost more
    low = floor(c, interval)
    if best is None:
        return Plan(interval, target, None, None, None, None, low)
    seconds, rounds, sessions = best
    reached = half_width(c, interval, rounds, sessions)
    return Plan(interval, target, rounds, sessions, seconds / 60, reached, low)


def components_from(spread: Sequence[Mapping]) -> Components | None:
    """The variance components of one headline from its spread rows (findings' ``spread``:
    every stored session with its ratio, its log variance from its rounds and its rounds
    ``n``): the sessions of the current one's machine class under the same conditions.
    Method of moments: σ² is the median of v_i · n_i; tau² what the sessions' estimates
    scatter beyond their own v_i (0 where they scatter less). None below 2 sessions."""
    current = [r for r in spread if r.get("current")]
    if not current:
        return None
    machine_class = current[0].get("machine_class")
    own = [
        r for r in spread
        if r.get("machine_class") == machine_class and r.get("same_conditions", True)
        and (r.get("ratio") or 0) > 0 and math.isfinite(r.get("log_variance") or math.nan)
        and r.get("n")
    ]  # fmt: skip
    if len(own) < 2:
        return None
    rounds = [rounds_of(r["n"]) for r in own]
    logs = [math.log(r["ratio"]) for r in own]
    round_var = median(r["log_variance"] * n for r, n in zip(own, rounds, strict=True))
    mean = sum(logs) / len(logs)
    scatter = sum((y - mean) ** 2 for y in logs) / (len(logs) - 1)
    within = sum(r["log_variance"] for r in own) / len(own)
    return Components(round_var, max(scatter - within, 0.0), rounds_of(current[0]["n"]), len(own))


def rounds_of(n: object) -> int:
    """A session's rounds from its ``n``: '6 rounds' paired, '4+4' two samples of 4 each."""
    found = re.match(r"\s*(\d+)", str(n))
    if found is None:
        raise ValueError(f"n: {n!r} names no rounds")
    return int(found.group(1))


def costs_from(manifest: Mapping) -> Costs | None:
    """A session's costs from its run's manifest: from its creation to its completion, the
    machine-speed references before and after (fixed) and the rounds (each round the same
    share of the rest). None for a run that did not record its end or its rounds."""
    orders = manifest.get("round_orders")
    if not manifest.get("completed_utc") or not orders:
        return None
    total = (
        datetime.fromisoformat(manifest["completed_utc"])
        - datetime.fromisoformat(manifest["created_utc"])
    ).total_seconds()
    speed = manifest.get("machine_speed") or {}
    references = sum(
        sum(speed[side][runs])
        for side in ("before", "after") if side in speed
        for runs in ("go_runs", "python_runs")
    )  # fmt: skip
    rounds_s = max(total - references, 0.0)
    return Costs(fixed_s=references, round_s=rounds_s / len(orders))
