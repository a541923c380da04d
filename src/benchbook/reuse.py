"""Re-render without re-measuring: a stored run stands in for a new one when nothing that
shapes a measurement changed — the same experiment and parameters, the same measuring
code (measuring-code.txt), the same machine.

`make report` turns this on (BENCHBOOK_REUSE_RUNS=1), so a change of wording, analysis
or template re-renders the report from data/runs/ in a minute or two. A notebook run
by hand, `make run` and the tests always measure afresh.
"""

import hashlib
import json
import os
from pathlib import Path

from benchbook.layout import REPO_ROOT, runs_dir
from benchbook.provenance import MACHINE_KEYS, machine

MEASURING_CODE = Path(__file__).with_name("measuring-code.txt")
SKIPPED_PARTS = {"__pycache__", ".pytest_cache"}


def reuse_enabled() -> bool:
    return os.environ.get("BENCHBOOK_REUSE_RUNS", "") == "1"


def measuring_files() -> list[Path]:
    """Every file listed in measuring-code.txt, folders expanded, in a stable order."""
    files = []
    for line in MEASURING_CODE.read_text().splitlines():
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        path = REPO_ROOT / entry
        found = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
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
    """The newest complete run with this fingerprint."""
    directory = directory or runs_dir()
    for path in sorted(directory.glob("*/manifest.json"), reverse=True):
        manifest = json.loads(path.read_text())
        if manifest.get("fingerprint") == fingerprint_ and "completed_utc" in manifest:
            return path.parent
    return None
