"""Building the store from the run folders, incrementally: an index keeps each run's
manifest and rows stamps (mtime and size), and an update re-reads only the runs whose
stamps changed, drops the runs that are gone, and rewrites only their experiments'
manifest partitions. Writers hold an exclusive lock, readers a shared one, so notebooks
run in parallel (make -j) never see a half-written store."""

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from benchbook.runs.manifest import COMPLETED
from benchbook.runs.manifest import SCHEMA_VERSION as RUN_FORMAT_VERSION
from benchbook.runs.store import Run, RunStore
from benchbook.store.sessions import COPY_OF

# Bumped when the store's files change shape: a store of another version is rebuilt, as
# it is when the run format's version changes (its manifests are stored migrated).
SCHEMA_VERSION = [1, RUN_FORMAT_VERSION]
ROW_NUMBER = "_row"  # each run's row order, kept beside its columns
MANIFEST_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("experiment", pa.string()),
        ("completed", pa.bool_()),
        ("has_rows", pa.bool_()),
        (COPY_OF, pa.string()),
        ("manifest", pa.string()),  # the manifest as JSON, read back unchanged
        ("dtypes", pa.string()),  # the rows' columns and pandas dtypes, as JSON pairs
    ]
)


@dataclass(frozen=True)
class BuildResult:
    """What an update did: runs read again, runs dropped, runs in the store."""

    read: int
    removed: int
    total: int


@contextmanager
def locked(store: Path, exclusive: bool) -> Iterator[None]:
    """Hold the store's lock (exclusive to write, shared to read)."""
    store.mkdir(parents=True, exist_ok=True)
    with open(store / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield


def rows_dir(store: Path, experiment: str) -> Path:
    return store / "rows" / f"experiment={experiment}"


def manifests_path(store: Path, experiment: str) -> Path:
    return store / "manifests" / f"experiment={experiment}" / "manifests.parquet"


def _stamp(run: Run) -> list[int]:
    stamp = []
    for path in (run.manifest_path, run.results_path):
        stat = path.stat() if path.exists() else None
        stamp += [stat.st_mtime_ns, stat.st_size] if stat else [0, 0]
    return stamp


def _read_index(store: Path) -> dict[str, Any]:
    path = store / "index.json"
    index = json.loads(path.read_text()) if path.exists() else {}
    if index.get("schema_version") != SCHEMA_VERSION:
        for part in ("rows", "manifests"):
            shutil.rmtree(store / part, ignore_errors=True)
        return {"schema_version": SCHEMA_VERSION, "runs": {}}
    return index


def replace_file(path: Path, write: Any) -> None:
    """Write through a temporary file and rename: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    write(partial)
    os.replace(partial, path)


def _write_run(store: Path, run: Run) -> dict[str, Any]:
    """A run's rows as one Parquet file of its experiment; its manifest record."""
    manifest = run.manifest()
    dtypes: list[tuple[str, str]] = []
    if run.has_results:
        rows = run.results()
        dtypes = [(str(column), str(dtype)) for column, dtype in rows.dtypes.items()]
        table = pa.Table.from_pandas(rows.assign(**{ROW_NUMBER: range(len(rows))}))
        path = rows_dir(store, run.experiment) / f"{run.run_id}.parquet"
        replace_file(path, lambda p: pq.write_table(table, p))
    return {
        "run_id": run.run_id,
        "experiment": run.experiment,
        "completed": manifest["completion"] == COMPLETED,
        "has_rows": run.has_results,
        COPY_OF: manifest.get(COPY_OF),
        "manifest": json.dumps(manifest),
        "dtypes": json.dumps(dtypes),
    }


def _write_manifests(store: Path, experiment: str, new: list[dict], drop: set[str]) -> None:
    path = manifests_path(store, experiment)
    kept = pq.read_table(path).to_pylist() if path.exists() else []
    records = sorted([r for r in kept if r["run_id"] not in drop] + new, key=lambda r: r["run_id"])
    if not records:
        path.unlink(missing_ok=True)
        return
    table = pa.Table.from_pylist(records, schema=MANIFEST_SCHEMA)
    replace_file(path, lambda p: pq.write_table(table, p))


def update(runs: Path, store: Path) -> BuildResult:
    """Bring the store of ``runs`` up to date, reading only new and changed runs."""
    with locked(store, exclusive=True):
        index = _read_index(store)
        known: dict[str, Any] = index["runs"]
        current = {run.run_id: (run, _stamp(run)) for run in RunStore(runs).runs()}
        stale = [i for i, (_, stamp) in current.items() if known.get(i, {}).get("stamp") != stamp]
        gone = [i for i in known if i not in current]
        by_experiment: dict[str, list[dict]] = {}
        for run_id in gone:
            experiment = known.pop(run_id)["experiment"]
            (rows_dir(store, experiment) / f"{run_id}.parquet").unlink(missing_ok=True)
            by_experiment.setdefault(experiment, [])
        for run_id in stale:
            run, stamp = current[run_id]
            (rows_dir(store, run.experiment) / f"{run_id}.parquet").unlink(missing_ok=True)
            by_experiment.setdefault(run.experiment, []).append(_write_run(store, run))
            known[run_id] = {"experiment": run.experiment, "stamp": stamp}
        for experiment, records in by_experiment.items():
            _write_manifests(store, experiment, records, set(gone) | set(stale))
        replace_file(store / "index.json", lambda p: p.write_text(json.dumps(index) + "\n"))
        return BuildResult(read=len(stale), removed=len(gone), total=len(known))


def rebuild(runs: Path, store: Path) -> BuildResult:
    """The store of ``runs`` from nothing."""
    with locked(store, exclusive=True):
        for part in ("rows", "manifests", "index.json"):
            target = store / part
            if target.is_dir():
                shutil.rmtree(target)
            target.unlink(missing_ok=True)
    return update(runs, store)
