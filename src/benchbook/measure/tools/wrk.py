"""wrk: a closed-loop HTTP load generator (fixed connections, each waiting for its reply).

The run's stdout is written straight to a file, and only then parsed, so a parse
failure never loses a measurement. Latency comes from our Lua ``done()`` reporter
(microseconds in wrk; milliseconds in our rows), read by benchbook.runs.wrk_output, which
the store shares to re-check a stored row against its raw output.
"""

import json
import secrets
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchbook.measure.hosts.addresses import require_allowed
from benchbook.measure.params import counts, require_int
from benchbook.measure.tools import Calibration, Capabilities, ToolEntry
from benchbook.measure.tools.base import (
    Finished,
    LoadPlan,
    LoadToolError,
    ToolDefaults,
    ToolRun,
    require_exit,
    run_to_files,
)
from benchbook.runs.durations import parse_duration
from benchbook.runs.wrk_output import TOOL as TOOL_NAME
from benchbook.runs.wrk_output import WrkOutputError, parse_wrk_output

REPORTER = Path(__file__).with_name("wrk_report.lua")
PLAN_SCRIPT = Path(__file__).with_name("wrk_plan.lua")
# wrk stops itself after -d; past this much more (plus its --timeout), it is hung.
DEADLINE_GRACE_S = 15.0


@dataclass(frozen=True)
class ClosedLoopLoad:
    """A closed-loop load (a fixed number of connections each waiting for its reply,
    and then ``think_s`` more before sending the next: 0 sends at once)."""

    connections: int
    threads: int
    duration_s: float
    timeout_s: float
    think_s: float = 0.0

    @classmethod
    def from_params(
        cls,
        connections: object,
        threads: object,
        duration: object,
        timeout: object,
        think: object = 0,
    ) -> "ClosedLoopLoad":
        load = cls(
            connections=require_int("connections", connections, 1),
            threads=require_int("threads", threads, 1),
            duration_s=parse_duration("duration", duration),
            timeout_s=parse_duration("timeout", timeout),
            think_s=parse_duration("think", think, allow_zero=True),
        )
        for name, seconds in (("duration", load.duration_s), ("timeout", load.timeout_s)):
            if seconds < 1 or seconds != int(seconds):
                raise ValueError(
                    f"{name}: {seconds:g} s; wrk takes whole seconds (1 or more), e.g. '10s'"
                )
        if load.threads > load.connections:
            raise ValueError(
                f"threads: {load.threads} is more than connections ({load.connections}); "
                f"each load thread needs at least one connection, so use threads <= connections"
            )
        return load


class WrkError(LoadToolError):
    pass


def wrk_path() -> str:
    path = shutil.which("wrk")
    if path is None:
        raise WrkError(
            "wrk is not installed. On Debian/Ubuntu: sudo apt-get install wrk "
            "(`make setup` does this when run as root); "
            "with conda: conda install -c conda-forge wrk"
        )
    return path


def wrk_version() -> str:
    done = subprocess.run([wrk_path(), "-v"], capture_output=True, text=True)
    return (done.stdout or done.stderr).splitlines()[0].strip()


def lua_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string literal is a Lua one too


def plan_script(plan: LoadPlan, nonce: str, capture_prefix: Path | None) -> str:
    """A wrk Lua script sending ``plan``, with benchbook's reporter after it."""
    entries = []
    for r in plan.requests:
        headers = ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in r.headers.items())
        ids = ", ".join(lua_string(i) for i in r.ids)
        body = lua_string(r.body) if r.body is not None else "nil"
        entries.append(
            f"  {{method = {lua_string(r.method)}, path = {lua_string(r.path)}, "
            f"headers = {{{headers}}}, body = {body}, ids = {{{ids}}}}}"
        )
    order = ", ".join(str(i + 1) for i in plan.order())
    lines = ["plan = {", ",\n".join(entries), "}", f"order = {{{order}}}"]
    lines.append(f"nonce = {lua_string(nonce)}")
    if plan.capture_status and capture_prefix:
        lines.append(f"capture_status = {plan.capture_status}")
        lines.append(f"capture_prefix = {lua_string(str(capture_prefix))}")
    else:
        lines.append("capture_status = nil")
    return "\n".join(lines) + "\n\n" + PLAN_SCRIPT.read_text() + "\n" + REPORTER.read_text()


