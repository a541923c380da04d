"""Where and with what a run was measured: stored in every run's manifest."""

import os
import platform
import subprocess
from collections.abc import Callable, Mapping
from importlib.metadata import PackageNotFoundError, version

from benchbook.measure.layout import REPO_ROOT

# What identifies a machine for ceilings and stored runs (the rest, e.g. load, varies).
MACHINE_KEYS = ("hostname", "cpu_model", "logical_cpus", "cpus_available")
PYTHON_PACKAGES = ("fastapi", "uvicorn", "uvloop", "httptools", "pandas", "scipy", "papermill")


def _first_line(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO_ROOT, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unavailable ({err})"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if done.returncode == 0 and lines else ""


def _safe(get: Callable[[], str]) -> str:
    try:
        return get()
    except Exception as err:  # provenance must never stop a run
        return f"unavailable ({err})"


def _cpu_model() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def _memory_gib() -> float:
    with open("/proc/meminfo") as f:
        kib = int(f.readline().split()[1])
    return round(kib / 2**20, 1)


def _os_name() -> str:
    with open("/etc/os-release") as f:
        fields = dict(line.rstrip().split("=", 1) for line in f if "=" in line)
    return fields.get("PRETTY_NAME", "").strip('"')


def _package(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def git_state() -> dict[str, object]:
    """The commit, and whether code differs from it. Outputs (report/, data/) change with
    every run, so only edits elsewhere count as dirty."""
    edited = _first_line(
        ["git", "status", "--porcelain", "--", ".", ":(exclude)report", ":(exclude)data"]
    )
    return {"commit": _first_line(["git", "rev-parse", "HEAD"]), "dirty": bool(edited)}


def machine() -> dict[str, object]:
    return {
        "hostname": platform.node(),
        "cpu_model": _safe(_cpu_model),
        "logical_cpus": os.cpu_count(),
        "cpus_available": len(os.sched_getaffinity(0)),
        "memory_gib": _safe(_memory_gib),
        "kernel": platform.release(),
        "os": _safe(_os_name),
        "load_average_1m_at_start": round(os.getloadavg()[0], 2),
    }


def collect(tool_versions: Mapping[str, str]) -> dict:
    """The machine, the versions of the languages, packages and load tools a run used,
    and the commit."""
    return {
        "machine": machine(),
        "versions": {
            "python": platform.python_version(),
            "go": _first_line(["go", "version"]),
            "tools": dict(tool_versions),
            **{name: _package(name) for name in PYTHON_PACKAGES},
        },
        "git": git_state(),
    }
