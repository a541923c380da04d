"""How often the statement for another machine of a class (sessions.machines) holds a session
measured on a machine not yet seen, simulated on the report's design; the test suite runs
it and the sessions appendix prints it.

A headline's session on machine j is y = b_j + (its session's estimate), b_j ~ N(0, σ_B²)
the machine's shift, the session's estimate drawn as interval_coverage draws one (6 paired
rounds, the headline's run noise, a session shift of SESSION_TAU within the machine). One
session per machine, as most stored machines have: the statement then rests on the machine
means alone. Its kind's other headlines, whose machine means it borrows its spread from,
have two machines each (as the classes with two recorded boots have them), each with
σ_B the kind's (KIND_MACHINE_SD) times a factor drawn log-uniform over SPREAD_RANGE; the
headline's own σ_B is the kind's times each factor of SPREAD_FACTORS. From M machines the
statement is built and checked against machine M + 1's session.
"""

from dataclasses import dataclass
from functools import cache

import numpy as np
from scipy import stats

from benchbook.analyse.sessions import levels
from benchbook.analyse.sessions.interval_coverage import (
    CONFIDENCE,
    DESIGNS,
    REPLICATES,
    SPREAD_FACTORS,
    SPREAD_RANGE,
    run_sds,
    session_estimates,
)

MACHINES = (1, 2, 3, 4, 6)
# Between machines of one class, on the log scale: the stored classes' machines of one
# headline differ by about this much (Go vs FastAPI with a 1 ms sleep: 7.5–9.9×, issue 45).
KIND_MACHINE_SD = 0.10
SESSION_TAU = 0.05  # sessions on one machine, beyond their rounds
OTHER_HEADLINES, OTHER_MACHINES = 8, 2
SEED = 20261207


@dataclass(frozen=True)
class MachineCell:
    factor: float  # the headline's between-machine SD over its kind's
    machines: int  # M: the machines the statement is built from
    covered: float  # how often machine M + 1's session lies inside
    stated: float  # the share of replicates with a statement (its own spread needs M ≥ 3)


def machine_sessions(
    machines: int, sd: np.ndarray, own: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """One session's log estimate on each of ``machines`` machines, shape (replicates,
    machines): a machine shift of SD ``sd`` (replicates, 1) plus a session on it (``own``:
    the headlines' run SDs, interval_coverage.run_sds)."""
    replicates = len(own)
    y, _ = session_estimates(DESIGNS[0], machines, SESSION_TAU, replicates, rng, own)
    return y + sd * rng.standard_normal((replicates, machines))


def statement(m: np.ndarray, s0: np.ndarray, d0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """machines.another_machine over each row's M machine means (one session each, so no
    within-machine term): (low, high), NaN where it makes none."""
    count = m.shape[1]
    centre = m.mean(axis=1)
    squares = ((m - centre[:, None]) ** 2).sum(axis=1)
    finite = np.isfinite(d0)
    if count >= 2:
        ratio = squares / (count - 1) / s0**2
        limit = np.where(
            finite,
            stats.f.ppf(1 - levels.OWN_SPREAD_TEST, count - 1, np.where(finite, d0, 1)),
            stats.chi2.ppf(1 - levels.OWN_SPREAD_TEST, count - 1) / (count - 1),
        )
        strays = ratio > limit
    else:
        strays = np.zeros(len(m), dtype=bool)
    df = np.where(finite, np.where(finite, d0, 0) + count - 1, np.inf)
    sd = np.where(finite, np.sqrt((np.where(finite, d0, 0) * s0**2 + squares) / df), s0)
    if count >= levels.MIN_SESSIONS:
        own_sd = np.sqrt(squares / (count - 1))
        sd, df = np.where(strays, own_sd, sd), np.where(strays, count - 1, df)
    else:
        sd = np.where(strays, np.nan, sd)
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * sd * np.sqrt(1 + 1 / count)
    return centre - half, centre + half


@cache
def coverage(replicates: int = REPLICATES, seed: int = SEED) -> tuple[MachineCell, ...]:
    """Every cell of factor × M, seeded (once per process)."""
    rng = np.random.default_rng(seed)
    own = run_sds(replicates, rng)  # each headline's run SD, shape (replicates, 1, 1)
    low, high = np.log(SPREAD_RANGE)
    others = np.empty((replicates, OTHER_HEADLINES, OTHER_MACHINES))
    for h in range(OTHER_HEADLINES):
        sd = KIND_MACHINE_SD * np.exp(rng.uniform(low, high, (replicates, 1)))
        others[:, h, :] = machine_sessions(OTHER_MACHINES, sd, own, rng)
    s0, d0 = levels.prior_spread(
        others.var(axis=2, ddof=1), np.full(OTHER_HEADLINES, OTHER_MACHINES - 1.0)
    )
    cells = []
    for factor in SPREAD_FACTORS:
        for count in MACHINES:
            sd = np.full((replicates, 1), factor * KIND_MACHINE_SD)
            y = machine_sessions(count + 1, sd, own, rng)
            lo, hi = statement(y[:, :count], s0, d0)
            made = ~np.isnan(lo)
            inside = (lo <= y[:, count]) & (y[:, count] <= hi)
            cells.append(MachineCell(factor, count, float(inside[made].mean()), float(made.mean())))
    return tuple(cells)
