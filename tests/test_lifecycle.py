"""Servers start, are verified and stop; nothing outlives a run, however it ends."""

import contextlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from conftest import RUNNER_START_S, descendants, loading_wrk

from benchbook import measure
from benchbook.measure.processes import DeadlineExceeded, ManagedProcess, sigint_deferred
from benchbook.measure.registry import Target
from benchbook.measure.servers import ServerStartError, build_server, start_server
from benchbook.measure.tools import wrk
from benchbook.measure.tools.base import LoadToolError
from benchbook.measure.verification import VerificationError, verify

pytestmark = pytest.mark.slow  # real servers and load tools, started and stopped


def start(registry, name: str, tmp_path: Path, variant: str | None = None):
    spec = registry.get(name)
    build_server(spec)
    return start_server(spec, Target(name, variant), spec.resolve_params({}), tmp_path / "s.log")


def gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("variant", ["asyncio+h11", "uvloop+httptools"])
def test_python_server_starts_verifies_and_stops(registry, tmp_path, variant) -> None:
    with start(registry, "python-iodelay", tmp_path, variant) as server:
        verify(server.port, server.spec, server.target.label)
        pid = server.process.pid
    assert gone(pid)
    assert descendants() == []


def test_uvicorn_workers_are_stopped_with_their_master(registry, tmp_path) -> None:
    spec = registry.get("python-iodelay")
    params = spec.resolve_params({"workers": 2})
    target = Target("python-iodelay", "asyncio+h11")
    with start_server(spec, target, params, tmp_path / "s.log") as server:
        verify(server.port, server.spec, server.target.label)
        workers = psutil.Process(server.process.pid).children(recursive=True)
        assert len(workers) >= 2
    assert all(gone(w.pid) for w in workers)


def test_exception_inside_the_run_stops_the_server(registry, tmp_path) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        with start(registry, "go-iodelay", tmp_path) as server:
            pid = server.process.pid
            raise RuntimeError("boom")
    assert gone(pid)
    assert descendants() == []


def test_server_that_cannot_start_reports_its_stderr(test_registry, tmp_path) -> None:
    with pytest.raises(ServerStartError) as err:
        start(test_registry, "go-bad-flag", tmp_path)
    assert 'invalid value "banana" for flag -delay' in str(err.value)
    assert "exited with code 2" in str(err.value)
    assert descendants() == []


def test_server_answering_404_fails_verification(test_registry, tmp_path) -> None:
    with start(test_registry, "wrong-path", tmp_path) as server:
        with pytest.raises(VerificationError, match="GET /missing: status 404, expected 200"):
            verify(server.port, server.spec, server.target.label)


def test_unverified_server_is_never_benchmarked(test_registry, runs_dir) -> None:
    with pytest.raises(VerificationError):
        measure.run(
            measure.Experiment(
                "verify_test",
                ["wrong-path"],
                measure.tool("wrk", connections=2, threads=1, duration="1s"),
                warmup="0s",
                repetitions=1,
            ),
            registry=test_registry,
        )
    (run,) = runs_dir.iterdir()
    assert not (run / "raw").exists() and not (run / "results.csv").exists()
    assert descendants() == []


RUNNER = textwrap.dedent(
    """
    from benchbook import measure
    wrk = measure.tool("wrk", connections=4, threads=1, duration="60s")
    measure.run(measure.Experiment("lifecycle", ["go-iodelay"], wrk, warmup="0s", repetitions=1))
    """
)


