"""Load-tool ceilings: how many requests per second each tool setting can produce here.

Notebook 00 measures them against the fastest server (experiment ``00_load_generators``).
Every later experiment row on the same machine carries ``headroom`` = its req/s ÷ the
ceiling of its tool setting: near 1, the number measured may be the tool's, not the
server's. A ceiling reached while the tool had CPU to spare was the server's limit, so
it is a lower bound on the tool's, and the headroom computed from it an upper bound.
"""

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchbook import provenance
from benchbook.layout import runs_dir
from benchbook.tables import summary_table

CALIBRATION_EXPERIMENT = "00_load_generators"
MACHINE_KEYS = ("hostname", "cpu_model", "logical_cpus", "cpus_available")
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

    def headroom(self, setting: str, rps: float) -> float | None:
        ceiling = self.by_setting.get(setting)
        return round(rps / ceiling, 3) if ceiling else None


NOT_CALIBRATED = Ceilings()


def same_machine(machine: dict[str, object]) -> bool:
    here = provenance.machine()
    return all(machine.get(key) == here[key] for key in MACHINE_KEYS)


def latest_ceilings(directory: Path | None = None) -> Ceilings:
    """The ceilings of the newest calibration run measured on this machine."""
    directory = directory or runs_dir()
    # Run ids start with their UTC start time, so names sort by age.
    for path in sorted(directory.glob(f"*-{CALIBRATION_EXPERIMENT}-*"), reverse=True):
        manifest_path, results_path = path / "manifest.json", path / "results.csv"
        if not (manifest_path.exists() and results_path.exists()):
            continue  # interrupted before its first row
        manifest = json.loads(manifest_path.read_text())
        if not same_machine(manifest["provenance"]["machine"]):
            continue
        targets = manifest["params"]["targets"]
        return ceilings_from(pd.read_csv(results_path), manifest["run_id"], targets[0])
    return NOT_CALIBRATED


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
        ["runs", "req/s", "req/s CI low", "req/s CI high", "client CPU %", "server CPU %",
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
    if not ceilings.run_id:
        return (
            "No load-tool calibration from this machine: run "
            "`notebooks/00_load_generators.ipynb` first (`make report` does), or rows "
            "carry no `headroom`."
        )
    ranked = sorted(ceilings.by_setting.items(), key=lambda item: -item[1])
    top = ranked[0][1]
    parts = [
        f"{setting}: {rps:,.0f} req/s"
        + (f" ({top / rps:.1f}× below {ranked[0][0]})" if rps < top else "")
        for setting, rps in ranked
    ]
    return (
        f"Load-tool ceilings on this machine (calibration run `{ceilings.run_id}`, against "
        f"{ceilings.server} on its own core): {'; '.join(parts)}."
    )
