"""One comparison across measuring sessions: every stored run of the experiment, which
of them measured the same comparison under the same conditions, the spread of their
estimates, the interval a verdict is judged on, and whether the estimate moved with the
machine's speed.

A session is one run of an experiment (one `make report`, or one of `make replicate`'s
N). Within one session the rounds sample what varies over a few minutes; between
sessions the machine itself changes speed (10–35 % on the shared 2-core machine), which
no interval inside one session can show. So a verdict uses the wider of this session's
interval and the range of the sessions' estimates.
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from benchbook.analyse import formatting as fmt
from benchbook.analyse.pairing import comparison, count_text
from benchbook.analyse.stats import Comparison
from benchbook.analyse.tables import valid_rows
from benchbook.measure.run_store import Run, RunStore

# The parameters that make two runs measure the same comparison: the load, the tool, the
# warm-up, the servers' own settings, the cores, whether servers restart each round, and
# the hosts and the link between them.
# Not the round count, the other targets of the run, or the calibration it read.
CONDITIONS = ("tools", "loads", "warmup_s", "pinning", "restart", "hosts")
# A reference workload that took this much longer or shorter between two sessions means
# the machine's speed changed between them.
SPEED_CHANGE = 0.05
# The words a moved estimate's sentence uses when the machine's speed changed as well
# (which says nothing yet about cause: the reader compares the two).
WITH_SPEED = "the machine's speed changed too"


@dataclass(frozen=True)
class Replication:
    """The sessions behind one headline (this one included) and their estimates' range."""

    sessions: int
    low: float | None = None
    high: float | None = None
    moved: str = ""  # '' or a sentence: the estimate moved between sessions, and with what

    def judged(self, c: Comparison) -> tuple[float, float]:
        """The interval a verdict uses: the wider of this session's and the sessions'."""
        if self.sessions < 2 or self.low is None or self.high is None:
            return c.ratio_low, c.ratio_high
        return min(c.ratio_low, self.low), max(c.ratio_high, self.high)

    def disagree(self) -> bool:
        """The sessions' estimates lie on both sides of 1: no direction holds."""
        return self.sessions >= 2 and self.low is not None and self.low < 1 < self.high

    def text(self) -> str:
        """'3 sessions: 4.2–6.1×' — how many sessions, and their estimates' range."""
        if self.sessions < 2:
            return "1 session"
        return f"{self.sessions} sessions: {fmt.interval(self.low, self.high)}"


def stored_runs(experiment: str, directory: Path | None = None) -> list[Run]:
    """Every finished run of ``experiment`` with results, oldest first: a run killed or
    failed mid-way (no ``completed_utc``) is no session, whatever rows it kept."""
    runs = reversed(list(RunStore(directory).runs(experiment)))
    return [run for run in runs if run.has_results and run.completed]


def conditions(params: dict, servers: set[str]) -> dict:
    """What must be equal for two runs to measure the same comparison of ``servers``."""
    key = {name: params.get(name) for name in CONDITIONS}
    key["server_params"] = {s: (params.get("server_params") or {}).get(s) for s in servers}
    return key


def speed_text(speed: dict | None) -> str:
    """The machine-speed reference of a run: seconds of a fixed Go, then Python workload,
    before → after it ('0.61→0.63, 0.70→0.71'; lower is faster); '–' for runs measured
    before it was recorded."""
    if not speed:
        return "–"
    parts = []
    for key in ("go_s", "python_s"):
        parts.append(f"{speed['before'][key]:.2f}→{speed['after'][key]:.2f}")
    return ", ".join(parts)


def _mean_speed(speed: dict | None, key: str) -> float | None:
    if not speed:
        return None
    return (speed["before"][key] + speed["after"][key]) / 2


def cpu_per_request_text(valid: pd.DataFrame, a: str, b: str) -> str:
    """The median server CPU time per request of each side, in ms ('–' where unrecorded)."""
    column = "server_cpu_ms_per_request"
    if column not in valid:
        return "–"
    medians = [valid.loc[valid["target"] == side, column].median() for side in (a, b)]
    if any(m != m for m in medians):
        return "–"
    return " / ".join(fmt.milliseconds(m) for m in medians)


