"""`python -m benchbook.store build|compact|export|import`: the store, packed runs and
session files from the command line (make store, make compact, make export-session,
make import-session)."""

import argparse
import sys
import time
from pathlib import Path

from benchbook.runs.layout import runs_dir
from benchbook.runs.runlock import MachineBusy
from benchbook.store.build import rebuild, update
from benchbook.store.compact import PackingError, compact
from benchbook.store.session_checks import SessionFileError
from benchbook.store.session_file import export_session, import_session, newest_session
from benchbook.store.sessions import store_dir


def _build(args: argparse.Namespace) -> str:
    runs, started = runs_dir(), time.perf_counter()
    result = (rebuild if args.full else update)(runs, store_dir(runs))
    took = time.perf_counter() - started
    return (
        f"store {store_dir(runs)}: {result.read} runs read, {result.removed} dropped, "
        f"{result.total} in all ({took:.2f} s)"
    )


def _compact(args: argparse.Namespace) -> str:
    started = time.perf_counter()
    packed = compact(runs_dir(), since=args.since, limit_mb=args.limit_mb)
    took = time.perf_counter() - started
    if not packed:
        return "packing finished runs: none has loose outputs"
    loose = sum(p.loose_bytes for p in packed) / 1e6
    archives = sum(p.archive_bytes for p in packed) / 1e6
    return (
        f"packed {len(packed)} finished runs: {sum(p.files for p in packed):,} files, "
        f"{loose:.1f} MB loose → {archives:.1f} MB of archives ({took:.1f} s)"
    )


def _export(args: argparse.Namespace) -> str:
    runs = runs_dir()
    sessions = args.session or newest_session(runs)
    out = args.out or Path(f"{sessions[0]}.session.tar")
    compact(runs, only=sessions)  # a session travels packed
    export_session(runs, sessions, out)
    return f"wrote {out}: {', '.join(sessions)}"


def _import(args: argparse.Namespace) -> str:
    added = import_session(args.file, runs_dir())
    return f"added to {runs_dir()}: {', '.join(added)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchbook.store", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="bring the store up to date with data/runs/")
    build.add_argument("--full", action="store_true", help="rebuild it from nothing")
    build.set_defaults(run=_build)
    packing = commands.add_parser(
        "compact", help="pack finished runs' loose outputs, one outputs.tar.xz each"
    )
    packing.add_argument(
        "--since", default="", help="only runs whose id sorts at or after this UTC time "
        "(20261126T0512): the runs one command measured",
    )  # fmt: skip
    packing.add_argument(
        "--limit-mb", type=float, help="pack runs, oldest first, while their loose outputs "
        "add up to at most this many MB",
    )  # fmt: skip
    packing.set_defaults(run=_compact)
    export = commands.add_parser("export", help="write sessions to one checked file")
    export.add_argument(
        "--session",
        action="append",
        help="a run id, repeatable (default: every experiment's run of the newest session: "
        "the newest run's machine and commit)",
    )
    export.add_argument("--out", type=Path, help="the file to write")
    export.set_defaults(run=_export)
    imported = commands.add_parser("import", help="add a session file's runs to data/runs/")
    imported.add_argument("file", type=Path)
    imported.set_defaults(run=_import)
    args = parser.parse_args(argv)
    try:
        print(args.run(args))
    except SessionFileError as error:
        print(f"refused: {error}", file=sys.stderr)
        return 1
    except (MachineBusy, PackingError) as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
