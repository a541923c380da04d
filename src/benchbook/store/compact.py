"""Finished runs packed: each run's loose outputs (raw tool outputs, server and host logs,
profiles) into one ``outputs.tar.xz`` with an ``outputs.json`` index of sizes and
sha256s, the format benchbook.runs.outputs reads; a script that more than one run carries
byte for byte goes to ``data/runs/_scripts/<sha256><suffix>`` instead, kept once.

Nothing is lost on the way: the archive is written as ``.partial``, read back and compared
with the files byte for byte, and only then renamed; the index is written next; the loose
files go last. A packing killed at any point leaves every file readable (loose files win
over packed ones) and the next packing finishes it. Only finished runs are packed
(completed, or from before completion was recorded): a killed run, or one being measured,
stays as it is; the machine lock keeps packing from overlapping a measurement or a
profiled phase.
"""

import io
import json
import os
import tarfile
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from benchbook.runs.manifest import COMPLETED, UNRECORDED
from benchbook.runs.outputs import (
    ARCHIVE,
    INDEX,
    INDEX_FORMAT,
    INDEX_VERSION,
    KEPT_LOOSE,
    SHARED_SCRIPTS,
    archive_members,
    index,
    read_archive,
    sha256,
)
from benchbook.runs.runlock import machine_lock
from benchbook.runs.store import RunStore

# Scripts handed to load tools (wrk's Lua, bombardier's body templates): shared by content.
SCRIPT_SUFFIXES = (".lua", ".tmpl")
PARTIAL = ".partial"


class PackingError(RuntimeError):
    """A run cannot be packed without losing or changing a file."""


@dataclass
class Packed:
    run_id: str
    files: int
    loose_bytes: int
    archive_bytes: int


def loose_outputs(run_dir: Path) -> list[Path]:
    """The files of a run that packing takes: all but those KEPT_LOOSE at its top."""
    return sorted(
        p
        for p in run_dir.rglob("*")
        if p.is_file()
        and not p.name.endswith(PARTIAL)
        and not (p.parent == run_dir and p.name in KEPT_LOOSE)
    )


def finished_loose_runs(
    runs: Path, since: str = "", only: Collection[str] | None = None
) -> list[Path]:
    """Runs with loose outputs that are finished, oldest first; ``since``: only runs whose
    id (it starts with its UTC start time, 20261126T0512…) sorts at or after it; ``only``:
    only these run ids."""
    found = []
    for run in RunStore(runs).runs():
        if run.run_id < since or (only is not None and run.run_id not in only):
            continue
        if not loose_outputs(run.path):
            continue
        if run.completion in (COMPLETED, UNRECORDED):
            found.append(run.path)
    return sorted(found)


def shared_script_digests(runs: Path, run_dirs: list[Path]) -> set[str]:
    """The scripts carried byte for byte by more than one run: of these runs (loose) or
    of the runs of ``runs`` already packed (by their index)."""
    carried: Counter[str] = Counter()
    for run_dir in run_dirs:
        carried.update(
            {sha256(p.read_bytes()) for p in loose_outputs(run_dir) if p.suffix in SCRIPT_SUFFIXES}
        )
    for packed in runs.glob(f"*/{INDEX}"):
        carried.update(
            {e["sha256"] for n, e in index(packed.parent).items() if n.endswith(SCRIPT_SUFFIXES)}
        )
    return {digest for digest, count in carried.items() if count > 1}


def _tar_bytes(members: dict[str, bytes]) -> bytes:
    """A deterministic tar.xz: sorted names, no times, owners or modes of the machine."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(members[name]), 0, 0o644
            tar.addfile(info, io.BytesIO(members[name]))
    return buffer.getvalue()


def _write_new(path: Path, data: bytes) -> None:
    """``path`` written whole or not at all (``.partial`` then rename)."""
    partial = path.with_name(path.name + PARTIAL)
    partial.write_bytes(data)
    os.replace(partial, path)


def _write_archive(run_dir: Path, members: dict[str, bytes]) -> int:
    partial = run_dir / (ARCHIVE + PARTIAL)
    partial.write_bytes(_tar_bytes(members))
    if read_archive(partial) != members:
        partial.unlink()
        raise PackingError(f"{run_dir.name}: the archive read back differs from its files")
    os.replace(partial, run_dir / ARCHIVE)
    return (run_dir / ARCHIVE).stat().st_size


def pack_run(run_dir: Path, shared_digests: Collection[str] = frozenset()) -> Packed | None:
    """Pack a finished run's loose outputs (with whatever it already has packed); None
    when it has nothing loose. A script goes to the shared folder when its digest is in
    ``shared_digests`` or already kept there."""
    loose = loose_outputs(run_dir)
    if not loose:
        return None
    scripts_dir = run_dir.parent / SHARED_SCRIPTS
    entries = dict(index(run_dir))
    members = dict(archive_members(run_dir / ARCHIVE)) if entries else {}
    loose_bytes = 0
    for path in loose:
        name, data = path.relative_to(run_dir).as_posix(), path.read_bytes()
        loose_bytes += len(data)
        digest = sha256(data)
        if name in entries and entries[name]["sha256"] != digest:
            raise PackingError(
                f"{run_dir.name}: {name} is loose and packed with different contents; "
                "runs are append-only, so neither is dropped"
            )
        shared = scripts_dir / f"{digest}{path.suffix}"
        if path.suffix in SCRIPT_SUFFIXES and (digest in shared_digests or shared.exists()):
            if not shared.exists():
                scripts_dir.mkdir(exist_ok=True)
                _write_new(shared, data)
            members.pop(name, None)
            entries[name] = {"size": len(data), "sha256": digest,
                             "shared": f"{SHARED_SCRIPTS}/{shared.name}"}  # fmt: skip
        else:
            members[name] = data
            entries[name] = {"size": len(data), "sha256": digest}
    archive_bytes = _write_archive(run_dir, members)
    stored = {"format": INDEX_FORMAT, "version": INDEX_VERSION, "archive": ARCHIVE,
              "files": dict(sorted(entries.items()))}  # fmt: skip
    _write_new(run_dir / INDEX, (json.dumps(stored, indent=1) + "\n").encode())
    for path in loose:
        path.unlink()
    for folder in sorted({p.parent for p in loose}, key=lambda p: len(p.parts), reverse=True):
        while folder != run_dir and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
    return Packed(run_dir.name, len(loose), loose_bytes, archive_bytes)


def compact(
    runs: Path,
    since: str = "",
    limit_mb: float | None = None,
    only: Collection[str] | None = None,
) -> list[Packed]:
    """Pack every finished run of ``runs`` that has loose outputs (``since``, ``only``: see
    finished_loose_runs), oldest first, holding the machine lock; ``limit_mb``: stop before
    the loose bytes packed would pass it."""
    packed: list[Packed] = []
    with machine_lock("packing finished runs"):
        run_dirs = finished_loose_runs(runs, since, only)
        shared = shared_script_digests(runs, run_dirs)
        budget = float("inf") if limit_mb is None else limit_mb * 1e6
        for run_dir in run_dirs:
            size = sum(p.stat().st_size for p in loose_outputs(run_dir))
            if size > budget:
                break
            budget -= size
            if done := pack_run(run_dir, shared):
                packed.append(done)
    return packed
