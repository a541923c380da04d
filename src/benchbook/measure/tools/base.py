"""What every load tool shares: the plan it sends, the run it returns, the way it is
started and stopped (the columns it fills are benchbook.runs.columns').

A tool object holds one validated load and knows how to send a LoadPlan — the requests
of the registry, with their methods, headers, bodies and the ids of records created
first — to a server, leaving its raw output on disk before parsing it into the core
measurement columns (see the LoadTool protocol below; tools/__init__.py finds the tools).
"""

import re
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from benchbook.measure.processes import DeadlineExceeded, ManagedProcess
from benchbook.measure.sampling import CpuTimeline, TreeSampler

if TYPE_CHECKING:  # named in the protocols' signatures only (instances imports this)
    from benchbook.measure.hosts.exposure import LoadHost
    from benchbook.measure.instances import Instance
    from benchbook.measure.pinning import Pinning
    from benchbook.measure.registry import Target
    from benchbook.measure.run_store import Run


def go_binary_version(binary: Path) -> str:
    """The module version a Go-built tool was built from and the Go that built it, as
    ``go version -m`` reads them from the binary ("github.com/tsenart/vegeta/v12 v12.12.0
    (go1.26.8)"): tools built with ``go install`` from a pinned go.mod print no version
    of their own (bombardier says "unspecified")."""
    done = subprocess.run(["go", "version", "-m", str(binary)], capture_output=True, text=True,
                          timeout=30)  # fmt: skip
    lines = [line.split() for line in done.stdout.splitlines()]
    found = [f"{fields[1]} {fields[2]}" for fields in lines
             if fields[:1] == ["mod"] and len(fields) >= 3]  # fmt: skip
    if done.returncode != 0 or not found:
        said = (done.stderr or done.stdout).strip()
        raise LoadToolError(f"`go version -m {binary}` names no module: {said!r}")
    return f"{found[0]} ({lines[0][-1]})"


@dataclass(frozen=True)
class Finished:
    exit_code: int
    wall_s: float
    client_cpu_s: float  # the tool and any worker processes it forked and reaped
    # Sampled CPU time of each process tree of the tool, to measure a stretch of the run,
    # and of each of its processes.
    cpu_timelines: tuple[CpuTimeline, ...] = field(default=())
    process_timelines: Mapping[int, CpuTimeline] = field(default_factory=dict)


class LoadToolError(RuntimeError):
    """A load tool failed or hung; the message says what happened and where its output is."""


@dataclass(frozen=True)
class ErrorKinds:
    """How a tool words a request that failed, mapped to the column it counts in
    (``err_connect``, ``err_timeout``, …): ``markers`` is column → texts, and the first
    column one of whose texts the message contains wins (a dial that timed out is a
    timeout). ``ignore`` matches what comes before the cause and is not read (a URL
    must not match). A message no marker names is ``error``, naming ``table`` (where
    to add it), not a guess."""

    tool: str
    markers: Mapping[str, tuple[str, ...]]
    table: str  # e.g. "ERRORS in measure/tools/bombardier.py"
    error: type[LoadToolError] = LoadToolError
    ignore: re.Pattern[str] | None = None
    called: str = "an error"  # what the tool calls it: "a failure" in Locust

    def kind(self, message: str) -> str:
        """The column ``message`` counts in."""
        cause = self.ignore.sub("", message, count=1) if self.ignore else message
        for kind, markers in self.markers.items():
            if any(marker in cause for marker in markers):
                return kind
        raise self.error(
            f"{self.tool} reported {self.called} benchbook cannot classify: {message!r}. "
            f"Add what it means to {self.table}"
        )

    def count(self, messages: Iterable[tuple[str, int]]) -> dict[str, int]:
        """(message, occurrences) pairs summed by column, every column present."""
        counts = dict.fromkeys(self.markers, 0)
        for message, occurrences in messages:
            counts[self.kind(message)] += occurrences
        return counts


