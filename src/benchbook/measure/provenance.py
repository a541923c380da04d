"""Where and with what a run was measured: stored in every run's manifest."""

import hashlib
import os
import platform
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import TypeVar

from benchbook.runs.provenance import first_line, git_state

# What identifies a machine for ceilings and stored runs (the rest, e.g. load, varies).
# The hostname and CPU name alone are the same on machines of different CPU generations
# (`vm`, "AMD EPYC"), and /etc/machine-id is the same on every machine of this kind (the
# image ships it): the CPU's identity tells classes apart, the kernel's boot id one boot
# of one machine from any other.
MACHINE_KEYS = ("hostname", "cpu_model", "logical_cpus", "cpus_available", "cpu", "boot_id")
# The /proc/cpuinfo fields of a CPU's identity (of its first processor), under our names.
CPU_FIELDS = {
    "vendor_id": "vendor",
    "cpu family": "family",
    "model": "model",
    "stepping": "stepping",
    "cpu MHz": "mhz",
    "cache size": "cache",
}
T = TypeVar("T")
PYTHON_PACKAGES = ("fastapi", "uvicorn", "uvloop", "httptools", "pandas", "scipy", "papermill")


def _safe(get: Callable[[], T]) -> T | str:
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


def cpu_identity(cpuinfo: str) -> dict[str, str]:
    """The first processor's vendor, family, model, stepping, nominal MHz and cache size
    ('' where /proc/cpuinfo lacks a field, as on some architectures). The MHz a VM reports
    is its nominal clock; rounded to 10 MHz, it does not drift."""
    fields: dict[str, str] = dict.fromkeys(CPU_FIELDS.values(), "")
    for line in cpuinfo.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        name = CPU_FIELDS.get(key.strip())
        if name:
            fields[name] = value.strip()
    if fields["mhz"]:
        fields["mhz"] = f"{round(float(fields['mhz']), -1):.0f}"
    return fields


def _cpu() -> dict[str, str]:
    with open("/proc/cpuinfo") as f:
        return cpu_identity(f.read())


def _hashed(path: str) -> str:
    """A hash of the id in ``path`` (not the id itself: it is meant to stay private)."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read().strip()).hexdigest()[:16]


def _machine_id() -> str:
    """Kept for the record only: the image ships one /etc/machine-id to every machine."""
    return _hashed("/etc/machine-id")


def _boot_id() -> str:
    """New at every boot, so two machines (or two boots of one) never share it."""
    return _hashed("/proc/sys/kernel/random/boot_id")


def _booted_at() -> str:
    """When the kernel booted (UTC), so a session's minutes after boot can be told: the
    first sitting after a boot has differed from later ones."""
    with open("/proc/stat") as f:
        btime = next(int(line.split()[1]) for line in f if line.startswith("btime "))
    return datetime.fromtimestamp(btime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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


def machine() -> dict[str, object]:
    return {
        "hostname": platform.node(),
        "cpu_model": _safe(_cpu_model),
        "cpu": _safe(_cpu),
        "machine_id": _safe(_machine_id),
        "boot_id": _safe(_boot_id),
        "booted_at": _safe(_booted_at),
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
            "go": first_line(["go", "version"]),
            "tools": dict(tool_versions),
            **{name: _package(name) for name in PYTHON_PACKAGES},
        },
        "git": git_state(),
    }
