"""A notebook's "Models" section: the fits, tables, charts and sentences in order, and a
sentence instead of a failure when the sweep or the load is too small to fit."""

import pandas as pd
from matplotlib.figure import Figure
from test_usl import rows

from benchbook.analyse.models import sections, usl


def text(shown: list[object]) -> str:
    return " ".join(item.data for item in shown if isinstance(getattr(item, "data", None), str))


def test_a_sweep_of_two_levels_says_it_cannot_be_fitted() -> None:
    sweep = rows([2, 8], lambda n: 100.0 * n, rounds=1)
    models = sections.fit_sweep(sweep, [("srv", "srv")], 8)
    assert models.fits == {}
    (only,) = sections.usl_section(models)
    assert only.data.startswith("No fit: this sweep measured 2 concurrency level(s)")


def test_a_sweep_gives_curves_a_table_sentences_and_a_ratio_per_pair() -> None:
    levels = [5, 10, 25, 50, 100, 200]
    fast = rows(levels, lambda n: usl.throughput(n, 1000.0, 0.01, 1e-5), target="go")
    slow = rows(levels, lambda n: usl.throughput(n, 700.0, 0.08, 1e-4), target="py", seed=2)
    sweep = pd.concat([fast, slow])
    models = sections.fit_sweep(sweep, [("go", "py"), ("go", "absent")], 100, 4.9)
    shown = sections.usl_section(models)
    assert [type(item).__name__ for item in shown] == ["Figure", "Markdown"]
    assert "stops scaling at N*" in text(shown) and "the article's figure is 4.9×" in text(shown)
    assert "; measured " in text(shown)  # the sweep's own rounds at 100 connections
    details = sections.usl_details(models)
    assert [type(item).__name__ for item in details] == ["Styler", "Figure", "Markdown"]
    assert isinstance(details[1], Figure) and "the left-out level" in text(details)


def test_a_load_with_too_few_rates_below_capacity_says_so() -> None:
    load = pd.DataFrame(
        {
            "target": ["t", "t"],
            "server": ["s", "s"],
            "target_rate": [10.0, 120.0],
            "achieved_rate": [10.0, 100.0],
            "lat_mean_ms": [1.0, 50.0],
            "lat_p50_ms": [1.0, 40.0],
            "lat_p99_ms": [2.0, 90.0],
            "flags": ["", ""],
        }
    )
    models = sections.fit_load(load, {"s": 100.0}, {"t": 20.0})
    assert models.skipped == ["t"] and sections.queueing_charts(models) == []
    (only,) = sections.queueing_section(models)
    assert only.data.startswith("No fit: no server was offered 3 or more rates")
