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

from benchbook.measure.instances import Instance, slug
from benchbook.measure.pinning import Pinning
from benchbook.measure.registry import Target
from benchbook.measure.run_store import Run
from benchbook.measure.tools import Capabilities, ToolEntry, VersionPin
from benchbook.measure.tools.base import Finished, LoadToolError, run_to_files
from benchbook.runs.layout import BUILD_BIN, GO_MODULE, built_tool, repo_relative

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


TOOL_NAME = "go-bench"  # the tool column of its rows, and its name in TOOLS
COLUMNS = (
    "backend", "transport", "benchmark", "operation", "procs", "iterations", "ns_per_op",
    "bytes_per_op", "allocs_per_op", "errors_per_op",
)  # fmt: skip


@dataclass(frozen=True)
class GoBenchLoad:
    """``go test -bench <bench>`` of ``package`` (servers/go), each benchmark for
    ``benchtime``, against one backend's servers (transport → server name), whose
    addresses reach the benchmarks as GOVERNANCE_<TRANSPORT>_ADDR."""

    backend: str
    servers: tuple[tuple[str, str], ...]
    bench: str
    package: str
    benchtime: str
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class GoBench:
    """Go's own benchmarks as a measurement source: a compiled client binary that calls
    every server of one backend, one tidy row per benchmark result (ns/op, B/op and
    allocs/op, and ops/s as ``rps``). Benchmarks here fail on any error (a failed run
    raises); a benchmark that only counts its errors gives rows flagged bad_response."""

    load: GoBenchLoad
    name = TOOL_NAME
    closed_loop = False
    extra_columns = COLUMNS

    @property
    def servers(self) -> dict[str, str]:
        return dict(self.load.servers)

    @property
    def slug(self) -> str:
        return slug(self.load.backend)

    @property
    def setting(self) -> str:
        return TOOL_NAME

    def describe(self) -> str:
        return f"go test -bench {self.load.bench!r} against {self.load.backend}"

    def row_fields(self) -> dict[str, object]:
        return {"backend": self.load.backend}

    def client_cores(self, available: int) -> int:
        return available

    def own_flags(self, row: Mapping[str, object]) -> list[str]:
        return ["bad_response"] if row.get("errors_per_op") else []

    def binary(self) -> Path:
        return BUILD_BIN / f"{slug(self.load.package)}.test"

    def measure_together(
        self, run: Run, instances: Mapping[Target, Instance], rep: int, pinning: Pinning
    ) -> list[dict[str, object]]:
        """One run of the benchmark binary (compiled before the first), its rows."""
        if rep == 1:
            compile_benchmarks(self.load.package, GO_MODULE, self.binary())
        by_server = {target.server: instance for target, instance in instances.items()}
        addresses = {
            f"GOVERNANCE_{transport.upper()}_ADDR": f"127.0.0.1:{by_server[server].port}"
            for transport, server in self.load.servers
        }
        raw = run.raw_path(f"rep{rep:02d}_{self.slug}.txt")
        variables = {**addresses, **dict(self.load.env)}
        finished = run_benchmarks(
            self.binary(), self.load.bench, self.load.benchtime, variables, raw, pinning.load_cpus
        )
        if finished.exit_code != 0:
            parse_gobench(raw.read_text(errors="replace"))  # raises with the cause
        return result_rows(run, self.load.backend, self.servers, by_server, rep, raw)


def result_rows(
    run: Run,
    label: str,
    servers: Mapping[str, str],
    instances: Mapping[str, Instance],
    rep: int,
    raw: Path,
) -> list[dict[str, object]]:
    """One tidy row per benchmark result of one run of the benchmark binary."""
    rows = []
    for result in tidy_rows(parse_gobench(raw.read_text(errors="replace"))):
        server = servers[result["transport"]]
        errors = result.get("errors_per_op")
        parallel = result["benchmark"].startswith("Parallel")
        row = {
            "experiment": run.manifest()["experiment"],
            "repetition": rep,
            "target": f"{server} {result['name'].rsplit('-', 1)[0]}",
            "server": server,
            "language": instances[server].spec.language,
            "variant": "",
            "request": result["operation"],
            "tool": TOOL_NAME,
            "tool_setting": TOOL_NAME,
            # RunParallel's goroutines: SetParallelism(p) × GOMAXPROCS ("p16", suffix -P)
            "connections": int(result["operation"][1:]) * (result["procs"] or 1)
            if parallel
            else None,
            "requests": result["iterations"],
            "duration_s": result["iterations"] * result["ns_per_op"] / 1e9,
            "rps": 1e9 / result["ns_per_op"],
            "lat_mean_ms": None if parallel else result["ns_per_op"] / 1e6,
            "backend": label,
            **{c: result.get(c) for c in COLUMNS if c in result and c != "backend"},
            "raw_path": repo_relative(raw),
            "flags": "bad_response" if errors else "",
            "incident": (
                f"{server} {result['name'].rsplit('-', 1)[0]}: {errors:.0%} of its iterations "
                "failed and the benchmark timed the failures (the article's loop only logs "
                "errors)"
                if errors
                else ""
            ),
        }
        rows.append(row)
    return rows


def loads(
    backends: Mapping[str, Mapping[str, str]],
    bench: str,
    package: str = "./governance/bench/",
    benchtime: str = "200ms",
    env: Mapping[str, str] | None = None,
) -> list[GoBench]:
    """One client per backend: ``{"python": {"http": "python-governance-http", "grpc":
    …}}`` runs the benchmarks matching ``bench`` against each backend's servers."""
    if not backends:
        raise ValueError("backends: none given, e.g. {'go': {'http': 'go-governance-http'}}")
    if not bench:
        raise ValueError("bench: give a -bench pattern, e.g. 'Ops|ParallelHealth'")
    variables = tuple(sorted((env or {}).items()))
    return [
        GoBench(GoBenchLoad(label, tuple(servers.items()), bench, package, benchtime, variables))
        for label, servers in backends.items()
    ]


def benchstat_path() -> Path:
    """benchstat, which cross-checks go-bench's rows (`make setup` builds it)."""
    return built_tool("benchstat")


def go_version() -> str:
    done = subprocess.run(["go", "version"], capture_output=True, text=True, timeout=30)
    return done.stdout.strip()


# go test -bench measures the client it runs: there is no ceiling apart from the figure.
TOOL = ToolEntry(
    name=TOOL_NAME,
    make=loads,
    version=go_version,
    installed=benchstat_path,
    pinned=VersionPin("servers/go/go.mod", "go"),  # the Go its client is built with
    # Its client: the benchmarks in governance/bench, the packages they import, the pins.
    sources=("servers/go/governance", "servers/go/go.mod", "servers/go/go.sum"),
    capabilities=Capabilities(measures_together=True),
    about="Go's own benchmarks: a compiled client timing calls one by one",
)
