"""Reading sessions from the store with DuckDB: one query for an experiment's manifests,
one for all its sessions' rows, each run's frame then cut out with the columns and dtypes
its results.csv had, so an analysis sees exactly what reading the folder would give."""

import json
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from benchbook.runs.layout import runs_dir
from benchbook.store.build import ROW_NUMBER, locked, manifests_path, rows_dir, update
from benchbook.store.estimates import Compute, cached, session_stamps
from benchbook.store.sessions import COPY_OF, StoredSession, store_dir

RUN = "_run"  # the run id DuckDB adds to each row (the file it came from)


class StoreSessions:
    """Sessions read from the store of a runs folder (see sessions.SessionSource)."""

    def __init__(self, store: Path, copies: bool = False):
        self.store = store
        self.copies = copies
        # An experiment's sessions with their stamps, read once for the estimates this
        # reader computes (an estimate only reads them); ``sessions`` reads afresh.
        self._for_estimates: dict[str, tuple[dict, list[StoredSession]]] = {}

    def _manifest_records(self, experiment: str) -> list[dict[str, Any]]:
        source = self.store / "manifests" / f"experiment={experiment or '*'}" / "*.parquet"
        if not experiment and not (self.store / "manifests").exists():
            return []
        if experiment and not manifests_path(self.store, experiment).exists():
            return []
        copies = "" if self.copies else f" and {COPY_OF} is null"
        query = (
            f"select run_id, completed, has_rows, manifest, dtypes from read_parquet(?, "
            f"hive_partitioning=false) where true{copies} order by run_id desc"
        )
        with locked(self.store, exclusive=False):
            found = duckdb.execute(query, [str(source)]).fetchall()
        names = ("run_id", "completed", "has_rows", "manifest", "dtypes")
        return [dict(zip(names, record, strict=True)) for record in found]

    def sessions(self, experiment: str) -> list[StoredSession]:
        records = [
            r for r in self._manifest_records(experiment) if r["completed"] and r["has_rows"]
        ][::-1]
        if not records:
            return []
        files = [str(rows_dir(self.store, experiment) / f"{r['run_id']}.parquet") for r in records]
        query = (
            f"select *, parse_filename(filename, true) as {RUN} from read_parquet(?, "
            f"union_by_name=true, hive_partitioning=false, filename=true) "
            f"order by {RUN}, {ROW_NUMBER}"
        )
        with locked(self.store, exclusive=False):
            rows = duckdb.execute(query, [files]).df()
        by_run = dict(tuple(rows.groupby(RUN, sort=False)))
        return [
            StoredSession(r["run_id"], json.loads(r["manifest"]), _as_read(by_run[r["run_id"]], r))
            for r in records
        ]

    def manifests(self) -> list[dict[str, Any]]:
        return [json.loads(r["manifest"]) for r in self._manifest_records("")]

    def estimates(
        self, experiment: str, key: str, version: str, compute: Compute
    ) -> list[tuple[str, Any]]:
        with locked(self.store, exclusive=False):
            stamps = session_stamps(self.store, experiment, self.copies)

        def sessions() -> list[StoredSession]:
            read = self._for_estimates.get(experiment)
            if read is None or read[0] != stamps:  # none yet, or the store changed since
                read = self._for_estimates[experiment] = (stamps, self.sessions(experiment))
            return read[1]

        return cached(self.store, experiment, stamps, key, version, compute, sessions)


def _as_read(rows: pd.DataFrame, record: dict[str, Any]) -> pd.DataFrame:
    """A run's rows with the columns, order and dtypes its results.csv gave."""
    dtypes = dict(json.loads(record["dtypes"]))
    frame = rows[list(dtypes)].reset_index(drop=True)
    current = {c: str(d) for c, d in frame.dtypes.items()}
    differ = {c: d for c, d in dtypes.items() if current[c] != d}
    return frame.astype(differ) if differ else frame


def open_store(directory: Path | None = None, copies: bool = False) -> StoreSessions:
    """The store of ``directory`` (data/runs/ unless BENCHBOOK_RUNS_DIR says), brought up
    to date with its run folders first."""
    runs = directory or runs_dir()
    store = store_dir(runs)
    update(runs, store)
    return StoreSessions(store, copies)
