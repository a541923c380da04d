"""Servers start, are verified and stop; nothing outlives a run, however it ends."""

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from conftest import descendants

from benchbook.experiment import run_wrk_experiment
from benchbook.registry import Target
from benchbook.servers import (
    ServerStartError,
    VerificationError,
    build_server,
    start_server,
    verify_server,
)


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
        verify_server(server)
        pid = server.process.pid
    assert gone(pid)
    assert descendants() == []


def test_uvicorn_workers_are_stopped_with_their_master(registry, tmp_path) -> None:
    spec = registry.get("python-iodelay")
    params = spec.resolve_params({"workers": 2})
    target = Target("python-iodelay", "asyncio+h11")
    with start_server(spec, target, params, tmp_path / "s.log") as server:
        verify_server(server)
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
            verify_server(server)


def test_unverified_server_is_never_benchmarked(test_registry, runs_dir) -> None:
    with pytest.raises(VerificationError):
        run_wrk_experiment(
            "verify_test", ["wrong-path"], connections=2, threads=1, duration="1s",
            warmup="0s", repetitions=1, registry=test_registry,
        )  # fmt: skip
    (run,) = runs_dir.iterdir()
    assert not (run / "raw").exists() and not (run / "results.csv").exists()
    assert descendants() == []


RUNNER = textwrap.dedent(
    """
    from benchbook.experiment import run_wrk_experiment
    run_wrk_experiment("lifecycle", ["go-iodelay"], connections=4, threads=1,
                       duration="60s", warmup="0s", repetitions=1)
    """
)


def start_runner_until_wrk_runs() -> tuple[subprocess.Popen, list[psutil.Process]]:
    """A separate interpreter running an experiment, caught while wrk is loading."""
    runner = subprocess.Popen([sys.executable, "-c", RUNNER])
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            assert runner.poll() is None, "the runner ended before wrk started"
            children = psutil.Process(runner.pid).children(recursive=True)
            if any(_name(c) == "wrk" for c in children):
                return runner, children
            time.sleep(0.1)
        raise AssertionError("wrk never started")
    except BaseException:
        runner.kill()
        runner.wait()
        raise


def _name(proc: psutil.Process) -> str:
    try:
        return proc.name()
    except psutil.NoSuchProcess:  # e.g. the `go build` the runner started, now finished
        return ""


@pytest.mark.slow
def test_ctrl_c_stops_servers_and_wrk() -> None:
    runner, children = start_runner_until_wrk_runs()
    runner.send_signal(signal.SIGINT)
    assert runner.wait(timeout=30) != 0
    assert all(gone(c.pid) for c in children), [c.cmdline() for c in children]


@pytest.mark.slow
def test_killed_interpreter_leaves_nothing_behind() -> None:
    """SIGKILL, as when a Jupyter kernel dies: no Python code runs, the reaper acts."""
    runner, children = start_runner_until_wrk_runs()
    runner.send_signal(signal.SIGKILL)
    runner.wait(timeout=10)
    assert all(gone(c.pid, within_s=15) for c in children), [c.cmdline() for c in children]
