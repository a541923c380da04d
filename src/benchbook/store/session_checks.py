"""The checks a run must pass before an import adds it to data/runs/: its manifest names
it, its packed outputs read back as their index says, its rows reference raw outputs it
carries (loose or packed), one raw output per planned invocation, and rows whose tool has
a cheap parser equal what that parser reads from their raw output."""

import csv
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchbook.runs import outputs, wrk_output
from benchbook.runs.manifest import COMPLETED, migrate, plan_of

# Raw outputs the import can re-parse cheaply, by the row's tool: the parser's columns must
# equal the row's.
REPARSERS = {wrk_output.TOOL: wrk_output.parse_wrk_output}


class SessionFileError(ValueError):
    """A session file refused, with the problem named."""


def _manifest(folder: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError) as error:
        raise SessionFileError(f"{folder.name}: no readable manifest.json ({error})") from None
    if manifest.get("run_id") != folder.name:
        raise SessionFileError(f"{folder.name}: its manifest names run {manifest.get('run_id')!r}")
    try:  # in the current shape; a schema newer than this benchbook's is refused
        return migrate(manifest, folder / "results.csv")
    except ValueError as error:
        raise SessionFileError(str(error)) from None


def raw_file(folder: Path, raw_path: str) -> Path:
    """A row's raw_path (stored relative to the repository) inside the staged run."""
    parts = Path(raw_path).parts
    if folder.name not in parts:
        raise SessionFileError(f"{folder.name}: a row's raw output {raw_path} is another run's")
    return folder.joinpath(*parts[parts.index(folder.name) + 1 :])


def _planned(manifest: dict[str, Any]) -> int | None:
    if orders := manifest.get("round_orders"):
        return sum(len(order) for order in orders)
    return plan_of(manifest).runs_planned


def _same(row: dict[str, str], parsed: dict[str, Any]) -> bool:
    for column, value in parsed.items():
        text = row.get(column, "")
        if value is None or text == "":
            if (value is None) != (text == ""):
                return False
        elif not math.isclose(float(text), float(value), rel_tol=1e-12):
            return False
    return True


def _parsed(folder: Path, raw: Path, parse: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    try:
        return parse(outputs.read_text(raw))
    except ValueError as error:  # the reader's own: an output it cannot read
        raise SessionFileError(
            f"{folder.name}: raw output {raw} cannot be read ({error})"
        ) from None


def _check_packed(folder: Path) -> None:
    """Every file the run's outputs.json lists reads back with its size and sha256."""
    try:
        for name, entry in outputs.index(folder).items():
            data = outputs.read_bytes(folder / name)
            if len(data) != entry["size"] or outputs.sha256(data) != entry["sha256"]:
                raise SessionFileError(
                    f"{folder.name}: packed output {name} differs from what was packed"
                )
    except (outputs.OutputsError, FileNotFoundError, KeyError) as error:
        raise SessionFileError(
            f"{folder.name}: its packed outputs cannot be read ({error})"
        ) from None


def check_run(folder: Path) -> None:
    """Refuse (SessionFileError) a staged run whose packed outputs or rows do not match
    its raw outputs."""
    manifest = _manifest(folder)
    _check_packed(folder)
    if not (folder / "results.csv").exists():
        if manifest["completion"] == COMPLETED:
            raise SessionFileError(f"{folder.name}: finished, yet no results.csv")
        return
    with open(folder / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        raw = raw_file(folder, row.get("raw_path", ""))
        if not outputs.exists(raw):
            raise SessionFileError(f"{folder.name}: rows reference a missing raw output {raw}")
        parse = REPARSERS.get(row.get("tool", ""))
        if parse and not _same(row, _parsed(folder, raw, parse)):
            raise SessionFileError(f"{folder.name}: a row does not match its raw output {raw}")
    planned = _planned(manifest)
    invocations = len({(row.get("repetition"), row.get("raw_path")) for row in rows})
    if manifest["completion"] == COMPLETED and planned is not None and invocations != planned:
        raise SessionFileError(
            f"{folder.name}: {invocations} raw outputs in its rows, "
            f"{planned} planned in its manifest"
        )
