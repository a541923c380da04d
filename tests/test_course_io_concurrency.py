"""Lesson 01's pure model helpers: the asymptotic bounds, their knee, and how long each
level of the exercise's short sweep runs."""

import pytest

from benchbook.course.exercises.io_concurrency import knee, level_duration, throughput_bound


def test_below_the_knee_littles_law_bounds_the_rate() -> None:
    # 2 connections, 0.25 ms of CPU and 1 ms of wait each: 2 / 1.25 ms
    assert throughput_bound(2, 0.00025, 0.001) == pytest.approx(1600)


def test_past_the_knee_the_core_bounds_the_rate() -> None:
    assert throughput_bound(50, 0.00025, 0.001) == pytest.approx(4000)  # 1 / 0.25 ms


def test_the_two_bounds_meet_at_the_knee() -> None:
    demand, wait = 0.00025, 0.001
    at = knee(demand, wait)
    assert at == pytest.approx(5)
    assert at / (demand + wait) == pytest.approx(1 / demand)


def test_without_a_wait_the_knee_is_one_connection() -> None:
    assert knee(0.001, 0) == 1


@pytest.mark.parametrize(
    ("connections", "demand", "wait"), [(0, 0.001, 0.001), (1, 0, 0.001), (1, 0.001, -1)]
)
def test_a_bound_of_nonsense_is_an_error(connections: int, demand: float, wait: float) -> None:
    with pytest.raises(ValueError):
        throughput_bound(connections, demand, wait)


@pytest.mark.parametrize(
    ("duration", "levels", "expected"), [("5s", 5, "3s"), ("1s", 5, "1s"), ("10s", 5, "6s")]
)
def test_a_sweep_of_five_levels_takes_about_three_runs(
    duration: str, levels: int, expected: str
) -> None:
    assert level_duration(duration, levels) == expected
