"""Run storage: ``data/runs/<run_id>/`` with manifest.json, results.csv and raw outputs.

``Run`` is one run folder (written while measuring, read by the analysis); ``RunStore``
finds runs (by experiment, by fingerprint, newest first): the one place that scans the
folder. Runs are append-only: a run directory is created exclusively and never reused,
so a re-run can never overwrite an earlier measurement.
"""

import csv
import json
import secrets
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from benchbook.measure import provenance
from benchbook.measure.layout import repo_relative, runs_dir

# One row per load-tool invocation, these columns first; an experiment adds one column
# per factor (storage, workers, …) and what its tools and checks measure beyond these.
# Latency in milliseconds everywhere.
CORE_COLUMNS = [
    "run_id", "experiment", "repetition", "target", "server", "language", "variant",
    "request", "method", "endpoint",
    "tool", "tool_setting", "connections", "users", "threads", "duration_s", "requests", "rps",
    "bytes_per_s", "lat_mean_ms", "lat_stdev_ms", "lat_p50_ms", "lat_p75_ms", "lat_p90_ms",
    "lat_p99_ms", "lat_p999_ms", "lat_max_ms", "err_connect", "err_read", "err_write",
    "err_timeout", "non_2xx", "server_cpu_pct", "server_rss_mb", "server_cpu_ms_per_request",
    "client_cpu_pct",
    "headroom", "host_steal_pct", "flags", "incident", "raw_path",
]  # fmt: skip

TEXT_COLUMNS = [
    "target", "server", "language", "variant", "request", "method", "endpoint", "tool",
    "tool_setting", "flags", "incident",
]  # fmt: skip

RUN_MIME = "application/vnd.benchbook.run+json"


class Run:
    def __init__(self, path: Path):
        self.path = path
        self.run_id = path.name

    @classmethod
    def create(
        cls,
        experiment: str,
        params: dict[str, Any],
        fingerprint: str = "",
        extra_columns: list[str] | None = None,
        tool_versions: Mapping[str, str] | None = None,
    ) -> "Run":
        """A new run folder; its results have CORE_COLUMNS and then ``extra_columns``;
        its provenance names the version of each load tool it uses."""
        now = datetime.now(UTC)
        run_id = f"{now:%Y%m%dT%H%M%SZ}-{experiment}-{secrets.token_hex(2)}"
        path = runs_dir() / run_id
        path.mkdir(parents=True, exist_ok=False)
        run = cls(path)
        run.write_manifest(
            {
                "run_id": run_id,
                "experiment": experiment,
                "created_utc": now.isoformat(timespec="seconds"),
                "params": params,
                "fingerprint": fingerprint,  # see reuse: what a stand-in must match
                "columns": CORE_COLUMNS + [c for c in extra_columns or [] if c not in CORE_COLUMNS],
                "provenance": provenance.collect(tool_versions or {}),
            }
        )
        return run

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    @property
    def results_path(self) -> Path:
        return self.path / "results.csv"

    def manifest(self) -> dict[str, Any]:
        return json.loads(self.manifest_path.read_text())

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.manifest_path.write_text(json.dumps(manifest, indent=2, default=str) + "\n")

    def update_manifest(self, **fields: Any) -> None:
        self.write_manifest(self.manifest() | fields)

    def raw_path(self, name: str) -> Path:
        return self.path / "raw" / name

    @property
    def columns(self) -> list[str]:
        return self.manifest().get("columns", CORE_COLUMNS)

    def append(self, row: dict[str, Any]) -> None:
        columns = self.columns
        unknown = set(row) - set(columns)
        if unknown:
            raise ValueError(f"row has columns this run did not declare: {sorted(unknown)}")
        new = not self.results_path.exists()
        with open(self.results_path, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=columns)
            if new:
                writer.writeheader()
            writer.writerow({"run_id": self.run_id, **row})

    @property
    def experiment(self) -> str:
        """From the run id (``<UTC time>-<experiment>-<4 hex>``), without reading files."""
        return self.run_id.split("-", 1)[1].rsplit("-", 1)[0]

    @property
    def completed(self) -> bool:
        return "completed_utc" in self.manifest()

    @property
    def has_results(self) -> bool:
        return self.results_path.exists()

    def results(self) -> pd.DataFrame:
        """results.csv, text columns as text (empty, never NaN) whatever they hold."""
        frame = pd.read_csv(self.results_path, dtype=dict.fromkeys(TEXT_COLUMNS, str))
        return frame.fillna({c: "" for c in TEXT_COLUMNS if c in frame})

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
        """The newest complete run measured with this fingerprint (see reuse)."""
        for run in self.runs():
            manifest = run.manifest()
            if manifest.get("fingerprint") == fingerprint and "completed_utc" in manifest:
                return run
        return None
