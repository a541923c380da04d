"""What a session is, read from folders or from the store alike: one finished run of an
experiment with results (a run killed mid-way, or from before completion was recorded, is
none: runs.manifest's ``completion``). A run
marked ``copy_of`` (bench_store's copies) is no session unless a reader asks for copies."""

import dataclasses
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from benchbook.runs.layout import REPO_ROOT, runs_dir
from benchbook.runs.manifest import COMPLETED
from benchbook.runs.store import Run, RunStore

COPY_OF = "copy_of"  # manifest key of a copy: the id of the run it copies


@dataclass(frozen=True)
class StoredSession:
    """One session: its run id, manifest and rows."""

    run_id: str
    manifest: dict[str, Any]
    rows: pd.DataFrame


class SessionSource(Protocol):
    """Where the analysis reads sessions from: folders (FolderSessions) or the store."""

    def sessions(self, experiment: str) -> list[StoredSession]:
        """The sessions of ``experiment``, oldest first."""
        ...

    def manifests(self) -> list[dict[str, Any]]:
        """Every run's manifest but copies', newest first (sessions or not)."""
        ...

    def estimates(
        self, experiment: str, key: str, version: str, compute: Callable[[StoredSession], Any]
    ) -> list[tuple[str, Any]]:
        """Each session's ``compute`` (by run id, oldest first): the store keeps them under
        ``key`` and ``version`` (store.estimates); folders compute them every time."""
        ...


def is_session(manifest: dict[str, Any], has_rows: bool, copies: bool = False) -> bool:
    """A finished run with rows (a copy only when ``copies``)."""
    completed = manifest["completion"] == COMPLETED  # a migrated manifest (runs.manifest)
    return has_rows and completed and (copies or COPY_OF not in manifest)


def not_sessions(runs: Path | None = None) -> dict[str, int]:
    """How many runs with results are no session, by how they ended (runs.manifest's
    KILLED, UNRECORDED): kept in the folder, counted nowhere."""
    counts: dict[str, int] = {}
    for run in RunStore(runs).runs():
        if run.has_results and (how := run.completion) != COMPLETED:
            counts[how] = counts.get(how, 0) + 1
    return counts


class FolderSessions:
    """Sessions read from the run folders, each CSV and JSON parsed on every call."""

    def __init__(self, directory: Path | None = None, copies: bool = False):
        self.store = RunStore(directory)
        self.copies = copies

    def _runs(self, experiment: str | None = None) -> Iterator[tuple[Run, dict[str, Any]]]:
        for run in self.store.runs(experiment):
            manifest = run.manifest()
            if self.copies or COPY_OF not in manifest:
                yield run, manifest

    def sessions(self, experiment: str) -> list[StoredSession]:
        found = [
            StoredSession(run.run_id, manifest, run.results())
            for run, manifest in self._runs(experiment)
            if is_session(manifest, run.has_results, self.copies)
        ]
        return found[::-1]

    def manifests(self) -> list[dict[str, Any]]:
        return [manifest for _, manifest in self._runs()]

    def estimates(
        self, experiment: str, key: str, version: str, compute: Callable[[StoredSession], Any]
    ) -> list[tuple[str, Any]]:
        return computed_estimates(self.sessions(experiment), compute)


def computed_estimates(
    sessions: list[StoredSession], compute: Callable[[StoredSession], Any]
) -> list[tuple[str, Any]]:
    """Each session's estimate computed now, as JSON would give it back (see
    store.estimates.plain): the same values a store's cached estimates read as."""
    return [(s.run_id, json.loads(json.dumps(compute(s), default=_native))) for s in sessions]


def _native(value: Any) -> Any:
    """What JSON cannot write as it is: a dataclass (a run plan's part) as its fields, a
    NumPy scalar as the Python number it holds."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value.item()


def store_dir(runs: Path | None = None) -> Path:
    """Where the store of ``runs`` lives: BENCHBOOK_STORE_DIR, else build/store for the
    repository's data/runs, else beside the runs folder (tests keep it in their tmp_path)."""
    if configured := os.environ.get("BENCHBOOK_STORE_DIR"):
        return Path(configured)
    runs = (runs or runs_dir()).resolve()
    if runs == (REPO_ROOT / "data" / "runs").resolve():
        return REPO_ROOT / "build" / "store"
    return runs.with_name(f"{runs.name}.store")
