"""Linux perf as a native server's parent: ``perf record --call-graph dwarf -- <command>``
samples the server's CPU (its own code, the libraries it calls, and the kernel on its
behalf) from start to stop, unwinding each stack from a copy of the stack (DWARF), so
code built without frame pointers (Rust's standard library) unwinds whole. Stopped with
Ctrl-C it writes its data; ``perf script`` turns that into folded stacks."""

import contextlib
import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from benchbook.measure.instances import Instance
from benchbook.measure.registry import ServerSpec
from benchbook.runs.sampling import RATE_HZ

PERF_EXIT_S = 20.0  # perf writes its data once stopped
# A frame of ``perf script``: "\t  7f0ef tokio::…::poll_io+0xdf (/path/to/binary)".
_FRAME = re.compile(r"^\s*[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)\s*$")


class PerfRecord:
    """perf as the server's parent: it starts the server and samples it."""

    name = "perf"

    def unavailable(self) -> str:
        return cannot_record()

    def wrap(self, spec: ServerSpec, prefix: Path) -> tuple[ServerSpec, dict]:
        return replace(spec, command=record_argv(prefix) + spec.command), {}

    @contextlib.contextmanager
    def recording(self, instance: Instance, prefix: Path, window_s: float) -> Iterator[None]:
        yield  # perf samples from the server's start to its stop

    def finish(self, instance: Instance) -> None:
        """Ctrl-C to perf alone: it stops sampling, writes its data and ends the server."""
        process = instance.server.process
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.popen.wait(timeout=PERF_EXIT_S)

    def folded(self, prefix: Path) -> Path:
        folded = Path(f"{prefix}.folded")
        data = Path(f"{prefix}.perf.data")
        if data.exists():
            script = subprocess.run(["perf", "script", "--no-inline", "-i", str(data)],
                                    capture_output=True, text=True, check=True)  # fmt: skip
            folded.write_text(perf_script_to_folded(script.stdout))
        return folded

    def errors(self, log: Path) -> int | None:
        return None  # perf unwinds what it copied; a stack it cannot finish ends in [unknown]

    def version(self) -> str:
        done = subprocess.run(["perf", "--version"], capture_output=True, text=True)
        return f"{done.stdout.strip() or 'perf (version unknown)'} ({RATE_HZ} Hz, dwarf)"


def record_argv(prefix: Path) -> tuple[str, ...]:
    """``perf record`` writing ``<prefix>.perf.data``, before the command it starts."""
    return ("perf", "record", "--quiet", "-F", str(RATE_HZ), "--call-graph", "dwarf",
            "-o", f"{prefix}.perf.data", "--")  # fmt: skip


@functools.cache
def cannot_record() -> str:
    """Why perf cannot profile here ('' when it can): tried once per process, as the
    profiled phase will use it, on ``true``."""
    if shutil.which("perf") is None:
        return "perf is not installed (Debian: apt-get install linux-perf)"
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run([*record_argv(Path(scratch) / "probe"), "true"],
                              capture_output=True, text=True)  # fmt: skip
    if done.returncode == 0:
        return ""
    said = (done.stderr.strip().splitlines() or ["no message"])[0]
    return f"perf cannot record here (perf_event_paranoid, or no events in this VM): {said}"


def perf_script_to_folded(script: str) -> str:
    """``perf script`` output (a header line per sample, then its frames leaf first, then a
    blank line) as folded stacks: ``root;…;leaf count``, frames ``function (file)`` with the
    file's name only, offsets and unresolved frames left out."""
    stacks: Counter[str] = Counter()
    for sample in script.split("\n\n"):
        lines = [line for line in sample.splitlines() if line.strip()]
        frames = [frame for line in lines[1:] if (frame := _frame(line))]
        if frames:
            stacks[";".join(reversed(frames))] += 1
    return "".join(f"{stack} {n}\n" for stack, n in sorted(stacks.items()))


def _frame(line: str) -> str:
    """'\t 7f0ef tokio::io::Registration::poll_io+0xdf (/x/hello)' → 'tokio::io::
    Registration::poll_io (hello)'; '' for an unresolved frame."""
    found = _FRAME.match(line)
    if not found or found.group(1) == "[unknown]":
        return ""
    return f"{found.group(1)} ({Path(found.group(2)).name})".replace(";", ",")
