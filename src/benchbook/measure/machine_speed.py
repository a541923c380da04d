"""A machine-speed reference, taken before and after each experiment.

The shared 2-core machine runs 10–35 % slower in some sessions than in others. Two fixed,
deterministic, single-threaded CPU workloads, timed on the CPUs the experiment uses, let
a reader tell a slower machine from a slower server:

- Go: ``servers/go/cmd/cpuref`` (SHA-256 over a buffer, then formatting, sorting and
  joining short strings), built into build/bin when missing or older than its source;
- Python: a loop of dict and str operations and a small JSON round trip, run by this
  interpreter (``sys.executable -I``, a fresh process, so no import state matters); the
  Python servers' speed is the interpreter's.

Each workload times its own work (not its process start) and prints one JSON line,
``{"workload", "iterations", "seconds", "ns_per_op", "checksum"}``; anything else is an
error naming the workload. The checksum depends on all the work, so every run of the
same workload must print the same one.
"""

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchbook.measure.processes import DeadlineExceeded, ManagedProcess
from benchbook.runs.layout import BUILD_BIN, GO_MODULE

RUNS = 3  # of each workload, interleaved: go, python, go, python, …
DEADLINE_S = 60.0  # per run; a run takes about 0.6 s here
GO_BINARY = BUILD_BIN / "cpuref"
GO_PACKAGE = "./cmd/cpuref"
GO_SOURCE_DIR = GO_MODULE / "cmd" / "cpuref"
GO_ITERATIONS = 20_000  # about 0.6 s here (the program's own default)
PYTHON_ITERATIONS = 8_000  # about 0.7 s here
# Run as `python -I -c PYTHON_CODE <iterations>`; only the standard library. Rename the
# workload whenever the code changes: times of different workloads do not compare.
PYTHON_CODE = """
import json, sys, time, zlib

def op(i):
    counts = {}
    for j in range(100):
        key = f"key-{(i * 31 + j) % 97}"
        counts[key] = counts.get(key, 0) + j
    words = ",".join(sorted(counts)).upper().split(",")
    doc = json.loads(json.dumps({"i": i, "words": words, "counts": counts}))
    return len(doc["words"]) + sum(doc["counts"].values())

def work(n):
    total = 0
    for i in range(n):
        total = zlib.crc32(str(op(i)).encode(), total)
    return total

n = int(sys.argv[1])
start = time.perf_counter()
checksum = work(n)
seconds = time.perf_counter() - start
print(json.dumps({"workload": "python-dict-str-json-roundtrip/v1", "iterations": n,
                  "seconds": seconds, "ns_per_op": seconds * 1e9 / n,
                  "checksum": f"{checksum:08x}"}))
"""

FIELDS = ("workload", "iterations", "seconds", "ns_per_op", "checksum")


class MachineSpeedError(RuntimeError):
    """A machine-speed workload failed, or printed something other than its JSON line."""


def measure_speed(cpus: Sequence[int] | None = None, runs: int = RUNS) -> dict[str, Any]:
    """Median seconds of each reference workload on ``cpus``, so a session's machine speed
    is on record next to what it measured."""
    commands = {
        "go": [str(ensure_cpuref()), "-n", str(GO_ITERATIONS)],
        "python": python_command(PYTHON_ITERATIONS),
    }
    done: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
    for _ in range(runs):  # interleaved, so a drift during the reference hits both alike
        for name, argv in commands.items():
            done[name].append(run_workload(name, argv, cpus))
    workloads = {name: _same_work(name, results) for name, results in done.items()}
    return {
        "python_s": statistics.median(r["seconds"] for r in done["python"]),
        "go_s": statistics.median(r["seconds"] for r in done["go"]),
        "python_runs": [r["seconds"] for r in done["python"]],
        "go_runs": [r["seconds"] for r in done["go"]],
        "cpus": sorted(cpus) if cpus else sorted(os.sched_getaffinity(0)),
        "workloads": workloads,
    }


