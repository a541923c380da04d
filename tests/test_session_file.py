"""Session files: an export (its runs packed, as make export-session sends them) imports back
into another runs folder unchanged, a version-1 file of loose runs still imports, and each
bad file is refused with its problem named and the runs folder left as it was (tmp_path
only)."""

import csv
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from benchbook.runs import outputs
from benchbook.runs.layout import REPO_ROOT
from benchbook.store.__main__ import main
from benchbook.store.compact import pack_run
from benchbook.store.session_checks import SessionFileError
from benchbook.store.session_file import INDEX, export_session, import_session, newest_session

RUN = "20261123T190220Z-01_io_concurrency-639c"  # wrk rows: re-parsed on import
ARCHIVE = f"{RUN}/{outputs.ARCHIVE}"


def copy_run(runs: Path, run_id: str = RUN) -> Path:
    """The stored run RUN copied into ``runs`` as ``run_id``, loose (whatever its state in
    data/runs/: a packed run's files are read back through runs.outputs)."""
    source, copy = REPO_ROOT / "data" / "runs" / RUN, runs / run_id
    for name in outputs.names(source):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_bytes(outputs.read_bytes(source / name))
    for name in ("manifest.json", "results.csv"):
        (copy / name).write_text((source / name).read_text().replace(RUN, run_id))
    return copy


@pytest.fixture
def exported(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    pack_run(copy_run(source))
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
    with tarfile.open(exported) as tar:
        assert ARCHIVE in tar.getnames() and f"{RUN}/raw" not in {
            Path(n).parent.as_posix() for n in tar.getnames()
        }
    assert import_session(exported, tmp_path / "runs") == [RUN]
    assert folder(tmp_path / "runs") == folder(tmp_path / "source")


def test_a_version_1_file_of_loose_runs_still_imports(tmp_path: Path) -> None:
    source = tmp_path / "source"
    copy_run(source)
    file = export_session(source, [RUN], tmp_path / "session.tar")
    with tarfile.open(file) as tar:
        index = json.loads(tar.extractfile(INDEX).read())
    old = rewritten(file, {INDEX: json.dumps(index | {"schema_version": 1}).encode()}, "v1")
    assert import_session(old, tmp_path / "runs") == [RUN]
    assert folder(tmp_path / "runs") == folder(source)


def test_a_script_two_runs_carry_travels_once_and_is_shared_on_import(tmp_path: Path) -> None:
    source, other = tmp_path / "source", RUN.replace("-639c", "-0000")
    runs = [copy_run(source), copy_run(source, other)]
    script = b"done = function(summary, latency, requests) end\n"  # as wrk is handed one
    for run in runs:
        (run / "raw" / "summary.lua").write_bytes(script)
    shared = outputs.sha256(script)
    for run in runs:
        pack_run(run, {shared})
    file = export_session(source, [other, RUN], tmp_path / "session.tar")
    with tarfile.open(file) as tar:
        assert [n for n in tar.getnames() if n.startswith("_scripts/")] == [
            f"_scripts/{shared}.lua"
        ]
    assert import_session(file, tmp_path / "runs") == [other, RUN]
    assert folder(tmp_path / "runs") == folder(source)
    assert outputs.read_bytes(tmp_path / "runs" / RUN / "raw" / "summary.lua") == script


def repacked(file: Path, change: dict[str, bytes]) -> Path:
    """The session file with its run's archive re-made with members changed (and the
    session's index following the new archive, so only the run's own index can tell)."""
    with tarfile.open(file) as tar:
        archive = tar.extractfile(ARCHIVE).read()
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:xz") as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:xz") as tar:
        for name, data in (members | change).items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return reindexed(file, ARCHIVE, out.getvalue())


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
    if case == "damaged archive":
        with tarfile.open(exported) as tar:
            archive = tar.extractfile(ARCHIVE).read()
        damaged = reindexed(exported, ARCHIVE, archive[: len(archive) // 2])
        return damaged, "its packed outputs cannot be read"
    if case == "archive member changed":
        with tarfile.open(exported) as tar:
            packed = json.loads(tar.extractfile(f"{RUN}/{outputs.INDEX}").read())["files"]
        first = next(n for n, e in packed.items() if n.startswith("raw/") and "shared" not in e)
        changed = repacked(exported, {first: b"changed"})
        return changed, "differs from what was packed"
    if case == "unnamed shared script":
        script = "_scripts/" + "0" * 64 + ".lua"
        index["files"][script] = hashlib.sha256(b"x").hexdigest()
        return rewritten(exported, {script: b"x", INDEX: json.dumps(index).encode()}, case), (
            "must be named by its sha256"
        )
    fewer = "\n".join(rows.splitlines()[:-1]).encode()
    return reindexed(exported, results, fewer), "raw outputs in its rows, 24 planned"


@pytest.mark.parametrize(
    "case",
    [
        "truncated", "schema", "checksum", "missing file", "rows not raw", "fewer rows",
        "damaged archive", "archive member changed", "unnamed shared script",
    ],
)  # fmt: skip
def test_a_bad_file_is_refused_and_the_runs_stay_unchanged(
    exported: Path, tmp_path: Path, case: str
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
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
