"""Knee and crossover detection on constructed curves."""

import pandas as pd

from benchbook.analyse.models.sweep import Curve, crossover


def test_knee_is_where_throughput_stops_growing_and_latency_keeps_rising() -> None:
    connections = [10, 50, 100, 200, 400]
    rps = [10_000, 40_000, 45_000, 46_000, 46_500]  # +12.5 % at 100, then < 5 %
    p99 = [1, 2, 4, 8, 16]
    assert Curve(connections, rps, p99).knee() == 100


def test_no_knee_while_throughput_still_grows() -> None:
    assert Curve([10, 50, 100], [10, 40, 80], [1, 2, 3]).knee() is None


def test_no_knee_when_latency_stops_rising() -> None:
    assert Curve([10, 50, 100], [10, 10.1, 10.2], [5, 5, 4]).knee() is None


def test_falling_throughput_is_a_peak_never_no_knee() -> None:
    # Notebook 01's uvloop+httptools sweep: 3,008 req/s at 50 connections, 1,863 at 800.
    curve = Curve([10, 50, 200, 800], [2_100.0, 3_008.0, 2_500.0, 1_863.0], [5, 20, 90, 700])
    assert curve.knee() == 50
    sentence = curve.sentence("uvloop")
    assert "peaks at 50 connections** (3,008 req/s) and **falls 38 %** by 800 (1,863" in sentence
    assert "no knee" not in sentence


def test_a_curve_still_rising_says_by_how_much() -> None:
    assert "still grows 100 % from 50 to 100 connections" in Curve(
        [10, 50, 100], [10.0, 40.0, 80.0], [1, 2, 3]
    ).sentence("go")


def comparison(rows: list[tuple[int, float, float, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["work", "cc/sc", "CI low", "verdict"]).set_index("work")


def test_crossover_is_the_first_work_from_which_a_wins_significantly() -> None:
    table = comparison(
        [(1, 0.9, 0.85, "cc lower"), (100, 1.02, 0.97, "no significant difference"),
         (1000, 1.3, 1.2, "cc higher"), (10000, 1.6, 1.5, "cc higher")]
    )  # fmt: skip
    assert crossover(table) == 1000


def test_no_crossover_when_a_later_point_falls_back() -> None:
    table = comparison([(1, 1.2, 1.1, "cc higher"), (100, 1.0, 0.9, "no significant difference")])
    assert crossover(table) is None


def test_a_sweep_table_reads_targets_as_met_and_levels_in_ascending_order() -> None:
    import numpy as np

    from benchbook.analyse.display.tables import in_reading_order

    rows = pd.DataFrame(
        {"target": ["b", "a", "b", "a", "b"], "connections": np.array([200, 10, 10, 200, 50])}
    )
    groups = in_reading_order(rows.groupby(["target", "connections"], sort=False), rows["target"])
    assert [keys for keys, _ in groups] == [("b", 10), ("b", 50), ("b", 200), ("a", 10), ("a", 200)]


def test_a_rise_or_a_fall_inside_the_rounds_spread_is_claimed_by_neither() -> None:
    """A stored sweep of notebook 01 (2026-11-26, 3 rounds a level): the fastest server's
    median went from 36,089 req/s at 200 connections to 38,826 at 800 (+8 %), but its
    rounds at 200 spanned 32,882–46,379, so it did not 'still grow'; and the knee is
    where its rises stop being larger than that spread."""
    connections = [10, 25, 50, 100, 200, 800]
    rps = [5_760.0, 13_228.0, 20_290.0, 34_956.0, 36_089.0, 38_826.0]
    low = [5_737.0, 13_052.0, 19_682.0, 32_293.0, 32_882.0, 37_018.0]
    high = [5_791.0, 13_495.0, 20_434.0, 35_752.0, 46_379.0, 42_233.0]
    p99 = [2.5, 3.6, 4.4, 6.6, 30.0, 76.0]
    medians_only = Curve(connections, rps, p99)
    assert "still grows 8 % from 200 to 800" in medians_only.sentence("go")
    curve = Curve(connections, rps, p99, low, high)
    assert "still grows" not in curve.sentence("go") and curve.knee() == 100
    # A fall inside the spread is no peak either: the same rounds, the last level lower.
    falling = Curve(
        connections, rps[:-1] + [33_000.0], p99, low[:-1] + [31_000.0], high[:-1] + [34_000.0]
    )
    assert not falling.falls_after_peak and "peaks at" not in falling.sentence("go")
