"""Lesson 03's pure helpers: each mode's time per request as a line in the work, the
speed-up it predicts, and a busy server's bound."""

import pandas as pd
import pytest

from benchbook.course.exercises.fanout import (
    Cost,
    costs,
    saturated_rps,
    speedup,
    us_per_request,
)


def test_a_line_through_two_works() -> None:
    line = Cost.through((1000, 110.0), (10000, 470.0))
    assert line.per_unit_us == pytest.approx(0.04)
    assert line.fixed_us == pytest.approx(70.0)
    assert line.at(30000) == pytest.approx(1270.0)
    with pytest.raises(ValueError):
        Cost.through((10000, 470.0), (1000, 110.0))


def test_the_speed_up_tends_to_the_ratio_of_the_costs_per_unit() -> None:
    sequential, fanned_out = Cost(50.0, 0.04), Cost(80.0, 0.02)
    assert speedup(sequential, fanned_out, 1500) == pytest.approx(1.0)  # the crossover
    assert speedup(sequential, fanned_out, 10) < 1
    assert speedup(sequential, fanned_out, 10**9) == pytest.approx(2, rel=1e-3)


def rows(rps: dict[str, float], connections: int = 1) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "target": f"go-fanout {path}",
                "endpoint": path,
                "connections": connections,
                "rps": value,
            }
            for path, value in rps.items()
        ]  # fmt: skip
    )


def test_time_per_request_at_one_connection_is_one_over_the_rate() -> None:
    results = pd.concat([
        rows({"/sc/9?work=1000": 10000.0, "/cc/9?work=1000": 8000.0,
              "/sc/9?work=10000": 2000.0, "/cc/9?work=10000": 2500.0}),
        rows({"/sc/9?work=1000": 1.0}, connections=32),  # not one request at a time
    ])  # fmt: skip
    times = us_per_request(results)
    assert times[("sc", 1000)] == pytest.approx(100.0)
    assert times[("cc", 10000)] == pytest.approx(400.0)
    lines = costs(times, 1000, 10000)
    assert lines["sc"].per_unit_us == pytest.approx(0.4 / 9)
    assert speedup(lines["sc"], lines["cc"], 10000) == pytest.approx(1.25)
    with pytest.raises(ValueError, match="no rounds at 1 connection"):
        us_per_request(rows({"/sc/9?work=1000": 1.0}, connections=32))


def test_busy_cores_bound_the_rate() -> None:
    assert saturated_rps(2, 1.5) == pytest.approx(2 / 0.0015)
    with pytest.raises(ValueError):
        saturated_rps(0, 1.0)
