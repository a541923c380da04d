"""The state of the repository's code, as a run's manifest and the report's header give
it: which commit, and whether code was edited since."""

import subprocess

from benchbook.runs.layout import REPO_ROOT


def first_line(argv: list[str]) -> str:
    """The first line a command prints in the repository ('' when it fails, the reason
    when it cannot start): provenance must never stop a run or a report."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO_ROOT, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unavailable ({err})"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if done.returncode == 0 and lines else ""


def git_state() -> dict[str, object]:
    """The commit, and whether code differs from it. Outputs (report/, data/) change with
    every run, so only edits elsewhere count as dirty."""
    edited = first_line(
        ["git", "status", "--porcelain", "--", ".", ":(exclude)report", ":(exclude)data"]
    )
    return {"commit": first_line(["git", "rev-parse", "HEAD"]), "dirty": bool(edited)}
