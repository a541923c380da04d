"""Re-render without re-measuring: a stored run stands in for a new one when nothing that
shapes a measurement changed — the same experiment and parameters, the same measuring
code (every file of ``benchbook.measure`` and of ``servers/``), the same machine.

The boundary is the package's own: import-linter (``make lint``) keeps ``measure`` from
importing ``analyse`` or ``render``, so nothing outside these folders can shape a row,
and a change of analysis, wording or template never re-measures.

`make report` turns this on (BENCHBOOK_REUSE_RUNS=1), so a change of wording, analysis
or template re-renders the report from data/runs/ in a minute or two. A notebook run
by hand, `make run` and the tests always measure afresh.
"""

import hashlib
import json
import os
from pathlib import Path

from benchbook.measure.layout import REPO_ROOT
from benchbook.measure.provenance import MACHINE_KEYS, machine
from benchbook.measure.run_store import RunStore

# What shapes a measurement: this package and the servers with their registry.
MEASURING_DIRS = (Path(__file__).resolve().parent, REPO_ROOT / "servers")
SKIPPED_PARTS = {"__pycache__", ".pytest_cache"}


def reuse_enabled() -> bool:
    return os.environ.get("BENCHBOOK_REUSE_RUNS", "") == "1"


def measuring_files() -> list[Path]:
    """Every file under MEASURING_DIRS, in a stable order."""
    files = []
    for folder in MEASURING_DIRS:
        found = sorted(p for p in folder.rglob("*") if p.is_file())
        files += [p for p in found if not SKIPPED_PARTS & set(p.parts) and p.suffix != ".pyc"]
    return files


def code_digest() -> str:
    digest = hashlib.sha256()
    for path in measuring_files():
        digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def fingerprint(experiment: str, params: dict) -> str:
    """What must match for a stored run to stand in for a new one."""
    here = machine()
    key = {
        "experiment": experiment,
        "params": params,
        "measuring_code": code_digest(),
        "machine": {k: here[k] for k in MACHINE_KEYS},
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def stored_run_with(fingerprint_: str, directory: Path | None = None) -> Path | None:
    """The folder of the newest complete run with this fingerprint."""
    run = RunStore(directory).with_fingerprint(fingerprint_)
    return run.path if run else None
