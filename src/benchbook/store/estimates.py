"""Per-session estimates, kept in the store: what an analysis computes from one session
alone (a comparison's ratio, its interval and variance, the session's conditions) is
computed once per session and read back afterwards, so pooling every headline's sessions
reads one small file per experiment and estimate instead of re-deriving hundreds of
sessions in every notebook.

The store does not know how an estimate is computed: the analysis passes its function, a
key naming what it computes and a version (a digest of the code that computes it). An
estimate is computed again when its version changes or its run's files change (the
store's index stamps them), and only for that run.
"""

import copy
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from benchbook.store.build import locked, manifests_path, replace_file
from benchbook.store.sessions import COPY_OF, StoredSession, computed_estimates

Compute = Callable[[StoredSession], Any]  # a session's estimate: plain JSON values, or None


def _path(store: Path, experiment: str, key: str) -> Path:
    """One file per experiment and estimate: each is written once per new session."""
    return (
        store / "estimates" / experiment / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"
    )


def session_stamps(store: Path, experiment: str, copies: bool) -> dict[str, list[int]]:
    """The sessions of ``experiment`` in the store, oldest first, with their files' stamps
    (what the store's index last read): from the manifests' flags, no manifest parsed."""
    path = manifests_path(store, experiment)
    if not path.exists():
        return {}
    columns = ["run_id", "completed", "has_rows", COPY_OF]
    records = pq.read_table(path, columns=columns).to_pylist()
    index = _parsed(store / "index.json")["runs"]
    ids = sorted(
        r["run_id"] for r in records
        if r["completed"] and r["has_rows"] and (copies or r[COPY_OF] is None)
    )  # fmt: skip
    return {run_id: index[run_id]["stamp"] for run_id in ids}


def cached(
    store: Path,
    experiment: str,
    stamps: dict[str, list[int]],
    key: str,
    version: str,
    compute: Compute,
    sessions: Callable[[], list[StoredSession]],
) -> list[tuple[str, Any]]:
    """Each session's estimate named ``key`` (oldest first), computing only those missing
    from the store's file or made by another ``version`` or from other files (``stamps``),
    from ``sessions`` read only then."""
    path = _path(store, experiment, key)
    with locked(store, exclusive=False):
        kept = _read(path, version, key, shared=True)
    missing = {i for i, stamp in stamps.items() if kept.get(i, {}).get("stamp") != stamp}
    if missing:
        computed = computed_estimates([s for s in sessions() if s.run_id in missing], compute)
        with locked(store, exclusive=True):
            kept = _read(path, version, key, shared=False)  # another process may have written
            kept.update({i: {"stamp": stamps[i], "value": value} for i, value in computed})
            kept = {i: e for i, e in kept.items() if i in stamps}  # runs gone from the store
            content = {"version": version, "key": key, "runs": kept}
            replace_file(path, lambda p: p.write_text(json.dumps(content)))
    # Copies: the values read are shared by every caller of this process.
    return [(i, copy.copy(kept[i]["value"])) for i in stamps if i in kept]


def _read(path: Path, version: str, key: str, shared: bool) -> dict[str, Any]:
    """The runs' entries of one estimate's file (none under another version); ``shared``:
    the parse every reader of this process shares, never to be changed in place."""
    if not path.exists():
        return {}
    found = _parsed(path) if shared else json.loads(path.read_text())
    return found["runs"] if (found.get("version"), found.get("key")) == (version, key) else {}


def _parsed(path: Path) -> Any:
    """A JSON file's content, parsed once for as long as its file stays the same: every
    headline of a sweep reads the same few files."""
    stat = path.stat()
    return _parse(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _parse(path: Path, mtime_ns: int, size: int) -> Any:
    return json.loads(path.read_text())
