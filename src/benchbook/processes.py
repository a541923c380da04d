"""Child processes that never outlive their run.

Every server and load tool is started in its own process group (so a uvicorn master
and its workers are stopped together) and stopped with SIGTERM, then SIGKILL. Three
layers make sure that happens:

1. ``with`` blocks stop processes on success, on exceptions and on Ctrl-C
   (KeyboardInterrupt unwinds through them);
2. an ``atexit`` hook stops anything still registered when the interpreter exits;
3. a watchdog process, the reaper, holds a pipe from this interpreter. If the
   interpreter dies without cleaning up (a killed Jupyter kernel, SIGKILL), the pipe
   closes and the reaper kills every process group still registered.
"""

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

STOP_GRACE_S = 5.0

_REAPER_CODE = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    op, pgid = line[0], int(line[1:])
    (groups.add if op == "+" else groups.discard)(pgid)
for sig in (signal.SIGTERM, signal.SIGKILL):
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass
    if sig == signal.SIGTERM and groups:
        time.sleep(%(grace)s)
"""


class _Reaper:
    """Kills registered process groups when this interpreter goes away uncleanly."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None

    def _pipe(self) -> IO[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _REAPER_CODE % {"grace": STOP_GRACE_S}],
                stdin=subprocess.PIPE,
                text=True,
                start_new_session=True,  # a terminal's Ctrl-C must not reach it
            )
        assert self._proc.stdin is not None
        return self._proc.stdin

    def _send(self, line: str) -> None:
        with self._lock:
            pipe = self._pipe()
            pipe.write(line + "\n")
            pipe.flush()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc and self._proc.poll() is None else None

    def watch(self, pgid: int) -> None:
        self._send(f"+{pgid}")

    def forget(self, pgid: int) -> None:
        self._send(f"-{pgid}")


_reaper = _Reaper()
_live: set["ManagedProcess"] = set()


class ManagedProcess:
    """A child process in its own process group, registered for cleanup until stopped."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        stdout: IO | None = None,
        stderr: IO | None = None,
        cpus: Sequence[int] | None = None,
    ):
        # taskset execs the command, so the pinned process keeps the PID we are given.
        self.argv = (["taskset", "-c", ",".join(map(str, cpus))] if cpus else []) + list(argv)
        self.popen = subprocess.Popen(
            self.argv,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        self.pid = self.popen.pid
        _live.add(self)
        _reaper.watch(self.pid)

    def running(self) -> bool:
        return self.popen.poll() is None

    def wait_with_usage(self, timeout_s: float | None = None) -> tuple[int, float]:
        """Wait for exit; return (exit code, CPU seconds the process itself used).

        ``os.wait4`` gives the exact user+system time of the finished child, which
        sampling cannot (the last sample is always missed). Raises TimeoutError if
        the process still runs after ``timeout_s``.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            pid, status, usage = os.wait4(self.pid, 0 if deadline is None else os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"pid {self.pid} still runs after {timeout_s:g} s: {self.argv}")
            time.sleep(0.05)
        self.popen.returncode = os.waitstatus_to_exitcode(status)
        self._forget()
        return self.popen.returncode, usage.ru_utime + usage.ru_stime

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """SIGTERM the whole group, SIGKILL it after ``grace_s``; idempotent."""
        if self not in _live:
            return
        for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, grace_s)):
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and _group_alive(self.pid):
                self.popen.poll()  # reap the leader so the group can empty
                time.sleep(0.02)
            if not _group_alive(self.pid):
                break
        self.popen.poll()
        self._forget()

    def _forget(self) -> None:
        if self in _live:
            _live.discard(self)
            _reaper.forget(self.pid)

    def __enter__(self) -> "ManagedProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _group_alive(pgid: int) -> bool:
    """True while any non-zombie process is in the group.

    ``killpg(pgid, 0)`` also succeeds for zombies, which an init that reaps slowly
    (as in some containers) can leave around for seconds after they died.
    """
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            return True
    return False


def watchdog_pid() -> int | None:
    """PID of the reaper, the one child meant to outlive a run (until this interpreter)."""
    return _reaper.pid


@atexit.register
def stop_all() -> None:
    """Stop every process still registered (interpreter exit, or a caller's finally)."""
    for proc in list(_live):
        proc.stop()
