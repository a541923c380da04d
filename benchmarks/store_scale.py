"""make bench-store: the analysis of every headline's sessions, through the run folders
and through the results store, on the stored sessions and on a runs folder grown with
copies of them (manifests marked ``copy_of``) to 1,000 sessions. Through the store three
times: first (it computes each session's estimates and keeps them, store.estimates),
again (it reads them back), and after one more session arrives (it computes that one's
only). All in a temporary folder: data/runs/ is only read."""

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchbook.analyse.sessions.every_headline import every_headline
from benchbook.runs.layout import runs_dir
from benchbook.runs.manifest import read_manifest
from benchbook.store.build import update
from benchbook.store.query import StoreSessions
from benchbook.store.sessions import COPY_OF, FolderSessions, is_session

TARGET = 1000


def copy_sessions(source: Path, runs: Path, first: int | None = None) -> list[Path]:
    """Every session's manifest and rows (what the analysis reads) into ``runs`` (only the
    ``first`` ones, oldest first, when given)."""
    copied = []
    for manifest_path in sorted(source.glob("*/manifest.json")):
        if first is not None and len(copied) == first:
            break
        folder = manifest_path.parent
        has_rows = (folder / "results.csv").exists()
        if is_session(read_manifest(folder), has_rows):
            (runs / folder.name).mkdir(parents=True)
            for name in ("manifest.json", "results.csv"):
                shutil.copy2(folder / name, runs / folder.name / name)
            copied.append(runs / folder.name)
    return copied


def grow(runs: Path, originals: list[Path], count: int, name: str = "") -> None:
    """Add copies of ``originals`` under new ids (``name`` in them) until ``runs`` holds
    ``count`` sessions."""
    for number in range(count - len(list(runs.iterdir()))):
        original = originals[number % len(originals)]
        run_id = f"{original.name[:-4]}{name}{number:04x}"
        manifest = json.loads((original / "manifest.json").read_text())
        (runs / run_id).mkdir()
        shutil.copy2(original / "results.csv", runs / run_id / "results.csv")
        manifest |= {"run_id": run_id, COPY_OF: original.name}
        (runs / run_id / "manifest.json").write_text(json.dumps(manifest))


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def measure(runs: Path, store: Path, originals: list[Path]) -> dict[str, float]:
    """Seconds to update the store, then to analyse every headline via folders, via the
    store (first, again) and via the store after one more session (a copy of the newest)."""
    seconds = {"store update": timed(lambda: update(runs, store))}
    seconds["via folders"] = timed(lambda: every_headline(FolderSessions(runs, copies=True)))
    for when in ("via store, first", "via store, again"):
        seconds[when] = timed(lambda: every_headline(StoreSessions(store, copies=True)))
    total = len(list(runs.iterdir()))
    grow(runs, [originals[-1]], total + 1, name=f"new{total}")
    update(runs, store)
    seconds["one session more"] = timed(lambda: every_headline(StoreSessions(store, copies=True)))
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=int, default=TARGET, help="sessions to grow to")
    parser.add_argument("--first", type=int, help="start from only this many stored sessions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="benchbook-bench-store-") as tmp:
        runs, store = Path(tmp) / "runs", Path(tmp) / "store"
        runs.mkdir()
        originals = copy_sessions(runs_dir(), runs, args.first)
        for count in (len(originals), args.target):
            grow(runs, originals, count)
            seconds = measure(runs, store, originals)
            if count == len(originals):
                print("sessions  " + "  ".join(f"{name} s" for name in seconds))
            widths = [len(f"{name} s") for name in seconds]
            cells = [f"{value:{w}.2f}" for value, w in zip(seconds.values(), widths, strict=True)]
            print(f"{count:8d}  " + "  ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
