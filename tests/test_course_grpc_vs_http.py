"""Lesson 05's exercise models, without servers (tests/test_course_exercises.py measures)."""

import pytest

from benchbook.course.exercises import grpc_vs_http as lesson


def test_a_delay_per_call_divides_the_calls_in_flight_by_the_longer_cycle() -> None:
    assert lesson.delayed_rate(8, 0.0001, 0.04) == pytest.approx(8 / 0.0401)
    assert lesson.delayed_rate(1, 0.001, 0.0) == pytest.approx(1000)


def test_the_bound_is_littles_law_until_the_core_is_full() -> None:
    # 1 ms per call at 1 in flight, 0.25 ms of CPU per call: full from 4 in flight on.
    assert lesson.bounded_rate(2, 0.001, 0.00025) == pytest.approx(2000)
    assert lesson.bounded_rate(4, 0.001, 0.00025) == pytest.approx(4000)
    assert lesson.bounded_rate(8, 0.001, 0.00025) == pytest.approx(4000)


@pytest.mark.parametrize(
    ("in_flight", "time_s", "other_s"), [(0, 0.001, 0.001), (1, 0.0, 0.001), (1, 0.001, 0.0)]
)
def test_the_bound_refuses_nonsense(in_flight: int, time_s: float, other_s: float) -> None:
    with pytest.raises(ValueError):
        lesson.bounded_rate(in_flight, time_s, other_s)


@pytest.mark.parametrize(("time_s", "delay_s"), [(-0.001, 0.04), (0.001, -0.04), (0.0, 0.0)])
def test_the_delayed_rate_refuses_nonsense(time_s: float, delay_s: float) -> None:
    with pytest.raises(ValueError):
        lesson.delayed_rate(8, time_s, delay_s)


def test_ghz_gets_enough_calls_for_the_exercise_duration() -> None:
    assert lesson.ghz_calls("5s", 3000) == 15000
    assert lesson.ghz_calls("1s") == lesson.GHZ_CALLS_PER_S
    assert lesson.ghz_calls("100ms", 1) == 1


def test_each_exercise_names_its_variable_and_unit() -> None:
    assert [(e.key, e.variable, e.unit) for e in lesson.EXERCISES] == [
        ("05.delayed_ack", "delayed_ack_rps", "req/s"),
        ("05.core_bound", "saturated_calls_per_s", "calls/s"),
    ]
