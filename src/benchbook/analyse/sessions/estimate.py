"""One session's estimate of a comparison: what ``replication.spread`` reads of each stored
run (its ratio with interval and variance, its machine and speed references, its
conditions, the servers' CPU cost), computed from that run alone, so the results store
can keep it (store.estimates) and every later analysis reads it back."""

import functools
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import comparison, count_text
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.rows.limits import counted_rows, set_apart
from benchbook.analyse.sessions.machine_classes import machine_class
from benchbook.runs.manifest import description_of, plan_of
from benchbook.store.sessions import StoredSession

# The parameters that make two runs measure the same comparison: the load, the tool, the
# warm-up, the servers' own settings, the cores, whether servers restart each round, and
# the hosts and the link between them.
# Not the round count, the other targets of the run, or the calibration it read.
CONDITIONS = ("tools", "loads", "warmup_s", "pinning", "restart", "hosts")


def headline_key(experiment: str, a: str, b: str) -> str:
    """One comparison whichever side is on top (a ratio and its inverse spread alike)."""
    return f"{experiment}: " + " / ".join(sorted((a, b)))


def conditions(manifest: dict, servers: set[str], ignore: Sequence[str] = ()) -> dict:
    """What must be equal for two runs to measure the same comparison of ``servers``
    (``ignore``: conditions this comparison matches otherwise, e.g. capacities at one
    latency objective over each session's own grid of offered rates)."""
    plan, description = plan_of(manifest), description_of(manifest)
    every = {
        "tools": plan.tools, "loads": plan.loads, "warmup_s": plan.warmup_s,
        "pinning": plan.pinning, "restart": description.restart, "hosts": plan.hosts,
    }  # fmt: skip
    key = {name: every[name] for name in CONDITIONS if name not in ignore}
    key["server_params"] = {s: plan.server_params.get(s) for s in servers}
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


def session_estimate(
    run: StoredSession,
    experiment: str,
    a: str,
    b: str,
    column: str,
    select: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    ignore: Sequence[str] = (),
) -> dict | None:
    """One session's part of ``spread``: its comparison of ``a`` and ``b`` on ``column``
    over the runs that count (rows.limits) and what describes the session (its machine,
    speed references, conditions, the servers' CPU cost per request); None where the run
    lacks either side. A session where most valid runs of a side count for nothing (a busy
    machine, nothing measured at its limit) gives its comparison of the valid runs, set
    apart with the reason (``set_apart``): shown, never pooled."""
    valid = valid_rows(select(run.rows) if select else run.rows)
    if valid.empty or "target" not in valid:
        return None
    apart = set_apart(valid, a, b, column)
    data = valid if apart else counted_rows(valid, column)
    if (c := comparison(data, a, b, column)) is None:
        return None
    manifest = run.manifest
    servers = set(data.loc[data["target"].isin([a, b]), "server"])
    machine = manifest["provenance"]["machine"]
    speed = manifest["machine_speed"]
    return {
        "run_id": run.run_id,
        "date": manifest["created_utc"][:16].replace("T", " "),
        "commit": (manifest.get("provenance", {}).get("git") or {}).get("commit"),
        "machine": f"{machine.get('hostname', 'unrecorded')} "
        f"({machine.get('logical_cpus', '?')} CPUs)",
        "machine_class": machine_class(machine),
        "boot": machine.get("boot_id") or "",  # the machine (sessions.machines)
        "speed": speed_text(speed),
        "go_s": _mean_speed(speed, "go_s"),
        "python_s": _mean_speed(speed, "python_s"),
        "cpu_per_request": cpu_per_request_text(data, a, b),
        "ratio": c.ratio,
        "ci_low": c.ratio_low,
        "ci_high": c.ratio_high,
        "ci_level": c.ratio_confidence,
        "log_variance": c.log_variance,
        "kind": column,
        "headline": headline_key(experiment, a, b),
        "n": count_text(c),
        "cpu_cost": cpu_cost(data, a, b),
        "conditions": conditions(manifest, servers, ignore),
        "set_apart": apart,
    }


def cpu_cost(valid: pd.DataFrame, a: str, b: str) -> float | None:
    """b's median server CPU time per request over a's (None where unrecorded): the rate
    ratio a/b that CPU cost alone would give servers that use all of their CPU, so a move
    across classes can be split into what a request costs and how much of the CPU the
    servers got to use."""
    column = "server_cpu_ms_per_request"
    if column not in valid:
        return None
    costs = [valid.loc[valid["target"] == side, column].median() for side in (a, b)]
    if all(cost == cost and cost > 0 for cost in costs):
        return float(costs[1] / costs[0])
    return None


@functools.cache
def estimates_version() -> str:
    """What a stored session estimate was computed with: a digest of the analysis and the
    run format's code (every file, conservatively), so an edit of either computes the
    estimates again, once."""
    digest = hashlib.sha256()
    for path in estimate_sources():
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


PACKAGE = Path(__file__).resolve().parents[2]  # src/benchbook


def estimate_sources() -> list[Path]:
    """The files estimates_version digests: every module of analyse/ and runs/."""
    return [p for folder in ("analyse", "runs") for p in sorted((PACKAGE / folder).rglob("*.py"))]