def require_exit(
    finished: "Finished",
    tool: str,
    log: Path,
    error: type[LoadToolError] = LoadToolError,
    accepted: tuple[int, ...] = (0,),
) -> "Finished":
    """``finished``, or ``error`` quoting the end of the tool's log when it exited with
    a code that is not a result (``accepted``)."""
    if finished.exit_code not in accepted:
        raise error(
            f"{tool} exited with code {finished.exit_code}; its log is {log}:\n"
            + log.read_text(errors="replace")[-2000:]
        )
    return finished


def run_to_files(
    argv: list[str],
    log_path: Path,
    stdout_path: Path | None,
    cpus: Sequence[int] | None,
    deadline_s: float,
    env: Mapping[str, str] | None = None,
) -> Finished:
    """Run a load tool to its end: the command line and stderr to ``log_path``, stdout
    to ``stdout_path`` (or the log too), so its output is on disk before any parsing.
    A tool still running ``deadline_s`` after its start is stopped, and LoadToolError
    says so."""
    (finished,) = run_all_to_files([Job(argv, log_path, stdout_path, nullcontext, env)], cpus,
                                   deadline_s)  # fmt: skip
    return finished


@dataclass(frozen=True)
class Job:
    """One process of a load spread over hosts: started inside ``enter`` (its host)."""

    argv: list[str]
    log_path: Path
    stdout_path: Path | None
    enter: Callable[[], AbstractContextManager]
    env: Mapping[str, str] | None = None


def run_all_to_files(
    jobs: Sequence[Job], cpus: Sequence[int] | None, deadline_s: float
) -> list[Finished]:
    """Several load-tool processes at once, each on its own host: every command line and
    stderr to its log, stdout to its ``stdout_path`` (or the log), all started, then each
    waited for — with its exact CPU time — and stopped (LoadToolError) if still running
    ``deadline_s`` after its start."""
    with ExitStack() as stack:
        started = []
        for job in jobs:
            job.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = stack.enter_context(open(job.log_path, "wb"))
            log.write(("$ " + " ".join(job.argv) + "\n").encode())
            log.flush()
            out = stack.enter_context(open(job.stdout_path, "wb")) if job.stdout_path else None
            with job.enter():
                proc = stack.enter_context(
                    ManagedProcess(
                        job.argv,
                        env=job.env,
                        stdout=out or log,
                        stderr=log if out else subprocess.STDOUT,
                        cpus=cpus,
                    )
                )
            started.append(
                (job, proc, stack.enter_context(TreeSampler(proc.pid)), time.monotonic())
            )
        finished = []
        for job, proc, sampler, start in started:
            try:
                code, cpu_s = proc.wait_with_usage(
                    max(1.0, deadline_s - (time.monotonic() - start))
                )
            except DeadlineExceeded as late:
                raise LoadToolError(
                    f"{late} Its output so far is in {job.stdout_path or job.log_path}."
                ) from None
            finished.append(
                Finished(
                    code,
                    time.monotonic() - start,
                    cpu_s,
                    (sampler.cpu_timeline,),
                    sampler.process_timelines,
                )  # fmt: skip
            )
        return finished


@dataclass(frozen=True)
class LoadRequest:
    """A registry request as a load tool sends it: ``{id}`` in the path cycles through
    ``ids`` (records created before the run), ``{unique}`` in the body becomes a value no
    other request sends. In a mix, each request is sent in proportion to its ``weight``."""

    name: str
    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None
    ids: tuple[str, ...] = ()
    expected_status: int = 200
    weight: float = 1.0
    proto: str | None = None  # a GRPC request's .proto, for gRPC load tools


