"""Lesson 02's pure helpers: Amdahl's law and the share p it takes, from a profile or from
CPU time per request."""

import math
from pathlib import Path

import pandas as pd
import pytest

from benchbook.course.exercises.hello_world import amdahl_speedup, cpu_share_saved, profile_share
from benchbook.course.exercises.measuring import paired_ratio


def test_removing_a_fifth_of_the_time_speeds_up_by_a_quarter() -> None:
    assert amdahl_speedup(0.2) == pytest.approx(1.25)
    assert amdahl_speedup(0.0) == 1.0


def test_a_share_made_faster_rather_than_removed() -> None:
    # half the time on two cores: 1 / (0.5 + 0.25)
    assert amdahl_speedup(0.5, 2) == pytest.approx(4 / 3)
    assert amdahl_speedup(0.5, math.inf) == pytest.approx(2)


@pytest.mark.parametrize(("share", "factor"), [(1.0, math.inf), (-0.1, math.inf), (0.2, 0)])
def test_impossible_shares_and_factors_are_refused(share: float, factor: float) -> None:
    with pytest.raises(ValueError):
        amdahl_speedup(share, factor)


def test_the_share_saved_from_cpu_time_per_request() -> None:
    assert cpu_share_saved(0.1, 0.08) == pytest.approx(0.2)
    assert cpu_share_saved(0.1, 0.12) == 0.0  # slower without: nothing saved
    assert amdahl_speedup(cpu_share_saved(0.1, 0.08)) == pytest.approx(0.1 / 0.08)
    with pytest.raises(ValueError):
        cpu_share_saved(0, 0.1)


def profiled_run(tmp_path: Path, stacks: str, target: str = "python-hello") -> Path:
    """A run folder whose profiled phase holds ``stacks`` (folded) for ``target``."""
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / f"{target}.folded").write_text(stacks)
    (tmp_path / "profiled.csv").write_text(
        f"target,server,folded,svg\n{target},{target},profiles/{target}.folded,\n"
    )
    return tmp_path


def test_the_logging_share_comes_from_the_profile_without_start_up(tmp_path: Path) -> None:
    stacks = "\n".join([
        "<module> (<frozen importlib._bootstrap>) 50",  # start-up: left out
        "run (asyncio/runners.py);info (logging/__init__.py) 20",
        "run (asyncio/runners.py);handle (uvicorn/protocols/http/httptools_impl.py) 80",
    ])  # fmt: skip
    run = profiled_run(tmp_path, stacks)
    assert profile_share(run, "python-hello", "logging") == pytest.approx(0.2)
    assert profile_share(run, "python-hello", "storage client") == 0.0


def test_no_profile_gives_no_share(tmp_path: Path) -> None:
    assert profile_share(tmp_path, "python-hello", "logging") is None
    run = profiled_run(tmp_path, "<module> (<frozen importlib._bootstrap>) 5")
    assert profile_share(run, "python-hello", "logging") is None  # start-up only
    assert profile_share(run, "go-hello", "logging") is None


def test_a_paired_ratio_cancels_what_drifts_between_rounds() -> None:
    # round 2 ran on a slower machine: both halves slowed, their ratio did not
    results = pd.DataFrame(
        [(1, "off", 120.0), (1, "on", 100.0), (2, "off", 60.0), (2, "on", 50.0),
         (3, "off", 121.0), (3, "on", 100.0)],
        columns=["repetition", "target", "rps"],
    )  # fmt: skip
    assert paired_ratio(results, "off", "on", "rps") == pytest.approx(1.2)
    with pytest.raises(ValueError, match="no rounds of 'nope'"):
        paired_ratio(results, "nope", "on", "rps")
