"""Ctrl-C in the middle of a load leaves nothing running, whichever tool was loading.

tests/test_lifecycle.py covers wrk and tests/test_shortener.py Redis; here Locust with
distributed workers, vegeta, ghz and a compiled `go test -bench` binary, each started by
its own run function in a child interpreter (tests/interrupt_runner.py) against a real
server. Every process the runner starts inherits a token in its environment, so what is
left is found wherever it was reparented, not only among the runner's children. The
runner's reaper is held still (SIGSTOP) while it handles the Ctrl-C, so the tool and the
server must be gone when the runner exits, by its own cleanup; then nothing at all is left.
"""

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from conftest import RUNNER_START_S, descendants

RUNNER = Path(__file__).with_name("interrupt_runner.py")
TOKEN = "BENCHBOOK_INTERRUPT_TEST"
LOADING_S = 1.0  # how long the tool loads the server before the Ctrl-C
EXIT_S = 60  # the runner stops a tool (SIGTERM, then SIGKILL after 5 s) and its server


def _cmdline(proc: psutil.Process) -> list[str]:
    try:
        return proc.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return []


def _running(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _is(name: str, *args: str) -> Callable[[psutil.Process], bool]:
    """A process whose program is ``name`` and whose command line holds ``args``."""

    def matches(proc: psutil.Process) -> bool:
        argv = _cmdline(proc)
        return bool(argv) and Path(argv[0]).name == name and all(a in argv for a in args)

    return matches


def _locust(role: str) -> Callable[[psutil.Process], bool]:
    return lambda proc: "locust" in _cmdline(proc) and role in _cmdline(proc)


# The tool's processes, as (what to look for, how many) pairs.
TOOLS = {
    "locust-workers": [(_locust("--master"), 1), (_locust("--worker"), 2)],
    "vegeta": [(_is("vegeta", "attack"), 1)],
    "ghz": [(_is("ghz"), 1)],
    "gobench": [(_is("bench.test", "-test.bench"), 1)],
}


def marked(token: str) -> list[psutil.Process]:
    """Every live process carrying ``token`` in its environment: what the runner started."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(TOKEN) == token and _running(proc):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


def _default_sigint() -> None:
    """In the runner, before exec: a background job starts with SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[Callable[[str], tuple[subprocess.Popen, str]]]:
    """Starts the runner for a tool, its output in files (a pipe would stay open as long
    as the reaper it starts lives); whatever a failed test leaves is killed, so one
    failure stays one failure."""
    started: list[tuple[subprocess.Popen, str]] = []

    def start(tool: str) -> tuple[subprocess.Popen, str]:
        token = secrets.token_hex(8)
        with open(tmp_path / "runner.out", "wb") as out, open(tmp_path / "runner.err", "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, str(RUNNER), tool, str(tmp_path)],
                env={**os.environ, TOKEN: token}, preexec_fn=_default_sigint,
                stdout=out, stderr=err,
            )  # fmt: skip
        started.append((proc, token))
        return proc, token

    yield start
    for proc, token in started:
        proc.kill()
        proc.wait()
        for left in marked(token):
            with contextlib.suppress(psutil.NoSuchProcess):
                left.kill()  # SIGKILL: also ends a process held still with SIGSTOP


def stderr_of(tmp_path: Path) -> str:
    return (tmp_path / "runner.err").read_text(errors="replace")


def wait_for_tool(proc: subprocess.Popen, tool: str, tmp_path: Path) -> None:
    """Until every process of the tool runs under the runner (it may build first)."""
    deadline = time.monotonic() + RUNNER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the runner ended before {tool} ran:\n{stderr_of(tmp_path)}")
        children = psutil.Process(proc.pid).children(recursive=True)
        if all(sum(map(wanted, children)) >= n for wanted, n in TOOLS[tool]):
            return
        time.sleep(0.1)
    raise AssertionError(f"{tool} never started")


def is_reaper(proc: psutil.Process) -> bool:
    """The runner's watchdog (benchbook.measure.processes), which kills whatever is still
    registered once the runner is gone."""
    argv = _cmdline(proc)
    return len(argv) > 2 and argv[1] == "-c" and "os.killpg" in argv[2]


def gone_within(token: str, seconds: float) -> list[psutil.Process]:
    deadline = time.monotonic() + seconds
    while (left := marked(token)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.mark.slow
@pytest.mark.parametrize("tool", list(TOOLS))
def test_ctrl_c_mid_load_stops_the_tool_and_the_server(runner, tool: str, tmp_path) -> None:
    proc, token = runner(tool)
    wait_for_tool(proc, tool, tmp_path)
    time.sleep(LOADING_S)
    assert proc.poll() is None, f"{tool} ended before the Ctrl-C"
    started = marked(token)
    # The runner itself, its server, the tool (with its workers) and the reaper.
    (reaper,) = [p for p in started if is_reaper(p)]
    assert len(started) >= 4, list(map(_cmdline, started))
    # Held still, so that what stops the tool and the server can only be the runner's own
    # cleanup: the reaper, which kills what is left once the runner is gone, is a last
    # resort, not the way out of a Ctrl-C.
    reaper.suspend()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=EXIT_S)
    # An uncaught KeyboardInterrupt: Python ends itself with SIGINT, as the shell expects.
    assert proc.returncode == -signal.SIGINT, stderr_of(tmp_path)[-3000:]
    assert "KeyboardInterrupt" in stderr_of(tmp_path)
    stopped_late = [p for p in started if _running(p) and p.pid != reaper.pid]
    assert stopped_late == [], [_cmdline(p) for p in stopped_late]
    reaper.resume()
    left = gone_within(token, 15)
    assert left == [], [_cmdline(p) for p in left]
    assert descendants() == []
