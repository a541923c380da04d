"""Packed run outputs, on copies of real runs (tmp_path only): packing loses, changes and
duplicates nothing; every reader reads a packed run as it read it loose; the archive is
deterministic; a packing killed at any point leaves every file readable and the next one
finishes it; only finished runs are packed; a packed run takes new files later; and a file
that is nowhere, or an archive that is damaged, is an error naming it."""

import hashlib
import json
import math
import os
import re
import tarfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from benchbook.analyse.display.profiles import profiled_rows, share_table
from benchbook.runs import outputs
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.locust_output import per_second, steady_rps
from benchbook.runs.manifest import KILLED
from benchbook.runs.store import Run
from benchbook.store.__main__ import main
from benchbook.store.compact import (
    PackingError,
    compact,
    finished_loose_runs,
    loose_outputs,
    pack_run,
    shared_script_digests,
)
from benchbook.store.session_checks import check_run

REAL_RUNS = REPO_ROOT / "data" / "runs"
# wrk's Lua scripts: one script, byte for byte, six times in each of the two open-loop runs;
# one of its own for every row in the shortener run.
FREEZE = "20261125T152932Z-06_open_loop_freeze-ba3c"
FREEZE_AGAIN = "20261125T160206Z-06_open_loop_freeze-21fe"
FREEZE_ALONE = "20261122T140403Z-06_open_loop_freeze-6667"  # another script, 4 times
SHORTENER = "20261125T152139Z-04_url_shortener_get-301a"
PROFILED = "20261125T160122Z-05_grpc_vs_http_wrk-f289"  # profiles/ and profiled.csv
LOCUST = "20261125T155818Z-04_url_shortener_locust-7c9c"
ALL = (SHORTENER, FREEZE, LOCUST, PROFILED, FREEZE_AGAIN)  # oldest first

LOCUST_STATS = "raw/rep01_go-shortener-bolt-mix-create-5-get-4-redirect-4_u200-HttpUser-p1.json.txt"
PACKED_LOOSE = {"manifest.json", "results.csv", outputs.ARCHIVE, outputs.INDEX}
KEPT = {"manifest.json", "results.csv", "profiled.csv"}


@pytest.fixture(autouse=True)
def _own_machine_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Packing holds the machine lock: a lock of the test's own, so that it neither waits
    for a real measurement nor holds one up."""
    monkeypatch.setenv("BENCHBOOK_LOCK_PATH", str(tmp_path / "machine.lock"))


def copied(runs: Path, *run_ids: str) -> list[Path]:
    """The stored runs copied into ``runs`` loose, whether data/runs/ holds them loose or
    packed (their files read back through runs.outputs)."""
    copies = []
    for run_id in run_ids:
        source, copy = REAL_RUNS / run_id, runs / run_id
        for name in [*outputs.names(source), *(KEPT & set(os.listdir(source)))]:
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_bytes(outputs.read_bytes(source / name))
        copies.append(copy)
    return copies


def killed(run_dir: Path) -> Path:
    """The run as a kill leaves it: no completed_utc, its last row never written."""
    manifest = json.loads((run_dir / "manifest.json").read_text())
    del manifest["completed_utc"]
    (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=1))
    rows = (run_dir / "results.csv").read_text().splitlines(keepends=True)
    (run_dir / "results.csv").write_text("".join(rows[:-1]))
    assert Run(run_dir).completion == KILLED
    return run_dir


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` as it is on disk, by path relative to it: its sha256."""
    return {
        p.relative_to(folder).as_posix(): sha(p.read_bytes())
        for p in folder.rglob("*")
        if p.is_file()
    }


def read_back(run_dir: Path, names: list[str] | dict[str, str]) -> dict[str, str]:
    """These files of the run as outputs.read_bytes reads them: their sha256."""
    return {name: sha(outputs.read_bytes(run_dir / name)) for name in names}


def loose_files(run_dir: Path) -> set[str]:
    return {p.relative_to(run_dir).as_posix() for p in run_dir.rglob("*") if p.is_file()}


