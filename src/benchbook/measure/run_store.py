"""Writing a run: its folder, its manifest (with the schema version of benchbook.runs)
and its rows. Runs are append-only: a run directory is created exclusively and never
reused, so a re-run can never overwrite an earlier measurement. Reading is
benchbook.runs.store's, which this ``Run`` extends.
"""

import csv
import json
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from benchbook.measure import provenance
from benchbook.runs import store
from benchbook.runs.columns import CORE_COLUMNS
from benchbook.runs.experiment import Experiment, RunPlan
from benchbook.runs.layout import runs_dir
from benchbook.runs.manifest import SCHEMA_VERSION


class Run(store.Run):
    @classmethod
    def create(
        cls,
        experiment: Experiment,
        plan: RunPlan,
        fingerprint: str = "",
        extra_columns: list[str] | None = None,
        tool_versions: Mapping[str, str] | None = None,
    ) -> "Run":
        """A new run folder; its manifest holds the experiment's description as written
        and the plan worked out from it; its results have CORE_COLUMNS and then
        ``extra_columns``; its provenance names the version of each load tool it uses."""
        now = datetime.now(UTC)
        run_id = f"{now:%Y%m%dT%H%M%SZ}-{experiment.name}-{secrets.token_hex(2)}"
        path = runs_dir() / run_id
        path.mkdir(parents=True, exist_ok=False)
        run = cls(path)
        run.write_manifest(
            {
                "schema_version": SCHEMA_VERSION,
                "run_id": run_id,
                "experiment": experiment.name,
                "created_utc": now.isoformat(timespec="seconds"),
                "description": experiment.stored(),
                "plan": plan.stored(),
                "fingerprint": fingerprint,  # see reuse: what a stand-in must match
                "columns": CORE_COLUMNS + [c for c in extra_columns or [] if c not in CORE_COLUMNS],
                "provenance": provenance.collect(tool_versions or {}),
            }
        )
        return run

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.manifest_path.write_text(json.dumps(manifest, indent=2, default=str) + "\n")

    def update_manifest(self, **fields: Any) -> None:
        """The stored manifest with ``fields`` added: as written, never migrated."""
        self.write_manifest(self.stored_manifest() | fields)

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