def spread(
    experiment: str,
    a: str,
    b: str,
    column: str = "rps",
    select: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    current: set[str] | None = None,
    directory: Path | None = None,
) -> list[dict]:
    """The same comparison in every stored run of ``experiment`` that has both targets:
    date, machine and its speed, ratio with its CI and level, n, and whether the run
    measured it under this session's conditions (``same_conditions``; this session's run
    is ``current``)."""
    rows, keys = [], {}
    for run in stored_runs(experiment, directory):
        manifest = run.manifest()
        data = valid_rows(select(run.results()) if select else run.results())
        if data.empty or "target" not in data:
            continue  # nothing of this comparison in that run (e.g. not that tool)
        c = comparison(data, a, b, column)
        if c is None:
            continue
        servers = set(data.loc[data["target"].isin([a, b]), "server"])
        keys[run.run_id] = conditions(manifest.get("params", {}), servers)
        machine = manifest.get("provenance", {}).get("machine", {})
        speed = manifest.get("machine_speed")
        rows.append(
            {
                "run_id": run.run_id,
                "date": manifest["created_utc"][:16].replace("T", " "),
                "machine": f"{machine.get('hostname', 'unrecorded')} "
                f"({machine.get('logical_cpus', '?')} CPUs)",
                "speed": speed_text(speed),
                "go_s": _mean_speed(speed, "go_s"),
                "python_s": _mean_speed(speed, "python_s"),
                "cpu_per_request": cpu_per_request_text(data, a, b),
                "ratio": c.ratio,
                "ci_low": c.ratio_low,
                "ci_high": c.ratio_high,
                "ci_level": c.ratio_confidence,
                "n": count_text(c),
                "current": run.run_id in (current or set()),
            }
        )
    reference = next((keys[row["run_id"]] for row in rows if row["current"]), None)
    for row in rows:
        row["same_conditions"] = reference is not None and keys[row["run_id"]] == reference
    return rows


def replication(c: Comparison | None, runs: list[dict]) -> Replication:
    """This session (``c``) and the stored sessions of the same comparison under the same
    conditions (``runs``: ``spread``'s rows): how many, their estimates' range, and
    whether the estimate moved with the machine's speed."""
    if c is None or c.ratio != c.ratio:
        return Replication(sessions=0)
    others = [r for r in runs if r.get("same_conditions") and not r.get("current")]
    estimates = [c.ratio] + [r["ratio"] for r in others]
    return Replication(
        sessions=len(estimates),
        low=min(estimates),
        high=max(estimates),
        moved=moved_between_sessions([r for r in runs if r.get("same_conditions")]),
    )


def moved_between_sessions(runs: list[dict]) -> str:
    """When the lowest and highest session estimates lie outside each other's intervals:
    whether the machine-speed reference changed between those two sessions too."""
    timed = [r for r in runs if r.get("go_s") and r.get("python_s")]
    if len(timed) < 2:
        return ""
    low = min(timed, key=lambda r: r["ratio"])
    high = max(timed, key=lambda r: r["ratio"])
    holds = (low["ci_low"] <= high["ratio"] <= low["ci_high"]) and (
        high["ci_low"] <= low["ratio"] <= high["ci_high"]
    )
    if holds:
        return ""
    change = {k: high[k] / low[k] - 1 for k in ("go_s", "python_s")}
    moved = (
        f"Moved between sessions: {fmt.ratio(low['ratio'])} ({low['date']}) to "
        f"{fmt.ratio(high['ratio'])} ({high['date']})"
    )
    if max(abs(v) for v in change.values()) < SPEED_CHANGE:
        return (
            f"{moved}, while the machine's speed stayed within {SPEED_CHANGE * 100:.0f} %: "
            "something else changed."
        )
    return (
        f"{moved}; {WITH_SPEED}: in the session with the higher ratio its Go reference ran "
        f"{_pace(change['go_s'])} and its Python reference {_pace(change['python_s'])}."
    )


def _pace(change: float) -> str:
    """A reference workload's change in time: +0.12 → '12 % slower', -0.05 → '5 % faster'."""
    if abs(change) < 0.005:
        return "at the same speed"
    return f"{abs(change) * 100:.0f} % {'slower' if change > 0 else 'faster'}"
