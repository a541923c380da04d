"""Every stored manifest shape reads as the current one (runs.manifest), and new runs
carry the schema version. Fixtures are written into tmp_path: the repository's
data/runs/ is neither read nor written here."""

import json
from pathlib import Path

import pandas as pd
import pytest

from benchbook.measure import provenance
from benchbook.measure.planning import plan_experiment
from benchbook.measure.run_store import Run
from benchbook.measure.tools import tool
from benchbook.runs.columns import CORE_COLUMNS
from benchbook.runs.experiment import Experiment
from benchbook.runs.manifest import (
    COMPLETED,
    KILLED,
    LOOPBACK,
    SCHEMA_VERSION,
    UNRECORDED,
    description_of,
    migrate,
    plan_of,
    read_manifest,
)
from benchbook.runs.store import Run as StoredRun
from benchbook.runs.store import RunStore
from benchbook.store.sessions import not_sessions

RUN_ID = "20261124T012938Z-01_io_concurrency-abba"
PARAMS = {"targets": ["go", "py"], "loads": [{"connections": 10}], "repetitions": 2}
# The last shape of schema 1 (g): every key a run of 2026-11-24 wrote.
LATEST = {
    "run_id": RUN_ID,
    "experiment": "01_io_concurrency",
    "created_utc": "2026-11-24T01:29:38+00:00",
    "params": PARAMS | {"runs_planned": 4},
    "fingerprint": "f" * 64,
    "columns": [*CORE_COLUMNS, "delay_ms"],
    "provenance": {"machine": {"hostname": "vm"}, "versions": {}, "git": {}},
    "servers": {"go": {"command": ["go-server"]}},
    "round_orders": [["go", "py"], ["py", "go"]],
    "machine_speed": {"before": {"go_s": 0.5, "python_s": 0.6}},
    "profiled_phase": {"window_s": 2.0},
    "hosts": {"kind": "local"},
    "completed_utc": "2026-11-24T01:35:00+00:00",
}
SHAPE_A_KEYS = {"run_id", "experiment", "created_utc", "params", "provenance", "servers"}
# Each stored shape by the keys it lacks of LATEST (schema 1, oldest first).
SHAPES = {
    "a: before columns, fingerprint and completion": set(LATEST) - SHAPE_A_KEYS,
    "b: + columns, fingerprint, completed_utc": {
        "hosts", "machine_speed", "profiled_phase", "round_orders", "runs_planned"},
    "c: as b, no servers started (gobench)": {
        "hosts", "machine_speed", "profiled_phase", "round_orders", "servers", "runs_planned"},
    "d: + round_orders, machine_speed": {"hosts", "profiled_phase"},
    "e: + profiled_phase": {"hosts"},
    "f: + hosts, no profiled phase": {"profiled_phase"},
    "g: every key": set(),
}  # fmt: skip


def stored(shape: str) -> dict:
    missing = SHAPES[shape]
    manifest = {k: v for k, v in LATEST.items() if k not in missing}
    if "runs_planned" in missing or shape.startswith("a"):
        manifest["params"] = PARAMS
    return manifest


def write_run(tmp_path: Path, manifest: dict, rows: int = 4) -> Path:
    run_dir = tmp_path / RUN_ID
    run_dir.mkdir()
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    if rows:
        columns = [*CORE_COLUMNS, "delay_ms"]
        frame = pd.DataFrame([dict.fromkeys(columns, "") | {"rps": 1.0}] * rows)
        frame.to_csv(run_dir / "results.csv", index=False)
    return run_dir


@pytest.mark.parametrize("shape", SHAPES)
def test_every_stored_shape_reads_with_every_key(shape: str, tmp_path: Path) -> None:
    manifest = read_manifest(write_run(tmp_path, stored(shape)))
    current = set(LATEST) - {"params"} | {"description", "plan"}
    assert current | {"completion", "schema_version"} <= set(manifest)
    assert "params" not in manifest
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["columns"] == [*CORE_COLUMNS, "delay_ms"]  # stored, or the CSV's
    for key in SHAPES[shape] - {"runs_planned", "columns", "fingerprint", "completed_utc"}:
        expected = {"hosts": LOOPBACK, "servers": {}}.get(key)
        assert manifest[key] == expected, key
    unrecorded = shape.startswith("a")
    assert manifest["completion"] == (UNRECORDED if unrecorded else COMPLETED)
    assert manifest["fingerprint"] == ("" if unrecorded else LATEST["fingerprint"])
    # params read as the two parts of schema 3, typed
    description, plan = description_of(manifest), plan_of(manifest)
    assert description.servers == ("go", "py") and description.repetitions == 2
    assert plan.targets == ("go", "py") and plan.loads == ({"connections": 10},)
    assert plan.runs_planned == 4  # recorded, or one per repetition, target and load


