"""CPU sampling of real process trees: exact when it works, an error when it cannot be."""

import subprocess
import threading
import time

import psutil
import pytest

from benchbook.measure.sampling import SamplerError, TreeSampler, cpu_seconds_between


def busy_process() -> subprocess.Popen:
    return subprocess.Popen(["python3", "-c", "while True: pass"])


def test_a_busy_process_uses_about_one_core() -> None:
    proc = busy_process()
    try:
        with TreeSampler(proc.pid) as sampler:
            time.sleep(1.0)
        start, end = sampler.cpu_timeline[1][0], sampler.cpu_timeline[-2][0]
        assert 0.5 < cpu_seconds_between(sampler.cpu_timeline, start, end) / (end - start) <= 1.05
    finally:
        proc.kill()
        proc.wait()


def test_a_sampler_that_stopped_early_is_an_error_not_a_low_number(monkeypatch) -> None:
    proc = busy_process()
    original = psutil.Process.children
    calls = []

    def fails_in_the_sampler(self: psutil.Process, recursive: bool = False):
        # psutil failing mid-run in the sampling thread (a /proc that became unreadable)
        if threading.current_thread() is not threading.main_thread():
            calls.append(1)
            if len(calls) > 3:
                raise OSError("/proc went away")
        return original(self, recursive=recursive)

    monkeypatch.setattr(psutil.Process, "children", fails_in_the_sampler)
    try:
        with pytest.raises(SamplerError, match="stopped early: OSError"):
            with TreeSampler(proc.pid):
                time.sleep(1.0)
    finally:
        proc.kill()
        proc.wait()


def test_a_stretch_the_samples_do_not_cover_is_refused() -> None:
    timeline = [(100.0, 1.0), (101.0, 2.0), (102.0, 3.0)]
    assert cpu_seconds_between(timeline, 100.5, 101.5) == pytest.approx(1.0)
    with pytest.raises(SamplerError, match="not the stretch 100.0–110.0"):
        cpu_seconds_between(timeline, 100.0, 110.0)
