"""Load-tool ceilings: how many requests per second each tool setting can produce here.

Notebook 00 measures them against the fastest server (experiment ``00_load_generators``).
Every later experiment row on the same machine carries ``headroom`` = its req/s ÷ the
ceiling of its tool setting: near 1, the number measured may be the tool's, not the
server's. A ceiling reached while the tool had CPU to spare was the server's limit, so
it is a lower bound on the tool's, and the headroom computed from it an upper bound.
"""

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from benchbook import provenance
from benchbook.checks import SHORT_RUN_S
from benchbook.layout import runs_dir
from benchbook.provenance import MACHINE_KEYS
from benchbook.tables import summary_table

CALIBRATION_EXPERIMENT = "00_load_generators"
SERVER_BOUND_CPU_PCT = 90.0  # of the server's one pinned core


@dataclass(frozen=True)
class Ceilings:
    """Median req/s per tool setting in one calibration run (none: not calibrated)."""

    run_id: str | None = None
    by_setting: dict[str, float] = field(default_factory=dict)
    server: str = ""  # the target the ceilings were measured against
    # Settings whose ceiling was the tool's own (client_bound); the others were held
    # back by the server, so reaching them says nothing about the tool.
    tool_bound: frozenset[str] = frozenset()
    # Newer calibration runs that were not used, each with the reason.
    skipped: tuple[str, ...] = ()

    def headroom(self, setting: str, rps: float) -> float | None:
        """rps ÷ the setting's ceiling — only where the ceiling was the tool's own: a
        ceiling the server held back is a lower bound, and a share of it means nothing
        (a run could reach 115 % of it)."""
        ceiling = self.by_setting.get(setting)
        return round(rps / ceiling, 3) if ceiling and setting in self.tool_bound else None


NOT_CALIBRATED = Ceilings()
# A calibration whose runs are this short, or this few, gives ceilings too rough to use.
MIN_REPETITIONS = 3


def same_machine(machine: dict[str, object]) -> bool:
    here = provenance.machine()
    return all(machine.get(key) == here[key] for key in MACHINE_KEYS)


def unusable_because(manifest: dict, results: pd.DataFrame | None) -> str | None:
    """Why a calibration run cannot give ceilings, every reason (None: it can)."""
    params = manifest["params"]
    if not same_machine(manifest["provenance"]["machine"]):
        return "measured on another machine"
    if results is None or "completed_utc" not in manifest:
        return "it did not finish (interrupted or failed)"
    reasons = []
    expected = params["runs_planned"]
    if len(results) != expected:
        reasons.append(f"it holds {len(results)} of its {expected} runs")
    if params["repetitions"] < MIN_REPETITIONS:
        reasons.append(f"{params['repetitions']} repetitions, fewer than {MIN_REPETITIONS}")
    shortest = min(load["duration_s"] for load in params["loads"])
    if shortest < SHORT_RUN_S:
        reasons.append(
            f"runs of {shortest:g} s (the smoke profile?), shorter than {SHORT_RUN_S:g} s"
        )
    return "; ".join(reasons) or None


def latest_ceilings(directory: Path | None = None) -> Ceilings:
    """The ceilings of the newest complete calibration run measured on this machine;
    newer runs that cannot serve (partial, too short, another machine) are named in
    ``skipped``, so that no row silently loses its headroom."""
    directory = directory or runs_dir()
    skipped = []
    # Run ids start with their UTC start time, so names sort by age.
    for path in sorted(directory.glob(f"*-{CALIBRATION_EXPERIMENT}-*"), reverse=True):
        manifest_path, results_path = path / "manifest.json", path / "results.csv"
        if not manifest_path.exists():
            continue
        manifest = json.loads(manifest_path.read_text())
        results = pd.read_csv(results_path) if results_path.exists() else None
        reason = unusable_because(manifest, results)
        if reason:
            skipped.append(f"{path.name}: {reason}")
            continue
        ceilings = ceilings_from(results, manifest["run_id"], manifest["params"]["targets"][0])
        return replace(ceilings, skipped=tuple(skipped))
    return replace(NOT_CALIBRATED, skipped=tuple(skipped))


def ceilings_from(results: pd.DataFrame, run_id: str, server: str) -> Ceilings:
    medians = results.groupby("tool_setting")["rps"].median()
    by_setting = {setting: float(rps) for setting, rps in medians.items() if not math.isnan(rps)}
    bound = client_bound_share(results)
    return Ceilings(run_id, by_setting, server, frozenset(bound[bound >= 0.5].index))


def client_bound_share(results: pd.DataFrame) -> pd.Series:
    """Per tool setting, the share of its runs flagged client_bound."""
    return results.groupby("tool_setting", sort=False)["flags"].agg(
        lambda flags: flags.fillna("").str.contains("client_bound").mean()
    )


def limited_by(client_bound_share: float, server_cpu_pct: float) -> str:
    """Which side the ceiling belongs to, from the runs' flags and the server's CPU."""
    if client_bound_share >= 0.5:
        return "load tool"
    if server_cpu_pct >= SERVER_BOUND_CPU_PCT:
        return "server"
    return "neither"


def ceiling_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per tool setting: median req/s with its CI, the CPU both sides used, and which of
    them set the limit."""
    table = summary_table(results, by=["tool_setting"])
    client_bound = client_bound_share(results)
    table["limited by"] = [
        limited_by(client_bound[setting], cpu) for setting, cpu in table["server CPU %"].items()
    ]
    return table[
        ["runs", "req/s", "req/s CI", "CI level", "client CPU %", "server CPU %",
         "host CPU steal %", "limited by", "flags"]
    ]  # fmt: skip


def limits_sentence(table: pd.DataFrame) -> str:
    """Which settings were held back by the tool itself and which by the server, from a
    ceiling_table."""
    meaning = {
        "load tool": "by the load tool itself",
        "server": "by the server (the tool's own ceiling is higher)",
        "neither": "by neither side's CPU (see the flags)",
    }
    groups: dict[str, list[str]] = {}
    for setting, limit in table["limited by"].items():
        groups.setdefault(limit, []).append(str(setting))
    return (
        "Limited "
        + "; ".join(
            f"{meaning[limit]}: {', '.join(settings)}" for limit, settings in groups.items()
        )
        + "."
    )


def ceilings_sentence(ceilings: Ceilings) -> str:
    """'Load-tool ceilings …: wrk: 22,133 req/s; …', fastest first, with how many times
    each slower setting falls below the fastest (the method sections cite this)."""
    skipped = (
        " Newer calibration runs not used: " + "; ".join(ceilings.skipped) + "."
        if ceilings.skipped
        else ""
    )
    if not ceilings.run_id:
        return (
            "No usable load-tool calibration from this machine, so no row has a "
            "`headroom` and `near_tool_ceiling` cannot be flagged: run "
            "`notebooks/00_load_generators.ipynb` with the quick or full profile first "
            f"(`make report` does).{skipped}"
        )
    ranked = sorted(ceilings.by_setting.items(), key=lambda item: -item[1])
    top = ranked[0][1]
    parts = [
        (
            f"{setting}: {rps:,.0f} req/s"
            if setting in ceilings.tool_bound
            else f"{setting}: at least {rps:,.0f} req/s (held back by the server)"
        )
        + (f", {top / rps:.2g}× below {ranked[0][0]}" if rps < top else "")
        for setting, rps in ranked
    ]
    return (
        f"Load-tool ceilings on this machine (calibration run `{ceilings.run_id}`, against "
        f"{ceilings.server} on its own core): {'; '.join(parts)}.{skipped}"
    )
