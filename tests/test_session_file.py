"""Session files: an export imports back into another runs folder unchanged, and each bad
file is refused with its problem named and the runs folder left as it was (tmp_path only)."""

import csv
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from benchbook.runs.layout import REPO_ROOT
from benchbook.store.__main__ import main
from benchbook.store.session_checks import SessionFileError
from benchbook.store.session_file import INDEX, export_session, import_session, newest_session

RUN = "20261123T190220Z-01_io_concurrency-639c"  # wrk rows: re-parsed on import


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    source.mkdir()
    shutil.copytree(REPO_ROOT / "data" / "runs" / RUN, source / RUN)
    return export_session(source, [RUN], tmp_path / "session.tar")


def folder(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def rewritten(file: Path, change: dict[str, bytes | None], name: str) -> Path:
    """The session file with members replaced (or dropped, None); the index kept."""
    with tarfile.open(file) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    out = file.with_name(f"{name}.tar")
    with tarfile.open(out, "w") as tar:
        for name, data in (members | change).items():
            if data is not None:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return out


def test_an_exported_session_imports_back_byte_for_byte(exported: Path, tmp_path: Path) -> None:
    assert newest_session(tmp_path / "source") == [RUN]
    assert import_session(exported, tmp_path / "runs") == [RUN]
    assert folder(tmp_path / "runs") == folder(tmp_path / "source")


def reindexed(file: Path, name: str, data: bytes) -> Path:
    """A member changed and the index's checksum with it: only the deeper checks catch it."""
    with tarfile.open(file) as tar:
        index = json.loads(tar.extractfile(INDEX).read())
    index["files"][name] = hashlib.sha256(data).hexdigest()
    return rewritten(file, {name: data, INDEX: json.dumps(index).encode()}, "reindexed")


def other_rps(rows: str) -> bytes:
    """The rows with the first one's req/s changed."""
    table = list(csv.DictReader(io.StringIO(rows)))
    table[0]["rps"] = "1.5"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(table[0]))
    writer.writeheader()
    writer.writerows(table)
    return out.getvalue().encode()


def bad_file(exported: Path, case: str) -> tuple[Path, str]:
    """The session file made bad in one way, and the words its refusal must use."""
    results = f"{RUN}/results.csv"
    with tarfile.open(exported) as tar:
        index = json.loads(tar.extractfile(INDEX).read())
        rows = tar.extractfile(results).read().decode()
    if case == "truncated":
        truncated = exported.with_name("truncated.tar")
        truncated.write_bytes(exported.read_bytes()[: exported.stat().st_size // 2])
        return truncated, "truncated"
    if case == "schema":
        index["schema_version"] = 9
        return rewritten(exported, {INDEX: json.dumps(index).encode()}, case), "version 9"
    if case == "checksum":
        changed = rows.replace(",", ";", 1).encode()
        return rewritten(exported, {results: changed}, case), "checksum mismatch"
    if case == "missing file":
        return rewritten(exported, {results: None}, case), "truncated: 1 indexed files missing"
    if case == "rows not raw":
        return reindexed(exported, results, other_rps(rows)), "does not match its raw output"
    fewer = "\n".join(rows.splitlines()[:-1]).encode()
    return reindexed(exported, results, fewer), "raw outputs in its rows, 24 planned"


@pytest.mark.parametrize(
    "case", ["truncated", "schema", "checksum", "missing file", "rows not raw", "fewer rows"]
)
def test_a_bad_file_is_refused_and_the_runs_stay_unchanged(
    exported: Path, tmp_path: Path, case: str
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(tmp_path / "source", runs)
    shutil.rmtree(runs / RUN)
    (runs / "kept").mkdir()
    (runs / "kept" / "manifest.json").write_text("{}")
    before = folder(runs)
    file, problem = bad_file(exported, case)
    with pytest.raises(SessionFileError, match=problem):
        import_session(file, runs)
    assert folder(runs) == before
    assert not [p for p in tmp_path.iterdir() if "import" in p.name]  # no staging left


def test_a_run_id_already_stored_is_refused_by_the_command(
    exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("BENCHBOOK_RUNS_DIR", str(tmp_path / "source"))
    before = folder(tmp_path / "source")
    assert main(["import", str(exported)]) == 1
    assert "refused: run id already in" in capsys.readouterr().err
    assert folder(tmp_path / "source") == before


def test_the_newest_session_is_each_experiments_newest_run_of_its_machine_and_commit(
    tmp_path: Path,
) -> None:
    """What one `make report` measured: runs of the newest run's machine and commit."""
    manifest = json.loads((REPO_ROOT / "data" / "runs" / RUN / "manifest.json").read_text())
    commit = manifest["provenance"]["git"]["commit"]
    copies = {  # run id: (experiment, commit)
        "20301201T000000Z-a_exp-0001": ("a_exp", commit),
        "20301201T000100Z-a_exp-0002": ("a_exp", commit),  # a newer run of a_exp: this one
        "20301201T000200Z-b_exp-0003": ("b_exp", "another commit"),  # another session
        "20301201T000300Z-c_exp-0004": ("c_exp", commit),
    }
    for run_id, (experiment, made_at) in copies.items():
        shutil.copytree(REPO_ROOT / "data" / "runs" / RUN, tmp_path / run_id)
        changed = json.loads(json.dumps(manifest))
        changed |= {"run_id": run_id, "experiment": experiment}
        changed["provenance"]["git"]["commit"] = made_at
        (tmp_path / run_id / "manifest.json").write_text(json.dumps(changed))
    assert newest_session(tmp_path) == [
        "20301201T000100Z-a_exp-0002", "20301201T000300Z-c_exp-0004"]  # fmt: skip
