"""Child processes that never outlive their run.

Every server and load tool is started in its own process group (so a uvicorn master
and its workers are stopped together) and stopped with SIGTERM, then SIGKILL. Three
layers make sure that happens:

1. ``with`` blocks stop processes on success, on exceptions and on Ctrl-C
   (KeyboardInterrupt unwinds through them);
2. an ``atexit`` hook stops anything still registered when the interpreter exits;
3. a watchdog process, the reaper, holds a pipe from this interpreter. If the
   interpreter dies without cleaning up (a killed Jupyter kernel, SIGKILL), the pipe
   closes and the reaper kills every process group still registered, then deletes the
   network namespaces still registered (measure/hosts: a run's server and load hosts).
"""

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Protocol

STOP_GRACE_S = 5.0
# After a load tool's leader exits, how long children it forked (Locust --processes)
# get to exit on their own before they are stopped.
STRAGGLER_GRACE_S = 2.0

# "+pgid"/"-pgid" watch or forget a process group, "N<name>"/"n<name>" a namespace.
_REAPER_CODE = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups, namespaces = set(), set()
for line in sys.stdin:
    op, arg = line[0], line[1:].strip()
    if op in "+-":
        (groups.add if op == "+" else groups.discard)(int(arg))
    else:
        (namespaces.add if op == "N" else namespaces.discard)(arg)
for sig in (signal.SIGTERM, signal.SIGKILL):
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass
    if sig == signal.SIGTERM and groups:
        time.sleep(%(grace)s)
for name in namespaces:  # after its processes: their links go with it
    subprocess.run(["ip", "netns", "delete", name], capture_output=True)
"""


class _Reaper:
    """Kills registered process groups when this interpreter goes away uncleanly."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._watched: set[str] = set()  # lines a respawned reaper must be told again

    def _pipe(self) -> IO[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _REAPER_CODE % {"grace": STOP_GRACE_S}],
                stdin=subprocess.PIPE,
                text=True,
                start_new_session=True,  # a terminal's Ctrl-C must not reach it
            )
            assert self._proc.stdin is not None
            for line in self._watched:
                self._proc.stdin.write(line + "\n")
        assert self._proc.stdin is not None
        return self._proc.stdin

    def _send(self, line: str) -> None:
        with self._lock:
            if line[0] in "+N":
                self._watched.add(line)
            else:
                self._watched.discard(("+" if line[0] == "-" else "N") + line[1:])
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

    def watch_namespace(self, name: str) -> None:
        self._send(f"N{name}")

    def forget_namespace(self, name: str) -> None:
        self._send(f"n{name}")


_reaper = _Reaper()
_live: set["ManagedProcess"] = set()


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold a Ctrl-C back until the block ends, so that a child is never started
    without being registered for cleanup. Signal handlers can only be changed in the
    main thread; elsewhere Ctrl-C cannot arrive (Python delivers it to the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received and callable(previous):
            previous(signal.SIGINT, None)  # e.g. raise KeyboardInterrupt, now
        elif received and previous == signal.SIG_DFL:
            signal.raise_signal(signal.SIGINT)


class ProcessHost(Protocol):
    """Another machine that ManagedProcess starts its commands on (hosts.remote): the
    local command that runs ``argv`` there (its process group stops with the local one),
    a port free there, this machine's 127.0.0.1:``port`` made to reach it, and the CPU
    and memory sampler of a process there."""

    def command(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path | None
    ) -> list[str]: ...

    def free_port(self) -> int: ...

    def reach(self, port: int) -> None: ...

    def sampler(self, process: "ManagedProcess") -> object: ...  # like sampling.TreeSampler


_host: ContextVar[ProcessHost | None] = ContextVar("benchbook_process_host", default=None)


@contextmanager
def processes_on(host: ProcessHost | None) -> Iterator[None]:
    """Every ManagedProcess started in this block runs on ``host`` (None: this machine,
    e.g. a load tool started while the servers' host is another)."""
    token = _host.set(host)
    try:
        yield
    finally:
        _host.reset(token)


def current_host() -> ProcessHost | None:
    """The host processes start on now (None: this machine)."""
    return _host.get()


def reach(port: int) -> None:
    """Make 127.0.0.1:``port`` here reach the process just started on the current host
    (nothing to do on this machine)."""
    if (host := _host.get()) is not None:
        host.reach(port)


class DeadlineExceeded(RuntimeError):
    """A process ran past its deadline and was stopped."""


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
        self.name = Path(argv[0]).name  # what messages call it (not taskset)
        # taskset execs the command, so the pinned process keeps the PID we are given.
        self.argv = (["taskset", "-c", ",".join(map(str, cpus))] if cpus else []) + list(argv)
        # On another host the command runs there (unpinned: its CPUs are not ours to
        # split), and here only the connection to it, in its place.
        self.host = _host.get()
        name = getattr(stdout, "name", None)  # an open file's path (a TemporaryFile's is an fd)
        self.log_path = Path(name) if isinstance(name, str) else None
        if self.host is not None:
            self.argv = self.host.command(argv, env or {}, cwd)
            cwd, env = None, None
        self.started = time.monotonic()  # what a deadline message counts from
        with sigint_deferred():
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

    def wait_with_usage(self, timeout_s: float) -> tuple[int, float]:
        """Wait for exit; return (exit code, CPU seconds the process and the children
        it reaped used).

        ``os.wait4`` gives the exact user+system time of the finished child, which
        sampling cannot (the last sample is always missed). Every wait has a deadline:
        past ``timeout_s`` the whole group is stopped and DeadlineExceeded raised. Children
        the leader leaves behind get STRAGGLER_GRACE_S to exit, then are stopped too.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                ran_s = time.monotonic() - self.started  # not the wait's: it began later
                self.stop()
                raise DeadlineExceeded(
                    f"{self.name} (pid {self.pid}) still ran {ran_s:.1f} s after it "
                    f"started, so it was stopped: {' '.join(self.argv)}"
                )
            time.sleep(0.05)
        self.popen.returncode = os.waitstatus_to_exitcode(status)
        stragglers_gone = time.monotonic() + STRAGGLER_GRACE_S
        while _group_alive(self.pid) and time.monotonic() < stragglers_gone:
            time.sleep(0.05)
        self.stop()  # forgets the group; stops whatever of it is still running
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


def reap_namespace_if_orphaned(name: str, forget: bool = False) -> None:
    """Have the reaper delete network namespace ``name`` if this interpreter dies first
    (``forget``: it was deleted in an orderly way)."""
    (_reaper.forget_namespace if forget else _reaper.watch_namespace)(name)


def watchdog_pid() -> int | None:
    """PID of the reaper, the one child meant to outlive a run (until this interpreter)."""
    return _reaper.pid


@atexit.register
def stop_all() -> None:
    """Stop every process still registered (interpreter exit, or a caller's finally)."""
    for proc in list(_live):
        proc.stop()
