"""`go test -bench`: Go's own benchmark runner, here timing Go clients call by call.

Each result line is one run of one benchmark (``-count N`` prints N lines per name):
``Benchmark<Name>/<sub>/<sub>-<P>  <iterations>  <x> ns/op  [<x> <unit>]…``, where
``-P`` is GOMAXPROCS (absent when it is 1), ns/op the wall time of the run divided by
its iterations, and with ``-benchmem`` B/op and allocs/op the memory allocated per
iteration. ``b.ReportMetric`` adds units of its own, e.g. ``errors/op``. Header lines
(``goos:``, ``goarch:``, ``pkg:``, ``cpu:``) describe the results that follow them.

A benchmark that calls ``b.Fatal``/``b.Error`` prints ``--- FAIL: <name>`` and its log,
and go test ends with ``FAIL``; benchmarks in this project fail on any error, so such
output is an error here, never a partial result. A benchmark that only counts its
errors (``errors/op``) passes: its rows carry the count for the checks to flag.
"""

import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from benchbook.measure.layout import built_tool
from benchbook.measure.tools.base import Finished, LoadToolError, run_to_files

# Benchmark<name>, then the iteration count, then value-unit pairs (benchfmt).
RESULT = re.compile(r"Benchmark(?P<name>\S+)\s+(?P<iterations>\d+)\s+(?P<pairs>\S.*)")
HEADER_KEYS = ("goos", "goarch", "pkg", "cpu")
PROCS_SUFFIX = re.compile(r"(?P<base>.+)-(?P<procs>\d+)")
FAIL_MARK = "--- FAIL: "
BENCH_LOG_MARK = "--- BENCH: "


class GoBenchError(LoadToolError, ValueError):
    """go test -bench output that is not a complete, passing run."""


@dataclass(frozen=True)
class BenchResult:
    """One result line of ``go test -bench``."""

    name: str  # as printed, without "Benchmark": "Ops/http/HealthCheck-2"
    benchmark: str  # the top-level benchmark: "Ops"
    sub: tuple[str, ...]  # the sub-benchmark path: ("http", "HealthCheck")
    procs: int | None  # the -P suffix (GOMAXPROCS); None when go printed none (P = 1)
    iterations: int
    ns_per_op: float
    bytes_per_op: int | None  # None without -benchmem
    allocs_per_op: int | None
    metrics: dict[str, float] = field(default_factory=dict)  # other units: {"errors/op": 1.0}
    config: dict[str, str] = field(default_factory=dict)  # goos, goarch, pkg, cpu in force
    log: tuple[str, ...] = ()  # the benchmark's "--- BENCH:" log lines (b.Log), if any


def parse_gobench(text: str) -> list[BenchResult]:
    """Every result of a finished, passing ``go test -bench [-benchmem] [-count N]`` run,
    in the order printed. Raises GoBenchError naming the benchmark and its message if
    one failed, and if the run did not end with ``PASS``/``ok`` or gave no result."""
    lines = text.splitlines()
    _raise_on_failure(lines)
    if not any(line == "PASS" or line.startswith("ok ") for line in lines):
        raise GoBenchError(
            "go test output has no 'PASS' or 'ok' line: the run did not finish (killed, "
            "timed out), or this is not go test -bench output (benchstat's tables are not)"
        )
    results: list[BenchResult] = []
    config: dict[str, str] = {}
    log_of: BenchResult | None = None
    for number, line in enumerate(lines, start=1):
        key, colon, value = line.partition(":")
        if colon and key in HEADER_KEYS:
            if key == "goos":  # a new package's block of headers begins
                config = {}
            config[key] = value.strip()
        elif line.startswith("Benchmark") and (result := _parse_result(line, number, config)):
            results.append(result)
            log_of = None
        elif line.startswith(BENCH_LOG_MARK):
            name = line.removeprefix(BENCH_LOG_MARK + "Benchmark").strip()
            log_of = results[-1] if results and results[-1].name == name else None
        elif log_of is not None and line.startswith(("    ", "\t")):
            results[-1] = log_of = replace(log_of, log=(*log_of.log, line.strip()))
        else:
            log_of = None
    if not results:
        raise GoBenchError(
            "go test passed but printed no benchmark result: did -bench match nothing, "
            "or did every benchmark skip (a missing address variable)?"
        )
    return results


def _raise_on_failure(lines: Sequence[str]) -> None:
    """A ``--- FAIL`` or ``FAIL`` line: raise, naming each failed benchmark with its log."""
    failed: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        if line.startswith(FAIL_MARK):
            name = re.sub(r"\s+\([\d.]+s\)$", "", line.removeprefix(FAIL_MARK).strip())
            current = failed.setdefault(name, [])
        elif current is not None and line.startswith(("    ", "\t")):
            current.append(line.strip())
        else:
            current = None
    if failed:
        # Parents fail with their children and log nothing of their own: name the leaves.
        named = {n: log for n, log in failed.items() if log} or failed
        detail = "; ".join(
            f"{name}: {' | '.join(log) if log else '(no message)'}" for name, log in named.items()
        )
        raise GoBenchError(f"go test -bench failed: {detail}")
    if any(line == "FAIL" or line.startswith(("FAIL\t", "FAIL ")) for line in lines):
        tail = "\n".join(lines[-15:])
        raise GoBenchError(f"go test -bench reported FAIL (no benchmark named); its end:\n{tail}")


