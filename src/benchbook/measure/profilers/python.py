"""py-spy as a Python server's parent: ``py-spy record --subprocesses -- <command>``
samples the whole process tree (uvicorn's or gunicorn's workers too) with no ptrace
permission beyond a parent's, and writes raw folded stacks when stopped with Ctrl-C."""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from benchbook.measure.instances import Instance
from benchbook.measure.registry import ServerSpec
from benchbook.runs.sampling import RATE_HZ

PYSPY_EXIT_S = 20.0  # py-spy writes its file once stopped; large trees take a moment


class PySpy:
    """py-spy as the server's parent: it starts the server and samples its tree."""

    name = "py-spy"

    @staticmethod
    def binary() -> Path:
        return _venv_bin("py-spy")

    def wrap(self, spec: ServerSpec, prefix: Path) -> tuple[ServerSpec, dict]:
        argv = (str(self.binary()), "record", "--subprocesses", "--nonblocking", "--nolineno",
                "--rate", str(RATE_HZ), "--format", "raw", "-o", f"{prefix}.folded",
                "--")  # fmt: skip
        return replace(spec, command=argv + spec.command), {}

    @contextlib.contextmanager
    def recording(self, instance: Instance, prefix: Path, window_s: float) -> Iterator[None]:
        yield  # py-spy samples from the server's start to its stop

    def finish(self, instance: Instance) -> None:
        """Ctrl-C to py-spy alone: it stops sampling and writes its file (the group,
        server included, is stopped by the harness afterwards)."""
        process = instance.server.process
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.popen.wait(timeout=PYSPY_EXIT_S)

    def folded(self, prefix: Path) -> Path:
        """py-spy's file, each stack's root ``process <pid>:"<whole command line>"``
        shortened to ``process <pid> (<program>)``."""
        folded = Path(f"{prefix}.folded")
        if folded.exists():
            folded.write_text(_PROCESS.sub(_short_process, folded.read_text()))
        return folded

    def unavailable(self) -> str:
        return ""  # a dependency of benchbook itself

    def errors(self, log: Path) -> int | None:
        """The stacks py-spy failed to read (``--nonblocking`` reads a running process), from
        its last line 'Wrote raw flamegraph data to … Samples: N Errors: M' in the log."""
        found = re.findall(r"Samples: \d+ Errors: (\d+)", log.read_text(errors="replace"))
        return int(found[-1]) if found else None

    def version(self) -> str:
        done = subprocess.run([str(self.binary()), "--version"], capture_output=True, text=True)
        return done.stdout.strip() or "py-spy (version unknown)"


def _venv_bin(name: str) -> Path:
    """A program installed beside this interpreter (the venv's py-spy)."""
    found = Path(sys.executable).with_name(name)
    return found if found.exists() else Path(shutil.which(name) or name)


_PROCESS = re.compile(r'^process (\d+):"([^"\n]*)"', re.MULTILINE)


def _short_process(match: re.Match) -> str:
    """'process 7:"/x/bin/python -m uvicorn hello:app --port 1"' → 'process 7 (python -m
    uvicorn)': the program, as a flame graph's root, without the ports and paths."""
    words = match.group(2).split()
    program = [Path(words[0]).name] if words else []
    if words[1:2] == ["-m"]:
        program += words[1:3]
    return f"process {match.group(1)} ({' '.join(program)})"