@dataclass(frozen=True)
class LoadPlan:
    """What a run sends. ``capture_status``: keep the body of every response with this
    status (the records a write run created), as ``capture_dir``/<tool's files>, for
    the check that nothing was lost."""

    requests: tuple[LoadRequest, ...]
    capture_status: int | None = None
    capture_dir: Path | None = None

    def __post_init__(self) -> None:
        if not self.requests:
            raise ValueError("a load plan needs at least one request")
        for request in self.requests:
            if "{id}" in request.path and not request.ids:
                raise ValueError(f"{request.name}: {request.path} needs ids of created records")

    def order(self) -> list[int]:
        """Smooth weighted round robin over whole-number weights: 5, 4, 4 → 13 slots,
        each request (by index) spread evenly. Tools that cannot draw at random send
        their requests in this order."""
        weights = [r.weight for r in self.requests]
        counts = [round(w) for w in weights]
        if any(c < 1 or c != w for c, w in zip(counts, weights, strict=True)):
            raise ValueError(f"mixes need whole-number weights ≥ 1, got {weights}")
        current, order = [0] * len(counts), []
        for _ in range(sum(counts)):
            current = [c + w for c, w in zip(current, counts, strict=True)]
            best = max(range(len(counts)), key=current.__getitem__)
            current[best] -= sum(counts)
            order.append(best)
        return order

    @property
    def single_path(self) -> str | None:
        """The one fixed path a plan of one plain GET sends (tools that can only GET)."""
        (only, *rest) = self.requests
        if rest or only.method != "GET" or only.body or only.headers or "{id}" in only.path:
            return None
        return only.path


def get_plan(path: str) -> LoadPlan:
    """The simplest plan: GET one path (named by the path, as Locust names it)."""
    return LoadPlan((LoadRequest(path, "GET", path),))


@dataclass(frozen=True)
class ToolRun:
    measured: dict[str, float | int | None]  # the measurement columns of a tidy row
    wall_s: float
    client_cpu_s: float
    raw_path: Path
    # (start, end) Unix times of the load phase, when the tool's lifetime is longer
    # (Locust's start-up): server CPU is then measured over this stretch only.
    load_phase: tuple[float, float] | None = None
    # Its busiest process in percent of one core, for a tool whose processes each use
    # one core at most (Locust's workers): one at its limit limits the tool.
    busiest_process_pct: float | None = None


class ToolDefaults:
    """What most load tools share, so a tool module states only what is its own: one
    setting per tool (its ceiling), every core it is given, no flags of its own, no
    columns beyond the core ones."""

    extra_columns: tuple[str, ...] = ()

    @property
    def setting(self) -> str:
        return self.name

    def client_cores(self, available: int) -> int:
        return available

    def own_flags(self, row: Mapping[str, object]) -> list[str]:
        return []


class LoadTool(Protocol):
    """A load tool (see the module's docstring). What some tools can do beyond it is
    declared in their ToolEntry's capabilities and typed by SpreadLoad and
    MultiServerLoad below."""

    name: str
    load: Any  # the validated load, a dataclass (stored in the run's manifest)
    closed_loop: bool  # a fixed number of requests in flight (Little's law applies)

    @property
    def slug(self) -> str: ...  # e.g. "c100", "u1000-HttpUser-p1": names raw files

    @property
    def setting(self) -> str: ...  # what bounds the tool's throughput; ceilings are per setting

    def describe(self) -> str: ...  # the load, for progress lines

    def row_fields(self) -> dict[str, object]: ...  # connections/threads or users

    def client_cores(self, available: int) -> int: ...  # cores the tool can use at most

    def own_flags(self, row: Mapping[str, object]) -> list[str]: ...  # flags only it raises

    def run(
        self,
        host: str,
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: tuple[int, ...] | None,
        duration_s: float | None = None,
    ) -> ToolRun: ...


class SpreadLoad(LoadTool, Protocol):
    """A load that can be spread over several load hosts (hosts.placement) at once:
    declared by ``Capabilities.spreads_over_hosts``."""

    def spread_problem(self, load_hosts: int) -> str: ...  # why it cannot spread ('' if it can)

    def run_spread(
        self,
        hosts: "Sequence[LoadHost]",
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun: ...


class MultiServerLoad(Protocol):
    """One client binary measuring several servers at once, giving its own rows (not a
    LoadTool's run): declared by ``Capabilities.measures_together``."""

    name: str

    @property
    def servers(self) -> Mapping[str, str]: ...  # what it calls each server → server name

    def measure_together(
        self, run: "Run", instances: "Mapping[Target, Instance]", rep: int, pinning: "Pinning"
    ) -> list[dict[str, object]]: ...  # one run of the binary: its tidy rows
