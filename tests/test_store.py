"""The results store gives the analysis exactly what the run folders give, and stays up to
date with them: tests on copies of committed runs in tmp_path (never data/ or build/)."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchbook.analyse.sessions.every_headline import every_headline, experiments
from benchbook.runs.layout import REPO_ROOT
from benchbook.store.build import update
from benchbook.store.query import StoreSessions, open_store
from benchbook.store.sessions import COPY_OF, FolderSessions

RUNS = REPO_ROOT / "data" / "runs"
# Small committed runs of two experiments, with and without a recorded CPU identity.
EXPERIMENTS = ("01_io_concurrency", "05_grpc_vs_http_wrk")


def copy_runs(target: Path, experiments: tuple[str, ...] = EXPERIMENTS) -> Path:
    target.mkdir()
    for experiment in experiments:
        for run in sorted(RUNS.glob(f"*-{experiment}-*")):
            shutil.copytree(run, target / run.name)
    return target


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return copy_runs(tmp_path / "runs")


def test_sessions_from_the_store_are_those_of_the_folders(runs: Path, tmp_path: Path) -> None:
    update(runs, tmp_path / "store")
    folders, store = FolderSessions(runs), StoreSessions(tmp_path / "store")
    assert folders.manifests() == store.manifests()
    for experiment in EXPERIMENTS:
        read, stored = folders.sessions(experiment), store.sessions(experiment)
        assert [s.run_id for s in read] == [s.run_id for s in stored] and read
        for one, other in zip(read, stored, strict=True):
            assert one.manifest == other.manifest
            pd.testing.assert_frame_equal(one.rows, other.rows, check_exact=True)


def test_headline_sessions_via_the_store_equal_those_read_from_folders(
    runs: Path, tmp_path: Path
) -> None:
    update(runs, tmp_path / "store")
    read = every_headline(FolderSessions(runs))
    stored = every_headline(StoreSessions(tmp_path / "store"))
    assert read and repr(read) == repr(stored)  # repr: every float to its last digit


def test_an_update_reads_only_new_changed_and_gone_runs(runs: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    total = len(list(runs.iterdir()))
    assert update(runs, store).read == total
    assert update(runs, store).read == 0
    newest = sorted(runs.iterdir())[-1]
    shutil.copytree(newest, runs / newest.name.replace("Z-", "Y-"))
    assert (update(runs, store).read, update(runs, store).read) == (1, 0)
    shutil.rmtree(runs / newest.name.replace("Z-", "Y-"))
    (newest / "manifest.json").write_text((newest / "manifest.json").read_text() + "\n")
    result = update(runs, store)
    assert (result.read, result.removed, result.total) == (1, 1, total)


def test_copies_are_no_sessions_unless_asked_for(runs: Path) -> None:
    newest = sorted(runs.glob("*-01_io_concurrency-*"))[-1]
    copy = runs / newest.name.replace(newest.name[-4:], "c0de")
    shutil.copytree(newest, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    (copy / "manifest.json").write_text(json.dumps(manifest | {COPY_OF: newest.name}))
    for copies in (False, True):
        ids = [s.run_id for s in open_store(runs, copies=copies).sessions("01_io_concurrency")]
        folder_ids = [s.run_id for s in FolderSessions(runs, copies).sessions("01_io_concurrency")]
        assert ids == folder_ids and (copy.name in ids) == copies


# Heavy, but starts nothing: make test runs it in parallel, make test-fast leaves it out.
@pytest.mark.slow
@pytest.mark.no_load
def test_each_notebooks_headlines_via_the_store_equal_the_folders(tmp_path: Path) -> None:
    # Each shape of comparison once: several loads (00), paired rounds (01), two samples of
    # pooled paths (03), Go benchmarks (05), several delays (07), over every stored session
    # of each (linked, not copied). All 22 experiments take about a minute through the same
    # code (make bench-store times them all).
    only = ["00_load_generators", "01_io_concurrency", "03_goroutine_fanout",
            "05_grpc_vs_http_article_style", "07_network_rtt10ms"]  # fmt: skip
    runs = tmp_path / "runs"
    runs.mkdir()
    for experiment in only:
        for run in RUNS.glob(f"*-{experiment}-*"):
            (runs / run.name).symlink_to(run, target_is_directory=True)
    update(runs, tmp_path / "store")
    folders = FolderSessions(runs)
    assert set(only) <= set(experiments(folders))
    read = every_headline(folders, only)
    stored = every_headline(StoreSessions(tmp_path / "store"), only)
    assert len(read) > 15 and repr(read) == repr(stored)
