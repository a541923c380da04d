"""Stored runs, read: ``data/runs/<run_id>/`` with manifest.json, results.csv and raw
outputs. ``Run`` is one run folder; ``RunStore`` finds runs (by experiment, by
fingerprint, newest first), the one place that scans the folder. Measuring writes runs
(benchbook.measure.run_store); everything else reads them here."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from benchbook.runs.columns import TEXT_COLUMNS
from benchbook.runs.experiment import Experiment, RunPlan
from benchbook.runs.layout import repo_relative, runs_dir
from benchbook.runs.limits import attributed
from benchbook.runs.manifest import COMPLETED, description_of, migrate, plan_of

# What a notebook shows for a run: the report finds the run's manifest through it.
RUN_MIME = "application/vnd.benchbook.run+json"


class Run:
    def __init__(self, path: Path):
        self.path = path
        self.run_id = path.name

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    @property
    def results_path(self) -> Path:
        return self.path / "results.csv"

    def stored_manifest(self) -> dict[str, Any]:
        """manifest.json as written (the shape of its day): for writing it, not reading."""
        return json.loads(self.manifest_path.read_text())

    def manifest(self) -> dict[str, Any]:
        """The manifest in the current shape, every key present (runs.manifest)."""
        return migrate(self.stored_manifest(), self.results_path)

    def description(self) -> Experiment:
        """The experiment's description as the notebook wrote it (runs.experiment)."""
        return description_of(self.manifest())

    def plan(self) -> RunPlan:
        """The plan worked out from the description: targets, loads, CPUs, hosts."""
        return plan_of(self.manifest())

    def raw_path(self, name: str) -> Path:
        return self.path / "raw" / name

    @property
    def columns(self) -> list[str]:
        return self.manifest()["columns"]

    @property
    def experiment(self) -> str:
        """From the run id (``<UTC time>-<experiment>-<4 hex>``), without reading files."""
        return self.run_id.split("-", 1)[1].rsplit("-", 1)[0]

    @property
    def completion(self) -> str:
        """How the run ended: runs.manifest's COMPLETED, UNRECORDED or KILLED."""
        return self.manifest()["completion"]

    @property
    def completed(self) -> bool:
        return self.completion == COMPLETED

    @property
    def has_results(self) -> bool:
        return self.results_path.exists()

    def results(self) -> pd.DataFrame:
        """results.csv, text columns as text (empty, never NaN) whatever they hold, each
        row with the limit that set its rate (runs.limits: judged now for a run stored
        before its rows recorded it)."""
        frame = pd.read_csv(self.results_path, dtype=dict.fromkeys(TEXT_COLUMNS, str))
        frame = frame.fillna({c: "" for c in TEXT_COLUMNS if c in frame})
        return attributed(frame, self.manifest())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Shown in a notebook, a run names its folder; the report finds its manifest here."""
        return {
            RUN_MIME: {"run_id": self.run_id, "path": repo_relative(self.path)},
            "text/plain": f"run {self.run_id}: raw outputs, manifest and results in "
            f"{repo_relative(self.path)}/",
        }


class RunStore:
    """Every run folder under ``directory`` (data/runs/ unless BENCHBOOK_RUNS_DIR says)."""

    def __init__(self, directory: Path | None = None):
        self.directory = directory or runs_dir()

    def runs(self, experiment: str | None = None) -> Iterator[Run]:
        """Runs with a manifest, newest first (run ids start with their UTC start time)."""
        for path in sorted(self.directory.glob("*/manifest.json"), reverse=True):
            run = Run(path.parent)
            if experiment is None or run.experiment == experiment:
                yield run

    def with_fingerprint(self, fingerprint: str) -> Run | None:
        """The newest completed run measured with this fingerprint (see measure.reuse) on
        a machine that had settled when it began (a run measured beside other work that
        never stopped stands in for nothing: measure.machine_check)."""
        for run in self.runs():
            manifest = run.manifest()
            settled = (manifest.get("machine_check") or {}).get("settled", True)
            if (
                manifest["fingerprint"] == fingerprint
                and manifest["completion"] == COMPLETED
                and settled
            ):
                return run
        return None
