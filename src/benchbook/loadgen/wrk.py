"""wrk: a closed-loop HTTP load generator (fixed connections, each waiting for its reply).

The run's stdout is written straight to a file, and only then parsed, so a parse
failure never loses a measurement. Latency comes from our Lua ``done()`` reporter
(microseconds in wrk; milliseconds in our rows).
"""

import json
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchbook.loadgen import Finished, LoadToolError, ToolRun, require_loopback, run_to_files
from benchbook.params import ClosedLoopLoad

REPORTER = Path(__file__).with_name("wrk_report.lua")
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


def wrk_command(url: str, load: ClosedLoopLoad, duration_s: float | None = None) -> list[str]:
    """The wrk command line for ``load`` (``duration_s`` overrides, e.g. for warm-up)."""
    require_loopback("url", url)
    seconds = load.duration_s if duration_s is None else duration_s
    return [
        wrk_path(),
        f"-t{load.threads}",
        f"-c{load.connections}",
        f"-d{max(1, round(seconds))}s",
        f"--timeout={max(1, round(load.timeout_s))}s",
        "--latency",
        "-s", str(REPORTER),
        url,
    ]  # fmt: skip


def run_wrk(
    url: str,
    load: ClosedLoopLoad,
    raw_path: Path,
    cpus: Sequence[int] | None = None,
    duration_s: float | None = None,
) -> Finished:
    """Run wrk once, its stdout and stderr going to ``raw_path``; raise if it failed."""
    argv = wrk_command(url, load, duration_s)
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
        path: str,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        raw_path = raw_prefix.with_name(raw_prefix.name + ".txt")
        finished = run_wrk(host + path, self.load, raw_path, cpus, duration_s)
        measured = parse_wrk_output(raw_path.read_text(errors="replace"))
        return ToolRun(measured, finished.wall_s, finished.client_cpu_s, raw_path)