def _parse_result(line: str, number: int, config: dict[str, str]) -> BenchResult | None:
    """A result line as a BenchResult; None for a line that only starts like one (a
    benchmark's own name printed alone, or its stdout)."""
    match = RESULT.fullmatch(line.rstrip())
    if match is None:
        return None
    tokens = match["pairs"].split()
    if len(tokens) % 2:
        raise GoBenchError(f"line {number}: a result without value-unit pairs: {line!r}")
    values: dict[str, float] = {}
    for value, unit in zip(tokens[::2], tokens[1::2], strict=True):
        try:
            values[unit] = float(value)
        except ValueError:
            raise GoBenchError(f"line {number}: {value!r} is not a number: {line!r}") from None
    if "ns/op" not in values:
        raise GoBenchError(f"line {number}: a result without ns/op: {line!r}")
    name = match["name"]
    suffix = PROCS_SUFFIX.fullmatch(name)
    base, procs = (suffix["base"], int(suffix["procs"])) if suffix else (name, None)
    benchmark, *sub = base.split("/")
    bytes_per_op, allocs_per_op = values.pop("B/op", None), values.pop("allocs/op", None)
    return BenchResult(
        name=name,
        benchmark=benchmark,
        sub=tuple(sub),
        procs=procs,
        iterations=int(match["iterations"]),
        ns_per_op=values.pop("ns/op"),
        bytes_per_op=None if bytes_per_op is None else int(bytes_per_op),
        allocs_per_op=None if allocs_per_op is None else int(allocs_per_op),
        metrics=values,
        config=dict(config),
    )


def metric_column(unit: str) -> str:
    """A custom unit as a column name: 'errors/op' → 'errors_per_op', 'MB/s' → 'MB_per_s'."""
    return re.sub(r"\W+", "_", unit.replace("/", "_per_")).strip("_")


def tidy_rows(
    results: Sequence[BenchResult], sub_names: Sequence[str] = ("transport", "operation")
) -> list[dict[str, object]]:
    """One dict per result: ``pkg``, ``name``, ``benchmark``, the sub-benchmark path
    named by ``sub_names`` (None where a name is shorter; deeper levels ``sub3``…),
    ``procs``, ``repetition`` (1-based, counted per package and name in print order),
    ``iterations``, ``ns_per_op``, ``bytes_per_op``, ``allocs_per_op`` and a column per
    custom metric (``errors_per_op``)."""
    seen: dict[tuple[str, str], int] = {}
    rows = []
    for r in results:
        pkg = r.config.get("pkg", "")
        seen[pkg, r.name] = seen.get((pkg, r.name), 0) + 1
        names = [*sub_names, *(f"sub{i}" for i in range(len(sub_names) + 1, len(r.sub) + 1))]
        rows.append(
            {
                "pkg": pkg,
                "name": r.name,
                "benchmark": r.benchmark,
                **{n: r.sub[i] if i < len(r.sub) else None for i, n in enumerate(names)},
                "procs": r.procs,
                "repetition": seen[pkg, r.name],
                "iterations": r.iterations,
                "ns_per_op": r.ns_per_op,
                "bytes_per_op": r.bytes_per_op,
                "allocs_per_op": r.allocs_per_op,
                **{metric_column(unit): value for unit, value in r.metrics.items()},
            }
        )
    return rows


# A benchmark binary runs one sub-benchmark after another; past this long it is hung.
DEADLINE_S = 600.0


def compile_benchmarks(package: str, module_dir: Path, out: Path) -> Path:
    """``go test -c``: the benchmark binary, built once and run for every repetition
    (so each run times the benchmarks, not the compiler)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["go", "test", "-c", "-o", str(out), package],
        cwd=module_dir, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise GoBenchError(f"go test -c {package} failed (in {module_dir}):\n{done.stderr}")
    return out


def run_benchmarks(
    binary: Path,
    bench: str,
    benchtime: str,
    env: Mapping[str, str],
    raw_path: Path,
    cpus: Sequence[int] | None,
) -> Finished:
    """One run of every benchmark matching ``bench``, once each (-test.count 1: the
    harness interleaves the repetitions), its output on disk before anything parses it."""
    argv = [
        str(binary), "-test.run", "^$", "-test.bench", bench, "-test.benchmem",
        "-test.benchtime", benchtime, "-test.count", "1",
    ]  # fmt: skip
    return run_to_files(argv, raw_path, None, cpus, DEADLINE_S, env)


def benchstat(outputs: Mapping[str, Sequence[Path]], scratch: Path) -> str:
    """benchstat's own table over runs of the benchmark binary, one column per label
    (e.g. python, go): the cross-check of our statistics. benchstat wants at least 6
    runs of a benchmark for a confidence interval; it prints '~' where it finds no
    significant difference."""
    scratch.mkdir(parents=True, exist_ok=True)
    inputs = []
    for label, paths in outputs.items():
        joined = scratch / f"{label}.txt"
        joined.write_text("".join(p.read_text(errors="replace") for p in paths))
        inputs.append(f"{label}={joined}")
    done = subprocess.run([str(built_tool("benchstat")), *inputs], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    if done.returncode != 0:
        raise GoBenchError(f"benchstat failed: {done.stderr}")
    return done.stdout
