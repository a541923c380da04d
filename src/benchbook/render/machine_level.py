"""The sessions appendix's part on machines (analyse.sessions.machines): what another session
on this machine and another machine of this class should give, how the second rule covered a
new machine's session in the simulation (analyse.sessions.machine_coverage), and how both held
on the stored machines, each session or machine left out."""

from collections.abc import Sequence
from dataclasses import dataclass

from benchbook.analyse.sessions import interval_coverage, machine_coverage
from benchbook.render.notebook_html import Section
from benchbook.render.spread_page import percent


@dataclass(frozen=True)
class MachineLevel:
    factors: tuple[str, ...]  # "1×": the headline's between-machine SD over its kind's
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # M machines, coverage per factor (%)
    typical: tuple[float, float]  # lowest and highest at factor 1, over every M
    kind_sd: float
    session_tau: float
    other_headlines: int
    other_machines: int
    # Over this report's headlines: the headlines with a statement, how many rest on one
    # machine alone, and the stored machines left out in turn (their sessions, inside).
    stated: int
    one_machine: int
    held_out: int
    inside: int
    # The same for another session on this machine: headlines that state it, and each
    # session of a machine with two or more left out of that machine's others.
    session_stated: int
    session_held_out: int
    session_inside: int


def machine_level(sections: Sequence[Section]) -> MachineLevel:
    """The simulation (seeded: the same figures every time) and the report's headlines'
    statements and checks."""
    cells = machine_coverage.coverage()
    factors = interval_coverage.SPREAD_FACTORS
    rows = tuple(
        (m, tuple(percent(c.covered) for f in factors for c in cells
                  if c.machines == m and c.factor == f))
        for m in machine_coverage.MACHINES
    )  # fmt: skip
    typical = [c.covered for c in cells if c.factor == 1.0]
    headlines = [h for s in sections for f in s.findings for h in f["headlines"]]
    stated = [h for h in headlines if h.get("another_machine")]
    checks = [c for h in headlines for c in h.get("machines_held_out") or []]
    here = [c for h in headlines for c in h.get("held_out_on_machines") or []]
    return MachineLevel(
        factors=tuple(f"{f:g}×" for f in factors),
        rows=rows,
        typical=(min(typical), max(typical)),
        kind_sd=machine_coverage.KIND_MACHINE_SD,
        session_tau=machine_coverage.SESSION_TAU,
        other_headlines=machine_coverage.OTHER_HEADLINES,
        other_machines=machine_coverage.OTHER_MACHINES,
        stated=len(stated),
        one_machine=sum(h.get("machines") == 1 for h in stated),
        held_out=sum(c["sessions"] for c in checks),
        inside=sum(c["inside"] for c in checks),
        session_stated=sum(bool(h.get("another_session")) for h in headlines),
        session_held_out=len(here),
        session_inside=sum(c["inside"] for c in here),
    )
