"""Load-tool ceilings: how many requests per second each tool setting can produce here.

Notebook 00 measures them against the fastest server (experiment ``00_load_generators``).
Every later experiment row on the same machine carries ``headroom`` = its req/s ÷ the
ceiling of its tool setting: near 1, the number measured may be the tool's, not the
server's. A ceiling reached while the tool had CPU to spare was the server's limit, so
it is a lower bound on the tool's, and the headroom computed from it an upper bound.
"""

import math
from dataclasses import replace
from pathlib import Path

import pandas as pd

from benchbook.measure import provenance
from benchbook.measure.provenance import MACHINE_KEYS
from benchbook.runs.calibration import (
    CALIBRATION_EXPERIMENT,
    NOT_CALIBRATED,
    Ceilings,
    tool_set_share,
)
from benchbook.runs.flags import SHORT_RUN_S
from benchbook.runs.limits import Limit
from benchbook.runs.manifest import COMPLETED, description_of, plan_of
from benchbook.runs.store import RunStore

# A calibration whose runs are this short, or this few, gives ceilings too rough to use.
MIN_REPETITIONS = 3


def same_machine(machine: dict[str, object]) -> bool:
    here = provenance.machine()
    return all(machine.get(key) == here[key] for key in MACHINE_KEYS)


def unusable_because(manifest: dict, results: pd.DataFrame | None) -> str | None:
    """Why a calibration run cannot give ceilings, every reason (None: it can)."""
    plan = plan_of(manifest)
    if not same_machine(manifest["provenance"]["machine"]):
        return "measured on another machine"
    if results is None or manifest["completion"] != COMPLETED:
        return "it did not finish (interrupted or failed)"
    reasons = []
    expected = plan.runs_planned
    if len(results) != expected:
        reasons.append(f"it holds {len(results)} of its {expected} runs")
    if results["limit"].isin([str(Limit.MACHINE), str(Limit.NONE)]).mean() > 0.5:
        reasons.append("most of its runs were set by a busy machine or by nothing measured")
    repetitions = description_of(manifest).repetitions
    if repetitions < MIN_REPETITIONS:
        reasons.append(f"{repetitions} repetitions, fewer than {MIN_REPETITIONS}")
    # Tools that count calls (ghz) have no duration: the others' runs decide.
    shortest = min(plan.load_values("duration_s"), default=None)
    if shortest is not None and shortest < SHORT_RUN_S:
        reasons.append(
            f"runs of {shortest:g} s (the smoke profile?), shorter than {SHORT_RUN_S:g} s"
        )
    return "; ".join(reasons) or None


def latest_ceilings(directory: Path | None = None) -> Ceilings:
    """The ceilings of the newest complete calibration run measured on this machine;
    newer runs that cannot serve (partial, too short, another machine) are named in
    ``skipped``, so that no row silently loses its headroom."""
    skipped = []
    for run in RunStore(directory).runs(CALIBRATION_EXPERIMENT):
        manifest = run.manifest()
        results = run.results() if run.has_results else None
        reason = unusable_because(manifest, results)
        if reason:
            skipped.append(f"{run.run_id}: {reason}")
            continue
        servers = ", ".join(plan_of(manifest).targets)
        ceilings = ceilings_from(results, manifest["run_id"], servers)
        return replace(ceilings, skipped=tuple(skipped))
    return replace(NOT_CALIBRATED, skipped=tuple(skipped))


def ceilings_from(results: pd.DataFrame, run_id: str, server: str) -> Ceilings:
    """Each setting's median req/s over its runs that the tool or the server set
    (runs.limits): a run a busy machine set, or that nothing measured limited, measures
    neither, and gives no ceiling. The tool's own ceiling where most of them the tool set."""
    counted = results[results["limit"].isin([str(Limit.LOAD_TOOL), str(Limit.SERVER)])]
    medians = counted.groupby("tool_setting")["rps"].median()
    by_setting = {setting: float(rps) for setting, rps in medians.items() if not math.isnan(rps)}
    bound = tool_set_share(counted)
    return Ceilings(run_id, by_setting, server, frozenset(bound[bound >= 0.5].index))