def wrk_command(
    url: str, load: ClosedLoopLoad, duration_s: float | None = None, script: Path = REPORTER
) -> list[str]:
    """The wrk command line for ``load`` (``duration_s`` overrides, e.g. for warm-up);
    ``script`` is the reporter, or a plan script that ends with it."""
    require_allowed("url", url)
    seconds = load.duration_s if duration_s is None else duration_s
    return [
        wrk_path(),
        f"-t{load.threads}",
        f"-c{load.connections}",
        f"-d{max(1, round(seconds))}s",
        f"--timeout={max(1, round(load.timeout_s))}s",
        "--latency",
        "-s", str(script),
        url,
    ]  # fmt: skip


def run_wrk(
    url: str,
    load: ClosedLoopLoad,
    raw_path: Path,
    cpus: Sequence[int] | None = None,
    duration_s: float | None = None,
    script: Path = REPORTER,
) -> Finished:
    """Run wrk once, its stdout and stderr going to ``raw_path``; raise if it failed."""
    argv = wrk_command(url, load, duration_s, script)
    seconds = load.duration_s if duration_s is None else duration_s
    deadline_s = seconds + load.timeout_s + DEADLINE_GRACE_S
    return require_exit(run_to_files(argv, raw_path, None, cpus, deadline_s), "wrk", raw_path,
                        WrkError)  # fmt: skip


HISTOGRAM_MARKER = "BENCHBOOK_WRK_HIST "
UNCORRECTED = {0.5: "lat_p50_uncorrected_ms", 0.9: "lat_p90_uncorrected_ms",
               0.99: "lat_p99_uncorrected_ms", 0.999: "lat_p999_uncorrected_ms"}  # fmt: skip


def uncorrected_percentiles(
    text: str, connections: int, duration_us: int, requests: int
) -> dict[str, float | None]:
    """wrk 4 fills its latency histogram in after the run for the requests its closed
    loop never sent (``stats_correct`` in wrk's stats.c): every recorded latency L of at
    least twice the mean interval e between a connection's requests also counts at
    L - e, L - 2e, … down to e. Undone here, exactly, from the dumped histogram: the
    original count at m > e is C[m] - C[m + e]. The percentiles of what wrk actually
    timed, in ms — what a closed-loop tool without that fill-in (Locust) reports."""
    lines = [line for line in text.splitlines() if line.startswith(HISTOGRAM_MARKER)]
    if len(lines) != 1:
        raise WrkError(f"expected one '{HISTOGRAM_MARKER.strip()}' line, found {len(lines)}")
    corrected = dict(json.loads(lines[0][len(HISTOGRAM_MARKER) :]))
    per_connection = requests // connections
    if not corrected or not per_connection:
        return dict.fromkeys([*UNCORRECTED.values(), "lat_mean_uncorrected_ms"])
    interval = duration_us // per_connection
    original = {
        value: count - (corrected.get(value + interval, 0) if value > interval else 0)
        for value, count in corrected.items()
    }
    total = sum(original.values())
    found: dict[str, float | None] = {
        "lat_mean_uncorrected_ms": sum(v * c for v, c in original.items()) / total / 1000
    }
    seen = 0
    shares = iter(sorted(UNCORRECTED))
    share = next(shares)
    for value in sorted(original):
        seen += original[value]
        while share is not None and seen >= share * total:
            found[UNCORRECTED[share]] = value / 1000
            share = next(shares, None)
    return found


