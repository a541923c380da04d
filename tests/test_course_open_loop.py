"""Lesson 06's exercise models, without servers: the stall a closed loop's p90 hides, the
queues' p99 at ρ = 0.8, and the teacher's solutions computing what the models compute."""

import math

import nbformat
import pandas as pd
import pytest

from benchbook.analyse.models import queueing as q
from benchbook.course.exercises import open_loop as ex
from benchbook.runs.layout import REPO_ROOT


def test_an_open_loop_p90_shows_p_minus_a_tenth_of_t_that_a_closed_loop_p90_hides() -> None:
    # 50 ms every 250 ms: 20 % of scheduled requests wait, the p90 one 50 − 25 ms
    assert ex.hidden_stall_ms(0.05, 0.25, closed_stalled=0.05) == pytest.approx(25)


def test_a_pause_too_short_for_the_percentile_hides_nothing() -> None:
    # 50 ms every 1 s: 5 % of requests wait, so the p90 of either loop is its fast path
    assert ex.hidden_stall_ms(0.05, 1.0, closed_stalled=0.01) == 0


def test_a_closed_loop_whose_stalled_share_passes_the_percentile_shows_the_pause_too() -> None:
    # one request in five of the closed loop's met a pause: its p90 shows about all of it
    assert ex.hidden_stall_ms(0.05, 0.25, closed_stalled=0.2) == pytest.approx(25 - 50)


def test_the_anchored_p99_adds_the_queues_growth_to_the_latency_without_queueing() -> None:
    mu, unloaded = 10_000.0, 1.5  # S = 0.1 ms
    growth = 1000 * -math.log(0.01) * (1 / mu) * (1 / (1 - 0.8) - 1)  # −ln(0.01)·S/(1 − ρ)
    assert ex.anchored_p99_ms(q.mm1_response_quantile, 0.8, mu, unloaded) == pytest.approx(
        unloaded + growth
    )
    # constant service queues less: M/D/1 lies between the idle latency and M/M/1
    md1 = ex.anchored_p99_ms(q.md1_response_quantile, 0.8, mu, unloaded)
    assert unloaded < md1 < unloaded + growth


def test_the_p99_at_a_rate_is_the_median_of_its_rounds_and_an_unmeasured_rate_is_named() -> None:
    results = pd.DataFrame(
        {"target_rate": [100.0, 100.0, 100.0, 800.0], "lat_p99_ms": [1, 3, 2, 9]}
    )
    assert ex.p99_at(results, 100.0) == 2
    with pytest.raises(ValueError, match=r"no rounds at 500 req/s; measured: \[100.0, 800.0\]"):
        ex.p99_at(results, 500.0)


def solution(variable: str) -> str:
    """The teacher's solution cell of notebook 06 that sets ``variable``."""
    cells = nbformat.read(REPO_ROOT / "notebooks" / f"{ex.NOTEBOOK}.ipynb", as_version=4).cells
    (found,) = [c.source for c in cells if c.source.startswith(f"{variable} = None  #")]
    return found


def test_the_coordinated_omission_solution_is_the_models_number() -> None:
    exercise = ex.EXERCISES[0]
    names: dict[str, object] = {}
    exec(solution(exercise.variable), names)
    model = ex.hidden_stall_ms(ex.PAUSE_MS / 1000, ex.PERIOD_MS / 1000, closed_stalled=0.05)
    assert names[exercise.variable] == pytest.approx(model)


@pytest.mark.parametrize(("number", "rho"), [(1, 0.5), (2, 0.8)])
def test_each_queue_solution_is_m_m_1_anchored_at_the_lowest_rates_p99(
    number: int, rho: float
) -> None:
    exercise = ex.EXERCISES[number]
    assert f"rho_{100 * rho:.0f}" in exercise.key
    mu = 10_000.0
    load_results = pd.DataFrame(
        {
            "target": ["python-hello"] * 3 + ["go-hello"],
            "target_rate": [1000.0, 1000.0, 8000.0, 500.0],
            "lat_p99_ms": [1.2, 1.4, 9.0, 0.1],
        }
    )
    names: dict[str, object] = {"maxima": {ex.QUEUE_SERVER: mu}, "load_results": load_results}
    exec(solution(exercise.variable), names)
    model = ex.anchored_p99_ms(q.mm1_response_quantile, rho, mu, unloaded_ms=1.3)
    assert names[exercise.variable] == pytest.approx(model)
