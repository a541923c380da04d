"""The store keeps each session's estimates: computed once, read back equal, computed again
only for a run whose files changed or under another version (tests on copies of
committed runs in tmp_path)."""

import json
import os
from pathlib import Path

import pytest
from test_store import copy_runs

from benchbook.analyse.sessions.every_headline import every_headline
from benchbook.store.build import update
from benchbook.store.query import StoreSessions
from benchbook.store.sessions import FolderSessions, StoredSession

EXPERIMENT = "05_grpc_vs_http_wrk"


class Counting:
    """An estimate (a session's row count and first target) that counts its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, session: StoredSession) -> dict:
        self.calls.append(session.run_id)
        return {"rows": len(session.rows), "first": str(session.rows["target"].iloc[0])}


@pytest.fixture
def store(tmp_path: Path) -> StoreSessions:
    runs = copy_runs(tmp_path / "runs", (EXPERIMENT,))
    update(runs, tmp_path / "store")
    return StoreSessions(tmp_path / "store")


def test_estimates_are_computed_once_and_read_back_as_the_folders_give_them(
    store: StoreSessions, tmp_path: Path
) -> None:
    count = Counting()
    first = store.estimates(EXPERIMENT, "rows", "v1", count)
    sessions = [s.run_id for s in store.sessions(EXPERIMENT)]
    assert [run_id for run_id, _ in first] == sessions and len(sessions) >= 3
    assert count.calls == sessions
    again = store.estimates(EXPERIMENT, "rows", "v1", count)
    assert again == first and count.calls == sessions  # read back, nothing computed
    folders = FolderSessions(tmp_path / "runs").estimates(EXPERIMENT, "rows", "v1", Counting())
    assert folders == first


def test_a_changed_run_or_another_version_computes_again(
    store: StoreSessions, tmp_path: Path
) -> None:
    count = Counting()
    store.estimates(EXPERIMENT, "rows", "v1", count)
    changed = sorted((tmp_path / "runs").iterdir())[0]
    manifest = changed / "manifest.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text())) + "\n")
    os.utime(manifest, ns=(1, 1))  # a stamp the store's index has not seen
    update(tmp_path / "runs", store.store)
    count.calls.clear()
    store.estimates(EXPERIMENT, "rows", "v1", count)
    assert count.calls == [changed.name]
    count.calls.clear()
    store.estimates(EXPERIMENT, "rows", "v2", count)
    assert len(count.calls) == len(store.sessions(EXPERIMENT))


def test_a_sweep_reads_its_estimates_back_unchanged(store: StoreSessions, tmp_path: Path) -> None:
    computed = every_headline(store)
    assert list((store.store / "estimates" / EXPERIMENT).glob("*.json"))
    assert repr(every_headline(store)) == repr(computed)  # repr: every float to its last digit
    assert repr(every_headline(FolderSessions(tmp_path / "runs"))) == repr(computed)