@dataclass(frozen=True)
class Wrk(ToolDefaults):
    """wrk as a LoadTool: a closed loop of ``load.connections`` connections. With
    ``uncorrected``, each row also gets the percentiles of what wrk timed before its
    coordinated-omission fill-in (costs about a second per run to dump the histogram)."""

    load: ClosedLoopLoad
    uncorrected: bool = False
    name = TOOL_NAME
    closed_loop = True

    @property
    def extra_columns(self) -> tuple[str, ...]:
        timed = (*UNCORRECTED.values(), "lat_mean_uncorrected_ms") if self.uncorrected else ()
        return ("think_ms", *timed)

    @property
    def slug(self) -> str:
        return f"c{self.load.connections}"

    @property
    def setting(self) -> str:
        """One setting for all of wrk's: its ceiling is measured with -t1 on the load
        tool's cores; more threads on the same cores add little."""
        return "wrk"

    def describe(self) -> str:
        think = f", {self.load.think_s * 1000:g} ms between requests" if self.load.think_s else ""
        return (
            f"wrk -t{self.load.threads} -c{self.load.connections} -d{self.load.duration_s:g}s"
            + think
        )

    def row_fields(self) -> dict[str, object]:
        think = {"think_ms": self.load.think_s * 1000} if self.load.think_s else {}
        return {"connections": self.load.connections, "threads": self.load.threads} | think

    def client_cores(self, available: int) -> int:
        return min(self.load.threads, available)

    def run(
        self,
        host: str,
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        """A plain GET runs with the reporter alone (wrk's fastest path); any other plan
        with a generated Lua script, kept beside the output."""
        raw_path = raw_prefix.with_name(raw_prefix.name + ".txt")
        path, script = plan.single_path, REPORTER
        if path is None or plan.capture_status or self.uncorrected or self.load.think_s:
            script = raw_prefix.with_name(raw_prefix.name + ".lua")
            script.parent.mkdir(parents=True, exist_ok=True)
            if path is None or plan.capture_status:
                path = "/"
                capture = None
                if plan.capture_dir:
                    plan.capture_dir.mkdir(parents=True, exist_ok=True)
                    capture = plan.capture_dir / "wrk"
                text = plan_script(plan, secrets.token_hex(4), capture)
            else:
                text = REPORTER.read_text()
            dump = "dump_histogram = true\n" if self.uncorrected else ""
            think = (
                f"function delay() return {self.load.think_s * 1000:g} end\n"
                if self.load.think_s
                else ""
            )
            script.write_text(dump + think + text)
        finished = run_wrk(host + path, self.load, raw_path, cpus, duration_s, script)
        output = raw_path.read_text(errors="replace")
        try:
            measured = parse_wrk_output(output)
        except WrkOutputError as error:
            raise WrkError(f"{error} (its output: {raw_path})") from None
        if self.uncorrected:
            measured |= uncorrected_percentiles(
                output, self.load.connections, round(measured["duration_s"] * 1e6),
                int(measured["requests"]),
            )  # fmt: skip
        return ToolRun(measured, finished.wall_s, finished.client_cpu_s, raw_path)


def loads(
    connections: object,
    duration: object,
    threads: object = 1,
    timeout: object = "2s",
    think: object = 0,
    uncorrected: bool = False,
) -> list[Wrk]:
    """wrk at each connection count (one, a list, or "10,100"), ``threads`` load threads.
    ``think``: each connection waits this long after a reply before its next request
    (wrk's Lua ``delay()``: a closed loop at roughly connections ÷ think requests per
    second). ``uncorrected`` adds the percentiles of what wrk timed before its
    coordinated-omission fill-in (uncorrected_percentiles)."""
    return [
        Wrk(ClosedLoopLoad.from_params(c, threads, duration, timeout, think), bool(uncorrected))
        for c in counts("connections", connections)
    ]


def calibration_loads(duration: object, connections: object) -> list[Wrk]:
    """One thread (its ceiling per core), as fast as the server answers."""
    return loads(connections, duration, threads=1)


TOOL = ToolEntry(
    name=TOOL_NAME,
    make=loads,
    version=wrk_version,
    installed=wrk_path,
    capabilities=Capabilities(),
    calibration=Calibration("go-hello", calibration_loads, {"connections": 50}),
    about="closed loop, C with Lua scripts (Debian's wrk 4.1)",
)
