"""Sessions that travel: one tar holding a session's run folders (rows, manifest, raw
outputs) and a top-level index with the format's schema version and each file's sha256.
Version 2 carries runs packed (benchbook.store.compact: one outputs.tar.xz each) and the
shared scripts they use (``_scripts/``); version 1 files, with loose outputs, still
import. An import stages the file in a temporary folder beside data/runs/, checks
everything (schema, checksums, run ids, packed outputs against their index, rows against
raw outputs), and only then moves the runs in: a refused file leaves data/runs/ as it
was."""

import io
import json
import shutil
import tarfile
import tempfile
from pathlib import Path

from benchbook.runs import outputs
from benchbook.runs.manifest import COMPLETED
from benchbook.runs.outputs import SHARED_SCRIPTS, sha256
from benchbook.store.session_checks import SessionFileError, check_run
from benchbook.store.sessions import FolderSessions

FORMAT = "benchbook-session"
SCHEMA_VERSION = 2
READS_VERSIONS = (1, 2)
INDEX = "index.json"


def sessions(runs: Path) -> list[list[str]]:
    """Every measuring session in ``runs``, oldest first (by its newest run): the newest
    completed run of each experiment measured on one machine at one commit (what one
    ``make report`` measured, or one ``make replicate`` of some notebooks)."""
    done = sorted(
        (m for m in FolderSessions(runs).manifests() if m["completion"] == COMPLETED),
        key=lambda m: m["run_id"],
    )
    by_sitting: dict[tuple[object, object], dict[str, str]] = {}
    for manifest in done:
        by_sitting.setdefault(_sitting(manifest), {})[manifest["experiment"]] = manifest["run_id"]
    return sorted((sorted(runs_of.values()) for runs_of in by_sitting.values()), key=max)


def newest_session(runs: Path) -> list[str]:
    """The runs of the newest measuring session (sessions)."""
    found = sessions(runs)
    if not found:
        raise SessionFileError(f"no finished session in {runs}")
    return found[-1]


def _sitting(manifest: dict) -> tuple[object, object]:
    """What one session shares: the machine (its boot id; runs from before that was recorded,
    the CPU identity) and the commit measured. Not /etc/machine-id: the image ships one."""
    provenance = manifest["provenance"]
    machine = provenance["machine"]
    where = machine.get("boot_id") or json.dumps(machine.get("cpu"), sort_keys=True)
    return where, (provenance.get("git") or {}).get("commit")


def export_session(runs: Path, run_ids: list[str], out: Path) -> Path:
    """Write the runs ``run_ids`` of ``runs`` (packed, as make export-session leaves them,
    or loose) with the shared scripts they use to the tar ``out``, index first."""
    paths: set[Path] = set()
    for run_id in run_ids:
        folder = runs / run_id
        if not (folder / "manifest.json").exists():
            raise SessionFileError(f"no run {run_id} in {runs}")
        paths |= {p for p in folder.rglob("*") if p.is_file()}
        paths |= {runs / e["shared"] for e in outputs.index(folder).values() if "shared" in e}
    contents = [(path.relative_to(runs).as_posix(), path) for path in sorted(paths)]
    files = {name: sha256(path.read_bytes()) for name, path in contents}
    index = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "runs": run_ids, "files": files}
    data = json.dumps(index, indent=1).encode()
    with tarfile.open(out, "w") as tar:
        info = tarfile.TarInfo(INDEX)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for name, path in contents:
            tar.add(path, arcname=name, recursive=False)
    return out


def _read_index(staged: Path) -> dict:
    try:
        index = json.loads((staged / INDEX).read_text())
    except (FileNotFoundError, json.JSONDecodeError) as error:
        raise SessionFileError(f"no readable {INDEX} at the top of the file: {error}") from None
    if index.get("format") != FORMAT or index.get("schema_version") not in READS_VERSIONS:
        raise SessionFileError(
            f"schema {index.get('format')!r} version {index.get('schema_version')!r}; "
            f"this benchbook reads {FORMAT!r} versions {', '.join(map(str, READS_VERSIONS))}"
        )
    return index


def _check_files(staged: Path, index: dict) -> None:
    listed = dict(index.get("files") or {})
    present = {str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file()} - {INDEX}
    if missing := sorted(set(listed) - present):
        raise SessionFileError(
            f"truncated: {len(missing)} indexed files missing, e.g. {missing[0]}"
        )
    if extra := sorted(present - set(listed)):
        raise SessionFileError(f"files not in the index: {', '.join(extra[:3])}")
    for name, digest in listed.items():
        if sha256((staged / name).read_bytes()) != digest:
            raise SessionFileError(f"checksum mismatch: {name} is not the file exported")
        if name.startswith(f"{SHARED_SCRIPTS}/") and Path(name).stem != digest:
            raise SessionFileError(f"{name}: a shared script must be named by its sha256")


def _check_ids(runs: Path, index: dict) -> list[str]:
    run_ids = [str(i) for i in index.get("runs") or []]
    if not run_ids or len(set(run_ids)) != len(run_ids):
        raise SessionFileError(f"the index lists no runs or a run twice: {run_ids}")
    if taken := [i for i in run_ids if (runs / i).exists()]:
        raise SessionFileError(f"run id already in {runs}: {', '.join(taken)}")
    return run_ids


def import_session(file: Path, runs: Path) -> list[str]:
    """Add the runs of the session file ``file`` to ``runs`` after checking them all."""
    runs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=runs.parent, prefix=f".{runs.name}-import-") as tmp:
        staged = Path(tmp)
        try:
            with tarfile.open(file) as tar:
                tar.extractall(staged, filter="data")
        except (tarfile.TarError, EOFError, OSError) as error:
            raise SessionFileError(f"truncated or not a session file: {error}") from None
        index = _read_index(staged)
        _check_files(staged, index)
        run_ids = _check_ids(runs, index)
        for run_id in run_ids:
            check_run(staged / run_id)
        for script in sorted((staged / SHARED_SCRIPTS).glob("*")):
            if not (runs / SHARED_SCRIPTS / script.name).exists():  # named by content
                (runs / SHARED_SCRIPTS).mkdir(exist_ok=True)
                shutil.move(script, runs / SHARED_SCRIPTS / script.name)
        for run_id in run_ids:
            shutil.move(staged / run_id, runs / run_id)
    return run_ids
