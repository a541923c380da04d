"""wrk: a closed-loop HTTP load generator (fixed connections, each waiting for its reply).

The run's stdout is written straight to a file, and only then parsed, so a parse
failure never loses a measurement. Latency comes from our Lua ``done()`` reporter
(microseconds in wrk; milliseconds in our rows).
"""

import json
import secrets
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchbook.loadgen import (
    Finished,
    LoadPlan,
    LoadToolError,
    ToolRun,
    require_loopback,
    run_to_files,
)
from benchbook.params import ClosedLoopLoad

REPORTER = Path(__file__).with_name("wrk_report.lua")
PLAN_SCRIPT = Path(__file__).with_name("wrk_plan.lua")
MARKER = "BENCHBOOK_WRK "
# wrk stops itself after -d; past this much more (plus its --timeout), it is hung.
DEADLINE_GRACE_S = 15.0
PERCENTILES = {"50": "lat_p50_ms", "75": "lat_p75_ms", "90": "lat_p90_ms", "99": "lat_p99_ms",
               "99.9": "lat_p999_ms"}  # fmt: skip


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


def weighted_order(weights: list[float]) -> list[int]:
    """Smooth weighted round robin over integer weights: 5, 4, 4 → 13 slots, each request
    spread evenly (1-based, as Lua indexes)."""
    counts = [round(w) for w in weights]
    if any(c < 1 for c in counts) or any(
        abs(c - w) > 1e-9 for c, w in zip(counts, weights, strict=True)
    ):
        raise ValueError(f"wrk mixes need whole-number weights ≥ 1, got {weights}")
    current, order = [0] * len(counts), []
    for _ in range(sum(counts)):
        current = [c + w for c, w in zip(current, counts, strict=True)]
        best = max(range(len(counts)), key=current.__getitem__)
        current[best] -= sum(counts)
        order.append(best + 1)
    return order


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
    order = ", ".join(map(str, weighted_order([r.weight for r in plan.requests])))
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
    require_loopback("url", url)
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
    finished = run_to_files(argv, raw_path, None, cpus, deadline_s)
    if finished.exit_code != 0:
        raise WrkError(
            f"wrk exited with code {finished.exit_code}; its output is in {raw_path}:\n"
            + raw_path.read_text(errors="replace")[-2000:]
        )
    return finished


def parse_wrk_output(text: str) -> dict[str, float | int | None]:
    """The measurement columns of a tidy row, from wrk's output with our reporter's line.

    wrk counts statuses above 399 as ``errors.status`` (our ``non_2xx``) and still counts
    those responses in its request total; requests slower than ``--timeout`` are only
    counted as timeouts and are missing from the latency histogram.
    """
    lines = [line for line in text.splitlines() if line.startswith(MARKER)]
    if len(lines) != 1:
        raise WrkError(
            f"expected one '{MARKER.strip()}' line from the Lua reporter, found {len(lines)}; "
            "was wrk run with -s wrk_report.lua?"
        )
    data = json.loads(lines[0][len(MARKER) :])
    duration_s = data["duration_us"] / 1e6
    lat = data["latency_us"]

    def ms(us: float | None) -> float | None:
        return None if us is None else us / 1000

    return {
        "duration_s": duration_s,
        "requests": data["requests"],
        "rps": data["requests"] / duration_s,
        "bytes_per_s": data["bytes"] / duration_s,
        "lat_mean_ms": ms(lat["mean"]),
        "lat_stdev_ms": ms(lat["stdev"]),
        **{col: ms(lat["percentiles"][p]) for p, col in PERCENTILES.items()},
        "lat_max_ms": ms(lat["max"]),
        "err_connect": data["errors"]["connect"],
        "err_read": data["errors"]["read"],
        "err_write": data["errors"]["write"],
        "err_timeout": data["errors"]["timeout"],
        "non_2xx": data["errors"]["status"],
    }


@dataclass(frozen=True)
class Wrk:
    """wrk as a LoadTool: a closed loop of ``load.connections`` connections."""

    load: ClosedLoopLoad
    name = "wrk"
    closed_loop = True

    @property
    def slug(self) -> str:
        return f"c{self.load.connections}"

    @property
    def setting(self) -> str:
        """One setting for all of wrk's: its ceiling is measured with -t1 on the load
        tool's cores; more threads on the same cores add little."""
        return "wrk"

    def describe(self) -> str:
        return f"wrk -t{self.load.threads} -c{self.load.connections} -d{self.load.duration_s:g}s"

    def row_fields(self) -> dict[str, object]:
        return {"connections": self.load.connections, "threads": self.load.threads}

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
        if path is None or plan.capture_status:
            path = "/"
            script = raw_prefix.with_name(raw_prefix.name + ".lua")
            script.parent.mkdir(parents=True, exist_ok=True)
            capture = None
            if plan.capture_dir:
                plan.capture_dir.mkdir(parents=True, exist_ok=True)
                capture = plan.capture_dir / "wrk"
            script.write_text(plan_script(plan, secrets.token_hex(4), capture))
        finished = run_wrk(host + path, self.load, raw_path, cpus, duration_s, script)
        measured = parse_wrk_output(raw_path.read_text(errors="replace"))
        return ToolRun(measured, finished.wall_s, finished.client_cpu_s, raw_path)
