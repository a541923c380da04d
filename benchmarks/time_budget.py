"""Where each notebook's minutes go, from a measuring run of it: papermill's time for each
cell of the executed notebooks and the run manifests those cells stored.

    python benchmarks/time_budget.py report/executed/*.ipynb   # after a `make report`

For each notebook: its whole execution, then
- rounds: the experiments' rounds, from each run's creation to its completion, without
- speed references: the machine-speed workloads before and after each experiment;
- planning, builds and set-up: the rest of the cells that measured (the plan, server
  builds, the calibration read, the machine lock);
- profiled phases: the cells that profile (servers started again under a profiler);
- analysis and kernel: everything else (statistics, charts, the kernel's start).
A notebook whose runs were reused measures nothing: its rounds read as 0 and its
measuring cells take a second.
"""

import argparse
from collections.abc import Sequence
from pathlib import Path

import nbformat

from benchbook.analyse.sessions.planner import costs_from
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.manifest import read_manifest
from benchbook.runs.store import RUN_MIME

TIMESTAMP_SLACK_S = 2.0  # a run's creation and completion are each rounded to the second
PARTS = ("rounds", "speed references", "planning, builds and set-up", "profiled phases",
         "analysis and kernel")  # fmt: skip


def run_parts(run_path: str) -> tuple[float, float]:
    """A run's rounds and speed references, in seconds, as the planner costs them (0, 0
    for a run that did not end)."""
    manifest = read_manifest(REPO_ROOT / run_path)
    costs = costs_from(manifest)
    if costs is None:
        return 0.0, 0.0
    return costs.round_s * len(manifest["round_orders"]), costs.fixed_s


def budget(path: Path) -> dict[str, float]:
    """One executed notebook's seconds by part (PARTS), and ``total``."""
    nb = nbformat.read(path, as_version=4)
    parts = dict.fromkeys(PARTS, 0.0)
    cells_s = 0.0
    for cell in nb.cells:
        seconds = float((cell.metadata.get("papermill") or {}).get("duration") or 0.0)
        cells_s += seconds
        runs = [
            output["data"][RUN_MIME]["path"]
            for output in cell.get("outputs", [])
            if RUN_MIME in output.get("data", {})
        ]
        if runs:
            measured = [run_parts(run) for run in dict.fromkeys(runs)]
            rounds = sum(r for r, _ in measured)
            references = sum(s for _, s in measured)
            # Stored runs stood in (none measured here); manifests time to the second.
            if rounds + references > seconds + TIMESTAMP_SLACK_S * len(measured):
                rounds = references = 0.0
            parts["rounds"] += rounds
            parts["speed references"] += references
            parts["planning, builds and set-up"] += max(seconds - rounds - references, 0.0)
        elif "profiling.profile(" in cell.source:
            parts["profiled phases"] += seconds
    total = float(nb.metadata.get("papermill", {}).get("duration") or cells_s)
    parts["analysis and kernel"] = max(total - sum(parts.values()), 0.0)
    return parts | {"total": total}


def minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def table(paths: Sequence[Path]) -> str:
    lines = ["| Notebook | Total | " + " | ".join(p.capitalize() for p in PARTS) + " |",
             "|" + " --- |" * (len(PARTS) + 2)]  # fmt: skip
    sums = dict.fromkeys([*PARTS, "total"], 0.0)
    for path in paths:
        found = budget(path)
        for key, value in found.items():
            sums[key] += value
        cells = [minutes(found[p]) for p in PARTS]
        lines.append(f"| {path.stem} | {minutes(found['total'])} | " + " | ".join(cells) + " |")
    cells = [minutes(sums[p]) for p in PARTS]
    lines.append(f"| all | {minutes(sums['total'])} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    print(table(parser.parse_args().notebooks))


if __name__ == "__main__":
    main()