def members(run_dir: Path) -> dict[str, bytes]:
    with tarfile.open(run_dir / outputs.ARCHIVE, "r:xz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]


def test_packing_loses_no_file(runs_dir: Path) -> None:
    run_dirs = copied(runs_dir, *ALL)
    before = {run.name: files(run) for run in run_dirs}
    names = {run.name: outputs.names(run) for run in run_dirs}
    assert not any(outputs.is_packed(run) for run in run_dirs)
    assert [outputs.link(run) for run in run_dirs] == ["raw/"] * len(ALL)

    packed = compact(runs_dir)

    assert [p.run_id for p in packed] == list(ALL)
    for run, done in zip(run_dirs, packed, strict=True):
        assert read_back(run, before[run.name]) == before[run.name], run.name
        kept = PACKED_LOOSE | ({"profiled.csv"} & set(before[run.name]))
        assert loose_files(run) == kept, run.name
        assert not [p for p in run.rglob("*") if p.is_dir()], f"{run.name}: folders left"
        assert outputs.names(run) == names[run.name]
        assert outputs.is_packed(run) and outputs.link(run) == outputs.ARCHIVE
        assert done.files == len(names[run.name])
        assert set(outputs.index(run)) == set(names[run.name])
        for name, entry in outputs.index(run).items():
            assert entry["sha256"] == before[run.name][name]
            assert entry["size"] == len(outputs.read_bytes(REAL_RUNS / run.name / name))
    # The loose files kept are the real run's, untouched.
    for run in run_dirs:
        for name in loose_files(run) - {outputs.ARCHIVE, outputs.INDEX}:
            assert (run / name).read_bytes() == outputs.read_bytes(REAL_RUNS / run.name / name)


def test_readers_read_a_packed_run_as_they_read_it_loose(runs_dir: Path) -> None:
    locust, profiled = copied(runs_dir, LOCUST, PROFILED)
    stats = locust / LOCUST_STATS
    seconds, steady = per_second(stats), steady_rps(stats, settle_s=2.0)
    assert seconds["rps"].sum() > 0 and not math.isnan(steady)
    shares = share_table(profiled_rows(profiled))
    assert list(shares.columns) == [
        "python-governance-http HealthCheck",
        "go-governance-http HealthCheck",
    ]
    globbed = {run.name: outputs.glob(run, "raw/*.txt") for run in (locust, profiled)}
    assert all(globbed.values())
    assert outputs.glob(profiled, "profiles/*.folded") == [
        profiled / "profiles" / "go-governance-http-HealthCheck.folded",
        profiled / "profiles" / "python-governance-http-HealthCheck.folded",
    ]

    compact(runs_dir)

    assert not stats.exists() and not (profiled / "profiles").exists()
    pd.testing.assert_frame_equal(per_second(stats), seconds)
    assert steady_rps(stats, settle_s=2.0) == steady
    pd.testing.assert_frame_equal(share_table(profiled_rows(profiled)), shares)
    assert {run.name: outputs.glob(run, "raw/*.txt") for run in (locust, profiled)} == globbed
    assert outputs.exists(profiled / "profiles" / "go-governance-http-HealthCheck.svg")
    for run in (locust, profiled):
        check_run(run)  # rows re-parsed (wrk) from the archive; one raw output per row


def test_a_script_two_runs_carry_is_kept_once(runs_dir: Path) -> None:
    run_dirs = copied(runs_dir, FREEZE_ALONE, FREEZE, FREEZE_AGAIN, SHORTENER)
    alone, freeze, again, shortener = run_dirs
    scripts = {run.name: sorted(run.glob("raw/*.lua")) for run in run_dirs}
    assert len(scripts[FREEZE]) == len(scripts[FREEZE_AGAIN]) == 6
    (script,) = {p.read_bytes() for p in scripts[FREEZE] + scripts[FREEZE_AGAIN]}
    # Scripts only one run carries: the same four times in one, one of its own per row in
    # the other.
    own = {
        run: {p.relative_to(run).as_posix(): p.read_bytes() for p in scripts[run.name]}
        for run in (alone, shortener)
    }
    assert len(own[alone]) == 4 and len(set(own[alone].values())) == 1
    assert len(own[shortener]) == len(set(own[shortener].values())) == 34
    assert script not in own[alone].values()
    assert shared_script_digests(runs_dir, run_dirs) == {sha(script)}

    compact(runs_dir)

    shared = f"{outputs.SHARED_SCRIPTS}/{sha(script)}.lua"
    assert files(runs_dir / outputs.SHARED_SCRIPTS) == {f"{sha(script)}.lua": sha(script)}
    for run in (freeze, again):
        assert not [name for name in members(run) if name.endswith(".lua")], run.name
        assert script not in members(run).values()
        for path in scripts[run.name]:
            name = path.relative_to(run).as_posix()
            assert outputs.index(run)[name] == {
                "size": len(script),
                "sha256": sha(script),
                "shared": shared,
            }
            assert outputs.read_bytes(path) == script
    for run, carried in own.items():
        packed = members(run)
        for name, data in carried.items():
            assert packed[name] == data
            assert "shared" not in outputs.index(run)[name]
            assert outputs.read_bytes(run / name) == data


def test_packing_the_same_run_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    first, second = (copied(tmp_path / where / "runs", PROFILED)[0] for where in ("a", "b"))
    # What the machine adds to a file, and what a copy changes, is not packed.
    for path in second.rglob("*"):
        if path.is_file():
            path.chmod(0o600)
            os.utime(path, (1_000_000_000, 1_000_000_000))
    for run in (first, second):
        pack_run(run)
    for name in (outputs.ARCHIVE, outputs.INDEX):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    with tarfile.open(first / outputs.ARCHIVE, "r:xz") as tar:
        infos = tar.getmembers()
    assert [m.name for m in infos] == sorted(m.name for m in infos)
    assert {(m.mtime, m.mode, m.uid, m.gid, m.uname, m.gname) for m in infos} == {
        (0, 0o644, 0, 0, "", "")
    }


class Killed(Exception):
    """The packing process killed at this point."""


def kill_writing_the_archive(monkeypatch: pytest.MonkeyPatch) -> None:
    """The packing killed as the archive is renamed into place: ``.partial`` left."""
    replace = os.replace

    def killed_at_the_archive(src: str | Path, dst: str | Path) -> None:
        if Path(dst).name == outputs.ARCHIVE:
            raise Killed("while writing the archive")
        replace(src, dst)

    monkeypatch.setattr(os, "replace", killed_at_the_archive)


def kill_removing_loose_files(removed: int) -> Callable[[pytest.MonkeyPatch], None]:
    """The packing killed after the archive and the index, ``removed`` loose files gone."""

    def kill(monkeypatch: pytest.MonkeyPatch) -> None:
        unlink, calls = Path.unlink, []

        def killed_at_a_loose_file(self: Path, missing_ok: bool = False) -> None:
            run_dir = outputs.run_folder(self)
            assert run_dir and outputs.is_packed(run_dir), f"{self} removed before the index"
            if len(calls) == removed:
                raise Killed(f"removing loose file {self.name}")
            calls.append(self)
            unlink(self, missing_ok)

        monkeypatch.setattr(Path, "unlink", killed_at_a_loose_file)

    return kill


@pytest.mark.parametrize(
    "kill",
    [kill_writing_the_archive, kill_removing_loose_files(0), kill_removing_loose_files(20)],
    ids=["writing the archive", "removing the first loose file", "removing the 21st"],
)
def test_a_killed_packing_loses_nothing_and_the_next_one_finishes_it(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch, kill: Callable[[pytest.MonkeyPatch], None]
) -> None:
    run_dirs = copied(runs_dir, FREEZE, PROFILED, FREEZE_AGAIN)  # oldest first
    before = {run.name: files(run) for run in run_dirs}
    names = {run.name: outputs.names(run) for run in run_dirs}

    with monkeypatch.context() as patch:
        kill(patch)
        with pytest.raises(Killed):
            compact(runs_dir)

    first = run_dirs[0]  # the oldest: the one being packed when killed
    if kill is kill_writing_the_archive:
        assert (first / (outputs.ARCHIVE + ".partial")).is_file()
        assert not outputs.is_packed(first)
    else:
        assert outputs.is_packed(first) and (first / outputs.ARCHIVE).is_file()
    for run in run_dirs:
        assert read_back(run, before[run.name]) == before[run.name], run.name
        assert outputs.names(run) == names[run.name]
    assert finished_loose_runs(runs_dir) == run_dirs

    packed = compact(runs_dir)

    assert [p.run_id for p in packed] == [run.name for run in run_dirs]
    assert not [p for p in runs_dir.rglob("*") if p.name.endswith(".partial")]
    for run in run_dirs:
        assert read_back(run, before[run.name]) == before[run.name], run.name
        assert loose_files(run) == PACKED_LOOSE | ({"profiled.csv"} & set(before[run.name]))
        assert outputs.names(run) == names[run.name]
    assert finished_loose_runs(runs_dir) == []


def test_a_packed_script_goes_to_the_shared_folder_when_a_second_run_carries_it(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Packed while only its run carried it, killed before the loose files went: packed
    again beside a second run carrying it, the script leaves the archive for _scripts/."""
    (freeze,) = copied(runs_dir, FREEZE)
    before = files(freeze)
    with monkeypatch.context() as patch:
        kill_removing_loose_files(0)(patch)
        with pytest.raises(Killed):
            compact(runs_dir)
    assert len([name for name in members(freeze) if name.endswith(".lua")]) == 6
    copied(runs_dir, FREEZE_AGAIN)

    assert [p.run_id for p in compact(runs_dir)] == [FREEZE, FREEZE_AGAIN]

    assert not [name for name in members(freeze) if name.endswith(".lua")]
    scripts = {n: e for n, e in outputs.index(freeze).items() if n.endswith(".lua")}
    assert len(scripts) == 6 and all("shared" in entry for entry in scripts.values())
    assert read_back(freeze, before) == before


def test_a_script_a_packed_run_carries_is_shared_by_the_next_run_packed(runs_dir: Path) -> None:
    """Runs packed one command at a time (make report packs what it measured): the second
    run's copy of a script the first run's archive holds goes to _scripts/, once."""
    freeze, again = copied(runs_dir, FREEZE, FREEZE_AGAIN)
    (script,) = {p.read_bytes() for p in again.glob("raw/*.lua")}
    compact(runs_dir, only=[FREEZE])
    assert not (runs_dir / outputs.SHARED_SCRIPTS).exists()  # one run carries it so far

    compact(runs_dir, only=[FREEZE_AGAIN])

    assert files(runs_dir / outputs.SHARED_SCRIPTS) == {f"{sha(script)}.lua": sha(script)}
    assert not [name for name in members(again) if name.endswith(".lua")]
    lua = [again / name for name in outputs.index(again) if name.endswith(".lua")]
    assert len(lua) == 6 and {outputs.read_bytes(path) for path in lua} == {script}


def test_only_finished_runs_are_packed(runs_dir: Path) -> None:
    run_dirs = copied(runs_dir, *ALL)
    shortener, freeze, locust, profiled, last = run_dirs
    killed(last)  # killed, or still being measured
    untouched = files(last)
    assert finished_loose_runs(runs_dir) == run_dirs[:4]
    size = {run: sum(p.stat().st_size for p in loose_outputs(run)) for run in run_dirs}
    assert size[locust] < size[freeze] < size[shortener]

    # A budget the oldest fits in, the next not: packing stops there, though the one after
    # that would fit in what is left.
    packed = compact(runs_dir, limit_mb=(size[shortener] + size[freeze] - 1) / 1e6)
    assert [p.run_id for p in packed] == [SHORTENER]
    assert packed[0].loose_bytes == size[shortener]
    assert [outputs.is_packed(run) for run in run_dirs] == [True, False, False, False, False]

    # Since a time: the runs whose id sorts at or after it, the killed one left out.
    assert [p.run_id for p in compact(runs_dir, since=PROFILED[:13])] == [PROFILED]
    assert not outputs.is_packed(locust)
    assert [p.run_id for p in compact(runs_dir, since=FREEZE)] == [FREEZE, LOCUST]

    assert compact(runs_dir) == []
    assert not outputs.is_packed(last) and files(last) == untouched
    assert finished_loose_runs(runs_dir) == []


def test_a_file_loose_and_packed_with_other_contents_is_refused(runs_dir: Path) -> None:
    (run,) = copied(runs_dir, PROFILED)
    compact(runs_dir)
    raw = run / "raw" / "rep01_go-governance-http-HealthCheck_c16.txt"
    packed = outputs.read_bytes(raw)
    raw.parent.mkdir()
    raw.write_bytes(packed + b"one more line\n")
    (run / "profiles").mkdir()
    (run / "profiles" / "new.folded").write_text("main;serve 7\n")  # new: fine alone
    before = files(runs_dir)

    with pytest.raises(PackingError, match="loose and packed with different contents"):
        pack_run(run)
    with pytest.raises(PackingError, match=raw.name):
        compact(runs_dir)

    assert files(runs_dir) == before
    assert outputs.archive_members(run / outputs.ARCHIVE)[raw.relative_to(run).as_posix()] == (
        packed
    )


def test_a_packed_run_takes_new_files_later(runs_dir: Path) -> None:
    run_dirs = copied(runs_dir, FREEZE, PROFILED, FREEZE_AGAIN)
    before = {run.name: files(run) for run in run_dirs}
    compact(runs_dir)
    packed = {run.name: members(run) for run in run_dirs}
    shared_scripts = files(runs_dir / outputs.SHARED_SCRIPTS)
    # A profiled phase after packing writes new files, into folders packing removed.
    added = {"profiles/extra.folded": b"main;serve;write 12\n", "raw/late.txt": b"late\n"}
    for run in run_dirs[:2]:
        for name, data in added.items():
            (run / name).parent.mkdir(exist_ok=True)
            (run / name).write_bytes(data)

    assert [p.run_id for p in compact(runs_dir)] == [FREEZE, PROFILED]

    for run in run_dirs[:2]:
        assert members(run) == packed[run.name] | added
        assert list(members(run)) == sorted(members(run))  # in order, as if packed at once
        assert read_back(run, before[run.name]) == before[run.name]
        assert read_back(run, added) == {name: sha(data) for name, data in added.items()}
        assert outputs.names(run) == sorted(set(before[run.name]) - outputs.KEPT_LOOSE | set(added))
        assert not loose_outputs(run)
    assert members(run_dirs[2]) == packed[FREEZE_AGAIN]
    assert files(runs_dir / outputs.SHARED_SCRIPTS) == shared_scripts
    assert all(  # the shared scripts stay shared
        "shared" in entry
        for name, entry in outputs.index(run_dirs[0]).items()
        if name.endswith(".lua")
    )


def test_a_file_that_is_nowhere_is_not_found(runs_dir: Path) -> None:
    (run,) = copied(runs_dir, PROFILED)
    nowhere = run / "raw" / "rep09_go-governance-http-HealthCheck_c16.txt"
    for packed in (False, True):
        if packed:
            compact(runs_dir)
        assert outputs.is_packed(run) == packed
        with pytest.raises(FileNotFoundError, match="neither a file nor among"):
            outputs.read_bytes(nowhere)
        assert not outputs.exists(nowhere)
    with pytest.raises(FileNotFoundError):
        outputs.read_bytes(runs_dir / "not-a-run" / "raw" / "x.txt")


def test_a_truncated_archive_is_an_error_naming_it(runs_dir: Path) -> None:
    (run,) = copied(runs_dir, PROFILED)
    folded = run / "profiles" / "go-governance-http-HealthCheck.folded"
    data = folded.read_bytes()
    compact(runs_dir)
    assert outputs.read_bytes(folded) == data  # read once: the members are cached
    archive = run / outputs.ARCHIVE
    os.truncate(archive, archive.stat().st_size // 2)

    with pytest.raises(outputs.OutputsError, match=re.escape(str(archive))):
        outputs.read_bytes(folded)
    with pytest.raises(outputs.OutputsError, match="cannot be read"):
        outputs.read_text(run / "raw" / "rep01_go-governance-http-HealthCheck_c16.txt")


def test_a_corrupted_archive_is_an_error_naming_it(runs_dir: Path) -> None:
    """A byte changed in the compressed data, not at the end of the file."""
    (run,) = copied(runs_dir, PROFILED)
    compact(runs_dir)
    archive = run / outputs.ARCHIVE
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0xFF
    archive.write_bytes(bytes(data))

    with pytest.raises(outputs.OutputsError, match=re.escape(str(archive))):
        outputs.read_bytes(run / "profiles" / "go-governance-http-HealthCheck.folded")


def test_the_command_packs_finished_runs_once(
    runs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copied(runs_dir, SHORTENER, FREEZE, LOCUST)

    assert main(["compact"]) == 0
    assert capsys.readouterr().out.startswith("packed 3 finished runs: 173 files, 0.4 MB loose")
    assert main(["compact"]) == 0
    assert capsys.readouterr().out == "packing finished runs: none has loose outputs\n"


def test_a_shared_copy_outside_the_shared_folder_is_refused(runs_dir: Path) -> None:
    """An index (an imported one, say) cannot point a reader at a file beside the runs."""
    (freeze,) = copied(runs_dir, FREEZE)
    compact(runs_dir)
    stored = json.loads((freeze / outputs.INDEX).read_text())
    name = next(n for n in stored["files"] if n.endswith(".lua"))
    (runs_dir / "elsewhere.lua").write_text("x")
    stored["files"][name] = {"size": 1, "sha256": sha(b"x"), "shared": "../elsewhere.lua"}
    (freeze / outputs.INDEX).write_text(json.dumps(stored))
    with pytest.raises(outputs.OutputsError, match="is not in _scripts/"):
        outputs.read_bytes(freeze / name)