def _default_sigint() -> None:
    """In the runner, before exec: a background job (nohup, many CI runners) starts
    with SIGINT ignored, and a Python started so never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def runners() -> Iterator[Callable[[str], subprocess.Popen]]:
    """Starts runner interpreters; whatever a failed test leaves of them (the runner and
    every process under it) is killed, so one failure stays one failure."""
    started: list[subprocess.Popen] = []

    def start(code: str) -> subprocess.Popen:
        runner = subprocess.Popen(
            [sys.executable, "-c", code], preexec_fn=_default_sigint, stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        started.append(runner)
        return runner

    yield start
    for runner in started:
        try:
            leftovers = psutil.Process(runner.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            leftovers = []
        runner.kill()
        runner.wait()
        for proc in leftovers:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.kill()


def start_runner_until_wrk_runs(
    start: Callable[[str], subprocess.Popen],
) -> tuple[subprocess.Popen, list[psutil.Process]]:
    """A separate interpreter running an experiment, caught while wrk is loading."""
    runner = start(RUNNER)
    deadline = time.monotonic() + RUNNER_START_S
    while time.monotonic() < deadline:
        assert runner.poll() is None, "the runner ended before wrk started"
        children = psutil.Process(runner.pid).children(recursive=True)
        if any(loading_wrk(c) for c in children):
            return runner, children
        time.sleep(0.1)
    raise AssertionError("wrk never started")


@pytest.mark.slow
def test_ctrl_c_stops_servers_and_wrk(runners) -> None:
    runner, children = start_runner_until_wrk_runs(runners)
    runner.send_signal(signal.SIGINT)
    assert runner.wait(timeout=30) != 0
    assert all(gone(c.pid) for c in children), [c.cmdline() for c in children]


@pytest.mark.slow
def test_killed_interpreter_leaves_nothing_behind(runners) -> None:
    """SIGKILL, as when a Jupyter kernel dies: no Python code runs, the reaper acts."""
    runner, children = start_runner_until_wrk_runs(runners)
    runner.send_signal(signal.SIGKILL)
    runner.wait(timeout=10)
    assert all(gone(c.pid, within_s=15) for c in children), [c.cmdline() for c in children]


RESPAWN = textwrap.dedent(
    """
    import os, signal
    from benchbook.measure.processes import ManagedProcess, watchdog_pid
    first = ManagedProcess(["sleep", "300"])
    os.kill(watchdog_pid(), signal.SIGKILL)  # the reaper dies (OOM killer, say)
    os.waitpid(watchdog_pid(), 0)
    second = ManagedProcess(["sleep", "300"])  # a new reaper is started
    print(first.pid, second.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_a_respawned_reaper_still_stops_the_groups_started_before_it(runners) -> None:
    runner = runners(RESPAWN)
    pids = [int(pid) for pid in runner.stdout.readline().split()]
    runner.wait(timeout=10)
    assert len(pids) == 2 and all(gone(pid, within_s=15) for pid in pids)


def test_children_a_finished_tool_leaves_behind_are_stopped() -> None:
    # The leader exits at once; the child it forked (as Locust's --processes forks
    # workers) would run on, unwatched.
    proc = ManagedProcess(["sh", "-c", "sleep 300 & echo $!; exit 0"], stdout=subprocess.PIPE)
    child = int(proc.popen.stdout.readline())
    code, _ = proc.wait_with_usage(timeout_s=30)
    assert code == 0 and gone(child, within_s=1)


def test_a_tool_past_its_deadline_is_stopped_and_named() -> None:
    proc = ManagedProcess(["sleep", "300"])
    with pytest.raises(DeadlineExceeded, match=r"sleep \(pid \d+\) still ran 0.5 s after"):
        proc.wait_with_usage(timeout_s=0.5)
    assert gone(proc.pid)


def test_ctrl_c_while_a_child_starts_waits_until_it_is_registered() -> None:
    # Python's own Ctrl-C handler, even when pytest runs as a background job (which
    # starts with SIGINT ignored).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with sigint_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.2)  # a KeyboardInterrupt would have been raised here
                reached = True
    finally:
        signal.signal(signal.SIGINT, previous)
    assert reached


@pytest.mark.slow
def test_a_hung_wrk_is_stopped_at_its_deadline_and_the_message_says_so(monkeypatch) -> None:
    monkeypatch.setattr(wrk, "DEADLINE_GRACE_S", 1.0)  # deadline: 1 s run + 1 s timeout + 1

    run_over = threading.Event()

    def freeze_wrk() -> None:  # SIGSTOP: a real wrk that never finishes
        # Watch until the run is over, not for a fixed time: on a clean clone the run may
        # first build the server, or wait for the machine lock, longer than any guess.
        while not run_over.is_set():
            for proc in psutil.Process().children(recursive=True):
                if loading_wrk(proc):
                    proc.suspend()
                    return
            time.sleep(0.05)

    freezer = threading.Thread(target=freeze_wrk)
    freezer.start()
    try:
        with pytest.raises(
            LoadToolError, match=r"still ran ([\d.]+) s after it started, so it was stopped"
        ) as late:
            measure.run(
                measure.Experiment(
                    "hung_tool",
                    ["go-hello"],
                    measure.tool("wrk", connections=2, threads=1, duration="1s", timeout="1s"),
                    warmup="0s",
                    repetitions=1,
                )
            )
    finally:
        run_over.set()
    # The seconds said are those since wrk started: its 3 s deadline and the moments the
    # harness took to notice (a wait polls every 50 ms), never the wait's own share.
    said = float(re.search(r"still ran ([\d.]+) s", str(late.value)).group(1))
    assert 3 <= said < 5, str(late.value)
    freezer.join()
    assert descendants() == []
