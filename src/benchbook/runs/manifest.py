"""A run's manifest.json, read in the current shape whatever shape it was stored in: the
one place that knows the old shapes, so no reader guesses a missing key.

Schema versions (``schema_version``; runs are append-only, so old files stay as written):

1. No ``schema_version`` key: the runs of 2026-11-22 to 2026-11-26, in seven shapes as
   keys were added (each shape adds to the one before): (a) run_id, experiment,
   created_utc, params, provenance, servers; (b) + columns, fingerprint, completed_utc;
   (c) as (b) without servers (notebook 05's gobench runs, which start none);
   (d) + round_orders, machine_speed; (e) + profiled_phase; (f) + hosts, without
   profiled_phase (no profiled phase); (g) every key.
2. ``schema_version: 2``: the keys of (g). Those written while or after measuring
   (``completed_utc`` last) are absent from a run killed before them.
3. ``schema_version: 3``, written by ``Run.create``: ``params`` gave way to the
   experiment's ``description`` as written and the ``plan`` worked out from it
   (benchbook.runs.experiment). An older run's ``params`` are read as both: its plan
   is what they recorded (the same values under the same names); its description holds
   what they kept of it (servers, warm-up, rounds, records, verification, restarts,
   pinning, hosts) and reads as not given for the rest (loads, variants,
   paths, requests, mix, control and server parameters are in its plan's targets and
   loads instead).

``read_manifest`` returns version 3 with every key: what a run never recorded reads as
``None`` (``servers``: none started; ``hosts``: loopback when its plan names no hosts),
``columns`` as its results.csv has them, and ``completion`` says how the run ended.
``description_of`` and ``plan_of`` read a manifest's two parts typed.
"""

import csv
import json
from pathlib import Path
from typing import Any

from benchbook.runs.columns import CORE_COLUMNS
from benchbook.runs.experiment import Experiment, Hosts, RunPlan

SCHEMA_VERSION = 3

# How a run ended (``completion``): only COMPLETED runs are sessions of an experiment.
COMPLETED = "completed"  # completed_utc recorded
# From before completion was recorded (schema 1 without ``fingerprint``), every planned
# row present: it most likely finished, but nothing says it did.
UNRECORDED = "finished before completion was recorded"
KILLED = "killed"  # killed, failed or still measuring: no completed_utc, rows missing

LOOPBACK = {"kind": "local"}  # the hosts of a run whose plan names none


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
    if version < 3:
        stored = _with_description_and_plan(stored)
    plan = stored["plan"]
    not_recorded = {
        "fingerprint": "",  # matches no fingerprint: never reused
        "completed_utc": None,
        "servers": {},
        "round_orders": None,
        "machine_speed": None,
        "profiled_phase": None,
        "hosts": None if plan.get("hosts") else dict(LOOPBACK),
    }
    manifest = not_recorded | stored
    if "columns" not in stored:
        manifest["columns"] = _header(results_csv) or list(CORE_COLUMNS)
    manifest["completion"] = completion(stored, results_csv)
    manifest["schema_version"] = SCHEMA_VERSION
    return manifest


def completion(stored: dict[str, Any], results_csv: Path) -> str:
    """COMPLETED, UNRECORDED or KILLED (see there), of a manifest with a plan. Since
    ``fingerprint`` was recorded, so was completion: a run without it did not finish."""
    if stored.get("completed_utc"):
        return COMPLETED
    if "fingerprint" in stored:
        return KILLED
    planned = stored["plan"].get("runs_planned")
    return UNRECORDED if planned and _row_count(results_csv) == planned else KILLED


def description_of(manifest: dict[str, Any]) -> Experiment:
    """The experiment's description of a manifest read by ``migrate``, typed."""
    return Experiment.from_stored(manifest["description"])


def plan_of(manifest: dict[str, Any]) -> RunPlan:
    """The plan of a manifest read by ``migrate``, typed."""
    return RunPlan.from_stored(manifest["plan"])


# The params of schemas 1 and 2 that described the experiment rather than its plan.
DESCRIPTION_PARAMS = {"repetitions", "records", "verify_servers", "restart"}


def _with_description_and_plan(stored: dict[str, Any]) -> dict[str, Any]:
    """A schema 1 or 2 manifest with its ``params`` read as schema 3's two parts (see
    the module's docstring)."""
    params = stored.get("params", {})
    targets = params.get("targets", [])
    pinning = params.get("pinning") or {}
    description = Experiment(
        name=stored.get("experiment", ""),
        servers=list(dict.fromkeys(label.split()[0] for label in targets)),
        loads=(),
        warmup=params.get("warmup_s", 0.0),
        repetitions=params.get("repetitions", 0),
        records=params.get("records", 1),
        pin_cpus=pinning.get("server_cpus") is not None,
        verify=params.get("verify_servers", True),
        restart=params.get("restart"),
        hosts=_hosts(params.get("hosts")),
    )
    plan = {k: v for k, v in params.items() if k not in DESCRIPTION_PARAMS}
    plan["runs_planned"] = _planned_rows(params)
    # The first runs named one tool ("tool"); notebook 05's first ones, no targets or loads.
    unrecorded = {"targets": [], "tools": [params["tool"]] if "tool" in params else [],
                  "loads": [], "warmup_s": 0.0, "server_params": {}, "pinning": {},
                  "registry": "servers/servers.toml"}  # fmt: skip
    plan = unrecorded | plan
    without = {k: v for k, v in stored.items() if k != "params"}
    return without | {"description": description.stored(), "plan": plan}


def _hosts(params: dict[str, Any] | None) -> Hosts:
    """Schema 2's hosts params as the arguments of ``measure.hosts`` that give them."""
    if not params:
        return Hosts()
    link = params.get("link") or {}
    settings = {
        "load_hosts": params.get("load_hosts", 1),
        "added_rtt": f"{link.get('added_rtt_ms', 0)}ms",
        "jitter": f"{link.get('jitter_ms', 0)}ms",
        "rate_kb_s": link.get("rate_kb_s"),
        "remote": params.get("remote"),
    }
    return Hosts(params.get("kind", "unrecorded"), settings)


def _planned_rows(params: dict[str, Any]) -> int | None:
    """The rows a schema 1 or 2 run planned: ``runs_planned``, or before it was recorded,
    one per repetition, target and load (None when the params do not say)."""
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