def speed_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, float]:
    """How much longer (+) or shorter (−) each workload took after than before, as a
    fraction of before (+0.2: the machine was 20 % slower), to tell drift from a result."""
    if before.get("workloads") != after.get("workloads"):
        raise ValueError(
            "the references ran different workloads, so their times do not compare: "
            f"{before.get('workloads')} before, {after.get('workloads')} after"
        )
    return {
        f"{name}_time_change": after[f"{name}_s"] / before[f"{name}_s"] - 1
        for name in ("python", "go")
    }


def python_command(iterations: int) -> list[str]:
    """The Python workload's command line: isolated (-I), so no environment or site
    packages change what it runs."""
    return [sys.executable, "-I", "-c", PYTHON_CODE, str(iterations)]


def ensure_cpuref(binary: Path = GO_BINARY) -> Path:
    """The Go workload's binary, built first when missing or older than its source, so a
    reference never runs yesterday's workload."""
    sources = [GO_MODULE / "go.mod", *GO_SOURCE_DIR.glob("*.go")]
    newest = max(p.stat().st_mtime for p in sources)
    if binary.exists() and binary.stat().st_mtime >= newest:
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["go", "build", "-o", str(binary), GO_PACKAGE],
        cwd=GO_MODULE, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise MachineSpeedError(f"go build {GO_PACKAGE} failed (in {GO_MODULE}):\n{done.stderr}")
    return binary


def run_workload(name: str, argv: Sequence[str], cpus: Sequence[int] | None) -> dict[str, Any]:
    """One run of a workload pinned to ``cpus``: its checked JSON line, or an error that
    names the workload and quotes what went wrong."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        try:
            with ManagedProcess(argv, stdout=out, stderr=err, cpus=cpus) as proc:
                code, _ = proc.wait_with_usage(DEADLINE_S)
        except DeadlineExceeded as exc:
            raise MachineSpeedError(f"machine-speed workload {name!r}: {exc}") from exc
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if code != 0:
        raise MachineSpeedError(
            f"machine-speed workload {name!r} exited with code {code}: {stderr[-2000:]}"
        )
    return parse_output(name, stdout)


def parse_output(name: str, text: str) -> dict[str, Any]:
    """The one JSON line a workload prints, checked field by field, so a broken workload
    is an error here rather than a wrong speed on record."""
    lines = text.splitlines()
    try:
        fields = json.loads(lines[0]) if len(lines) == 1 else None
    except json.JSONDecodeError:
        fields = None
    problem = _problem(fields) if fields is not None else "not a single JSON line"
    if problem:
        raise MachineSpeedError(
            f"machine-speed workload {name!r} did not print the expected JSON line with "
            f"{', '.join(FIELDS)} ({problem}); it printed: {text[:500]!r}"
        )
    return fields


def _problem(fields: Any) -> str | None:
    """What is wrong with a workload's decoded line, or None."""
    if not isinstance(fields, dict):
        return f"a JSON {type(fields).__name__}, not an object"
    if missing := [key for key in FIELDS if key not in fields]:
        return f"no {', '.join(missing)}"
    for key, kind in (("workload", str), ("checksum", str), ("iterations", int)):
        if not isinstance(fields[key], kind) or isinstance(fields[key], bool) or not fields[key]:
            return f"{key} is {fields[key]!r}"
    for key in ("iterations", "seconds", "ns_per_op"):
        value = fields[key]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or value <= 0:
            return f"{key} is {value!r}, not a positive number"
    return None


def _same_work(name: str, results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The workload all runs did (name, iterations, checksum): every run must have done
    the same work, or their times are not one sample."""
    works = {(r["workload"], r["iterations"], r["checksum"]) for r in results}
    if len(works) != 1:
        raise MachineSpeedError(f"machine-speed workload {name!r} did different work: {works}")
    workload, iterations, checksum = works.pop()
    return {"workload": workload, "iterations": iterations, "checksum": checksum}
