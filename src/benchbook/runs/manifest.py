"""A run's manifest.json, read in the current shape whatever shape it was stored in: the
one place that knows the old shapes, so no reader guesses a missing key.

Schema versions (``schema_version``; runs are append-only, so old files stay as written):

1. No ``schema_version`` key: the runs of 2026-11-22 to 2026-11-26, in seven shapes as
   keys were added (each shape adds to the one before): (a) run_id, experiment,
   created_utc, params, provenance, servers; (b) + columns, fingerprint, completed_utc;
   (c) as (b) without servers (notebook 05's gobench runs, which start none);
   (d) + round_orders, machine_speed; (e) + profiled_phase; (f) + hosts, without
   profiled_phase (no profiled phase); (g) every key.
2. ``schema_version: 2``, written by ``Run.create``: the keys of (g). Those written while
   or after measuring (``completed_utc`` last) are absent from a run killed before them.

``read_manifest`` returns version 2 with every key: what a run never recorded reads as
``None`` (``servers``: none started; ``hosts``: loopback when its params name no hosts),
``columns`` as its results.csv has them, and ``completion`` says how the run ended.
"""

import csv
import json
from pathlib import Path
from typing import Any

from benchbook.runs.columns import CORE_COLUMNS

SCHEMA_VERSION = 2

# How a run ended (``completion``): only COMPLETED runs are sessions of an experiment.
COMPLETED = "completed"  # completed_utc recorded
# From before completion was recorded (schema 1 without ``fingerprint``), every planned
# row present: it most likely finished, but nothing says it did.
UNRECORDED = "finished before completion was recorded"
KILLED = "killed"  # killed, failed or still measuring: no completed_utc, rows missing

LOOPBACK = {"kind": "local"}  # the hosts of a run with no hosts in its params


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of the run in ``run_dir`` in the current shape (see ``migrate``)."""
    stored = json.loads((run_dir / "manifest.json").read_text())
    return migrate(stored, run_dir / "results.csv")


def migrate(stored: dict[str, Any], results_csv: Path) -> dict[str, Any]:
    """``stored`` (any schema) as schema SCHEMA_VERSION, in memory; ``results_csv`` gives
    the columns and the rows of runs that did not record them."""
    version = stored.get("schema_version", 1)
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"{stored.get('run_id')}: manifest schema {version} is newer than this "
            f"benchbook's ({SCHEMA_VERSION}); update benchbook to read it"
        )
    params = stored.get("params", {})
    not_recorded = {
        "fingerprint": "",  # matches no fingerprint: never reused
        "completed_utc": None,
        "servers": {},
        "round_orders": None,
        "machine_speed": None,
        "profiled_phase": None,
        "hosts": None if params.get("hosts") else dict(LOOPBACK),
    }
    manifest = not_recorded | stored
    if "columns" not in stored:
        manifest["columns"] = _header(results_csv) or list(CORE_COLUMNS)
    manifest["completion"] = completion(stored, results_csv)
    manifest["schema_version"] = SCHEMA_VERSION
    return manifest


def completion(stored: dict[str, Any], results_csv: Path) -> str:
    """COMPLETED, UNRECORDED or KILLED (see there). Since ``fingerprint`` was recorded,
    so was completion: a run without it did not finish."""
    if stored.get("completed_utc"):
        return COMPLETED
    if "fingerprint" in stored:
        return KILLED
    planned = planned_rows(stored.get("params", {}))
    return UNRECORDED if planned and _row_count(results_csv) == planned else KILLED


def planned_rows(params: dict[str, Any]) -> int | None:
    """The rows a run plans: ``runs_planned``, or before it was recorded, one per
    repetition, target and load (None when the params do not say)."""
    if "runs_planned" in params:
        return params["runs_planned"]
    if not {"repetitions", "targets", "loads"} <= set(params):
        return None
    return params["repetitions"] * len(params["targets"]) * len(params["loads"])


def _header(results_csv: Path) -> list[str] | None:
    if not results_csv.exists():
        return None
    with open(results_csv, newline="") as f:
        return next(csv.reader(f), None)


def _row_count(results_csv: Path) -> int:
    if not results_csv.exists():
        return 0
    with open(results_csv, newline="") as f:
        return max(sum(1 for _ in csv.reader(f)) - 1, 0)
