"""A run's outputs, read wherever they are kept. While a run is measured its raw tool
outputs, logs and profiles are loose files in its folder; once it is finished,
benchbook.store.compact packs them into one ``outputs.tar.xz`` beside an ``outputs.json``
that gives each file's size and sha256, and keeps a script that several runs carry byte
for byte once, as ``data/runs/_scripts/<sha256><suffix>``. manifest.json, results.csv and
profiled.csv stay loose: the store and every report read them.

Readers name a file by the path it was written to (a row's ``raw_path``, a profile's
path) and get its bytes from the loose file when there is one, else from the archive. An
archive is decompressed once while it is unchanged, not once per file.
"""

import fnmatch
import hashlib
import json
import lzma
import tarfile
from functools import lru_cache
from pathlib import Path
from typing import Any

ARCHIVE = "outputs.tar.xz"
INDEX = "outputs.json"
INDEX_FORMAT = "benchbook-outputs"
INDEX_VERSION = 1
# Beside the run folders: scripts kept once by content.
SHARED_SCRIPTS = "_scripts"
# What stays loose in a packed run: what the store and the analysis read on every report.
KEPT_LOOSE = frozenset({"manifest.json", "results.csv", "profiled.csv", ARCHIVE, INDEX})


class OutputsError(ValueError):
    """A run's packed outputs cannot be read as their index describes."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_folder(path: Path) -> Path | None:
    """The run folder holding ``path`` (the nearest parent with a manifest.json)."""
    for parent in path.parents:
        if (parent / "manifest.json").is_file():
            return parent
    return None


def is_packed(run_dir: Path) -> bool:
    return (run_dir / INDEX).is_file()


def index(run_dir: Path) -> dict[str, dict[str, Any]]:
    """The packed files of a run: name (relative to the run) → size, sha256 and, for a
    shared script, ``shared`` (its path relative to the runs folder). Empty when loose."""
    path = run_dir / INDEX
    if not path.is_file():
        return {}
    stat = path.stat()
    return _read_index(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _read_index(path: Path, _mtime_ns: int, _size: int) -> dict[str, dict[str, Any]]:
    stored = json.loads(path.read_text())
    if stored.get("format") != INDEX_FORMAT or stored.get("version") != INDEX_VERSION:
        raise OutputsError(
            f"{path}: format {stored.get('format')!r} version {stored.get('version')!r}; "
            f"this benchbook reads {INDEX_FORMAT!r} version {INDEX_VERSION}"
        )
    return stored["files"]


def archive_members(archive: Path) -> dict[str, bytes]:
    """Every file of a packed archive, by name."""
    stat = archive.stat()
    return _members(archive, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _members(archive: Path, _mtime_ns: int, _size: int) -> dict[str, bytes]:
    return read_archive(archive)


def read_archive(archive: Path) -> dict[str, bytes]:
    """Every file of a tar.xz, by name, read afresh (archive_members caches)."""
    members = {}
    try:
        with tarfile.open(archive, "r:xz") as tar:
            for member in tar:
                if member.isfile():
                    members[member.name] = tar.extractfile(member).read()  # type: ignore[union-attr]
    except (tarfile.TarError, lzma.LZMAError, EOFError, OSError) as error:
        raise OutputsError(f"{archive}: its packed outputs cannot be read ({error})") from None
    return members


def read_bytes(path: Path) -> bytes:
    """A run's file as written: loose if it is still there, else its packed copy."""
    if path.is_file():
        return path.read_bytes()
    run_dir = run_folder(path)
    entry = index(run_dir).get(path.relative_to(run_dir).as_posix()) if run_dir else None
    if run_dir is None or entry is None:
        raise FileNotFoundError(f"{path}: neither a file nor among its run's packed outputs")
    if shared := entry.get("shared"):
        folder, _, name = shared.partition("/")
        if folder != SHARED_SCRIPTS or not name or "/" in name or name.startswith("."):
            raise OutputsError(f"{path}: its shared copy {shared!r} is not in {SHARED_SCRIPTS}/")
        return (run_dir.parent / shared).read_bytes()
    try:
        return archive_members(run_dir / ARCHIVE)[path.relative_to(run_dir).as_posix()]
    except KeyError:
        raise OutputsError(f"{path}: indexed in {INDEX} but not in {ARCHIVE}") from None


def read_text(path: Path) -> str:
    return read_bytes(path).decode(errors="replace")


def exists(path: Path) -> bool:
    if path.is_file():
        return True
    run_dir = run_folder(path)
    return run_dir is not None and path.relative_to(run_dir).as_posix() in index(run_dir)


def names(run_dir: Path) -> list[str]:
    """Every output of a run (loose or packed), relative to it, sorted; without the files
    KEPT_LOOSE."""
    loose = {
        p.relative_to(run_dir).as_posix()
        for p in run_dir.rglob("*")
        if p.is_file() and not p.name.endswith(".partial")
    }
    return sorted((loose | set(index(run_dir))) - KEPT_LOOSE)


def glob(run_dir: Path, pattern: str) -> list[Path]:
    """The run's outputs whose name (relative to the run) matches ``pattern``, loose or
    packed, sorted: ``glob(run, "raw/rep*_go.txt")``."""
    return [run_dir / name for name in names(run_dir) if fnmatch.fnmatchcase(name, pattern)]


def link(run_dir: Path) -> str:
    """Where a reader finds the run's outputs, relative to the run: the archive when
    packed, else the raw/ folder."""
    return ARCHIVE if is_packed(run_dir) else "raw/"