def test_the_params_of_a_real_schema_2_run_read_as_description_and_plan(tmp_path) -> None:
    """A run of notebook 07 as stored on 2026-11-27 (its calibration cut short)."""
    params = {
        "targets": ["go-iodelay", "python-iodelay uvloop+httptools"], "tools": ["wrk"],
        "loads": [{"connections": 10, "threads": 1, "duration_s": 1.0, "timeout_s": 2.0,
                   "think_s": 0.0}],
        "warmup_s": 1.0, "repetitions": 6, "runs_planned": 12, "records": 1,
        "server_params": {"go-iodelay": {"delay_ms": 1},
                          "python-iodelay": {"delay_ms": 1, "workers": 1}},
        "pinning": {"server_cpus": [0], "load_cpus": [1]}, "verify_servers": True,
        "registry": "servers/servers.toml", "restart": False,
        "calibration": {"run_id": "20261127T070759Z-00_load_generators-22e7"},
        "hosts": {"kind": "netns", "load_hosts": 1, "remote": None,
                  "link": {"added_rtt_ms": 10, "jitter_ms": 0, "rate_kb_s": None}},
    }  # fmt: skip
    manifest = migrate(LATEST | {"schema_version": 2, "params": params}, tmp_path / "r.csv")
    description, plan = description_of(manifest), plan_of(manifest)
    assert (description.warmup_s, description.repetitions, description.records) == (1.0, 6, 1)
    assert (description.verify, description.restart, description.pin_cpus) == (True, False, True)
    assert description.hosts.kind == "netns"
    assert description.hosts.settings["added_rtt"] == "10ms"
    assert plan.hosts == params["hosts"] and plan.calibration == params["calibration"]
    assert plan.pinning.server_cpus == (0,) and plan.runs_planned == 12
    assert plan.server_params == params["server_params"]


def test_a_run_from_before_completion_was_recorded_with_rows_missing_was_killed(
    tmp_path: Path,
) -> None:
    run = StoredRun(write_run(tmp_path, stored("a: before columns, fingerprint and completion"), 3))
    assert run.completion == KILLED and not run.completed


def test_a_run_without_columns_or_results_has_the_core_columns(tmp_path: Path) -> None:
    manifest = stored("a: before columns, fingerprint and completion")
    migrated = read_manifest(write_run(tmp_path, manifest, rows=0))
    assert migrated["columns"] == CORE_COLUMNS and migrated["completion"] == KILLED


def test_a_run_that_recorded_its_fingerprint_but_not_its_end_was_killed(tmp_path: Path) -> None:
    manifest = {k: v for k, v in LATEST.items() if k != "completed_utc"}
    run = StoredRun(write_run(tmp_path, manifest))
    assert run.completion == KILLED and not run.completed
    assert run.manifest()["completed_utc"] is None


def test_a_run_with_hosts_in_its_params_but_none_recorded_has_unknown_hosts(tmp_path) -> None:
    manifest = stored("e: + profiled_phase")
    manifest["params"] = manifest["params"] | {"hosts": {"link": {"added_rtt_ms": 5}}}
    assert plan_of(migrate(manifest, tmp_path / "results.csv")).hosts is not None
    assert migrate(manifest, tmp_path / "results.csv")["hosts"] is None


def test_a_manifest_newer_than_this_reader_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"schema {SCHEMA_VERSION + 1} is newer"):
        migrate(LATEST | {"schema_version": SCHEMA_VERSION + 1}, tmp_path / "results.csv")


def test_a_new_run_writes_the_schema_version(runs_dir, monkeypatch) -> None:
    monkeypatch.setattr(provenance, "collect", lambda versions: {"machine": {}})
    built = plan_experiment(Experiment("schema_test", ["go-hello"], tool("wrk", connections=1,
                                       duration="1s"), repetitions=1))  # fmt: skip
    run = Run.create(built.experiment, built.worked_out())
    assert run.stored_manifest()["schema_version"] == SCHEMA_VERSION
    run.update_manifest(round_orders=[])
    written = run.stored_manifest()
    assert "completion" not in written and written["round_orders"] == []
    assert run.manifest()["completion"] == KILLED  # no completed_utc yet


def test_runs_that_are_no_session_are_counted_by_how_they_ended(tmp_path: Path) -> None:
    """What the report says it left out: runs with rows that did not complete."""
    runs = {
        "20261122T010000Z-01_io_concurrency-0001": (stored("a: before columns, fingerprint and "
                                                           "completion"), 4),  # unrecorded
        "20261124T010000Z-01_io_concurrency-0002": ({**LATEST, "completed_utc": None}, 2),
        "20261124T020000Z-01_io_concurrency-0003": (LATEST, 4),  # a session
        "20261124T030000Z-01_io_concurrency-0004": ({**LATEST, "completed_utc": None}, 0),
    }  # fmt: skip
    for run_id, (manifest, rows) in runs.items():
        folder = write_run(tmp_path, manifest | {"run_id": run_id}, rows)
        folder.rename(tmp_path / run_id)
    assert not_sessions(tmp_path) == {UNRECORDED: 1, KILLED: 1}  # no rows: not one


def test_a_run_measured_on_a_machine_that_never_settled_stands_in_for_nothing(
    tmp_path: Path,
) -> None:
    """Reuse takes the newest finished run with a fingerprint, unless other work was still
    running when it began (measure.machine_check): then the one before it."""
    older, busy = (
        "20261124T012938Z-01_io_concurrency-abba",
        "20261124T020000Z-01_io_concurrency-b0b0",
    )
    for run_id, check in ((older, {"settled": True}), (busy, {"settled": False})):
        (tmp_path / run_id).mkdir()
        manifest = LATEST | {"run_id": run_id, "machine_check": check}
        (tmp_path / run_id / "manifest.json").write_text(json.dumps(manifest))
    assert RunStore(tmp_path).with_fingerprint("f" * 64).run_id == older
