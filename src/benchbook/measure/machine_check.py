"""Is the machine quiet enough to measure? Before an experiment measures, the CPU that
processes outside benchbook's own tree use is sampled for a moment (foreign_cpu). Above
runs.limits.BUSY_FOREIGN_PCT of a core, the busiest of them are named and the check waits
for them to finish, re-sampling, up to a settling time; if they do not, the experiment
measures anyway (its runs are what the user asked for) and every one of its rows carries
what was found (``busy_at_start``): runs.limits then sets them apart as measured on a busy
machine, so they are shown, never pooled. hyperfine and pyperf warn the same way when
other programs run beside a benchmark; neither the 1-minute load average (which a
measurement itself keeps near 2 on two cores) nor a silent wait would say which program.

``BENCHBOOK_MACHINE_CHECK_S`` sets the sampling time (default 1 s) and
``BENCHBOOK_SETTLE_S`` the longest wait (default 120 s; 0 measures at once).
"""

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from benchbook.measure import foreign_cpu
from benchbook.runs.limits import BUSY_FOREIGN_PCT

RESAMPLE_EVERY_S = 5.0


@dataclass(frozen=True)
class MachineCheck:
    foreign_cpu_pct: float  # of one core, in the last sample
    processes: str  # the busiest of them ('' when quiet)
    settled: bool
    waited_s: float

    @property
    def busy_at_start(self) -> float:
        """What every row carries: the other work's CPU if it never settled, else 0."""
        return 0.0 if self.settled else self.foreign_cpu_pct

    def stored(self) -> dict:
        return asdict(self)


def _seconds(variable: str, default: float) -> float:
    text = os.environ.get(variable, "")
    try:
        return float(text) if text else default
    except ValueError:
        raise ValueError(f"{variable}={text!r}: expected a number of seconds") from None


def sample(seconds: float) -> foreign_cpu.ForeignUse:
    before, started = foreign_cpu.snapshot(), time.monotonic()
    time.sleep(seconds)
    return foreign_cpu.foreign_use(before, foreign_cpu.snapshot(), time.monotonic() - started)


def check_machine(say: Callable[[str], None] = print) -> MachineCheck:
    """Sample other work; while busy, name it and wait (see the module's docstring)."""
    sample_s = _seconds("BENCHBOOK_MACHINE_CHECK_S", 1.0)
    settle_s = _seconds("BENCHBOOK_SETTLE_S", 120.0)
    started = time.monotonic()
    use = sample(sample_s)
    if use.cpu_pct < BUSY_FOREIGN_PCT:
        return MachineCheck(use.cpu_pct, "", True, 0.0)
    say(
        f"The machine is busy: processes outside this run used {use.cpu_pct:.0f} % of a core "
        f"({use.processes_text()}). A server woken by a request waits behind them, so they "
        f"would set its rate. Waiting up to {settle_s:g} s for them to finish "
        "(BENCHBOOK_SETTLE_S)…"
    )
    while time.monotonic() - started + RESAMPLE_EVERY_S <= settle_s:
        time.sleep(RESAMPLE_EVERY_S)
        use = sample(sample_s)
        if use.cpu_pct < BUSY_FOREIGN_PCT:
            waited = time.monotonic() - started
            say(f"The machine settled after {waited:.0f} s; measuring.")
            return MachineCheck(use.cpu_pct, "", True, round(waited, 1))
    waited = time.monotonic() - started
    say(
        f"Still busy after {waited:.0f} s ({use.cpu_pct:.0f} % of a core: "
        f"{use.processes_text()}). Measuring anyway: every run of this experiment is marked "
        "as measured on a busy machine (flag busy_machine), shown but kept out of every "
        "pooled estimate."
    )
    return MachineCheck(use.cpu_pct, use.processes_text(), False, round(waited, 1))
