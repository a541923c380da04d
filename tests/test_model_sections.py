"""A notebook's "Models" section: the fits, tables, charts and sentences in order, and a
sentence instead of a failure when the sweep or the load is too small to fit."""

import shutil
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure
from test_usl import rows

from benchbook.analyse.display import model_sections as sections
from benchbook.analyse.models import sweep, usl
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.words import models as wording
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import Run


def text(shown: list[object]) -> str:
    return " ".join(item.data for item in shown if isinstance(getattr(item, "data", None), str))


def test_a_sweep_of_two_levels_says_it_cannot_be_fitted() -> None:
    sweep = rows([2, 8], lambda n: 100.0 * n, rounds=1)
    models = sections.fit_sweep(sweep, [("srv", "srv")], 8)
    assert models.fits == {}
    (only,) = sections.usl_section(models)
    assert only.data.startswith("No fit: this sweep measured 2 concurrency level(s)")


def test_a_sweep_measured_beside_other_work_says_so_and_fits_nothing() -> None:
    """Notebook 01's sweep measured while other work ran (a real one: every run flagged
    busy_machine, so none counts): no knee, no fit, and a sentence saying why, where the
    notebook once stopped on a table with no columns."""
    busy = pd.read_csv(REPO_ROOT / "tests/samples/runs/busy_sweep_results.csv")
    assert busy["flags"].str.contains("busy_machine").all()
    assert sweep.knees(busy) == {} and sweep.sweep_summary(busy, "rps").empty
    pairs = [("go-iodelay", "python-iodelay asyncio+h11")]
    (only,) = sections.usl_section(sections.fit_sweep(busy, pairs, 100))
    assert only.data.startswith(
        "No fit: this sweep measured 0 concurrency level(s) with runs that count (valid, and "
        "not on a busy machine)"
    )


def test_a_sweep_gives_curves_a_table_sentences_and_a_ratio_per_pair() -> None:
    levels = [5, 10, 25, 50, 100, 200]
    fast = rows(levels, lambda n: usl.throughput(n, 1000.0, 0.01, 1e-5), target="go")
    slow = rows(levels, lambda n: usl.throughput(n, 700.0, 0.08, 1e-4), target="py", seed=2)
    sweep = pd.concat([fast, slow])
    models = sections.fit_sweep(sweep, [("go", "py"), ("go", "absent")], 100, 4.9)
    shown = sections.usl_section(models)
    assert [type(item).__name__ for item in shown] == ["Figure", "Markdown"]
    assert "peaks, as fitted, at N*" in text(shown)
    assert "the article's figure is 4.9×" in text(shown)
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


# A stored sweep of notebook 01 (6 levels × 3 rounds, 2026-11-26): the fastest server's
# rounds rise to about 38,000 req/s and stay there from 200 connections on, its one core
# at 95–97 %, while its USL fit misses 4 of the 6 levels beyond their rounds' spread.
SWEEP = "20261126T025918Z-01_io_concurrency_sweep-8e4a"
FLAT = "go-iodelay"


@pytest.fixture
def stored_sweep(tmp_path: Path) -> pd.DataFrame:
    """The sweep's results, copied into a runs folder of the test's own and read back."""
    (tmp_path / SWEEP).mkdir()
    for name in ("manifest.json", "results.csv"):
        shutil.copy(REPO_ROOT / "data" / "runs" / SWEEP / name, tmp_path / SWEEP / name)
    return Run(tmp_path / SWEEP).results()


def test_a_fit_that_breaks_the_rule_prints_no_peak_and_names_the_ceiling_at_one_core(
    stored_sweep: pd.DataFrame,
) -> None:
    models = sections.fit_sweep(stored_sweep, [(FLAT, "python-iodelay asyncio+h11")], 100)
    shape = models.shapes[FLAT]
    assert not shape.usl_holds and shape.kind == "ceiling"
    ceiling = shape.ceiling
    assert ceiling.start == 200 and ceiling.at_one_core
    rounds = stored_sweep[(stored_sweep["target"] == FLAT) & (stored_sweep["connections"] >= 200)]
    assert ceiling.rate == rounds["rps"].median()
    words = text(sections.usl_section(models))
    sentence = wording.shape_sentence(shape)
    assert "N* ≈" not in sentence and "stops scaling" not in sentence
    assert f"stops rising at ≈ {fmt.count(ceiling.rate)} req/s" in sentence
    low, high = rounds.groupby("connections")["server_cpu_pct"].median().agg(["min", "max"])
    assert f"used {low:.0f}–{high:.0f} % of a core: the limit of one core" in sentence
    assert sentence in words
    # No ratio over N is drawn from a curve that is no model of the server.
    assert models.ratios() == [] and "No ratio Go net/http with a 1 ms sleep / FastAPI" in words
    table = wording.usl_table(models.shapes)
    assert table.loc[FLAT, "N*"] == "not stated (misfit)" and table.loc[FLAT, "model"] == "ceiling"


def test_a_ceiling_below_a_core_is_not_called_the_cores_limit(stored_sweep: pd.DataFrame) -> None:
    cooler = stored_sweep.assign(server_cpu_pct=stored_sweep["server_cpu_pct"] * 0.7)
    shape = sections.fit_sweep(cooler, [], 100).shapes[FLAT]
    assert shape.kind == "ceiling" and not shape.ceiling.at_one_core
    sentence = wording.shape_sentence(shape)
    assert "something other than its CPU set the limit" in sentence
    assert "the limit of one core" not in sentence


def test_runs_where_the_load_tool_was_the_limit_are_left_out_and_counted(
    stored_sweep: pd.DataFrame,
) -> None:
    target = "python-iodelay uvloop+httptools"
    flagged = stored_sweep.copy()
    at_800 = (flagged["target"] == target) & (flagged["connections"] == 800)
    at_200 = (flagged["target"] == target) & (flagged["connections"] == 200)
    # What set those runs' rates (runs.limits), with the flags that would have said so.
    flagged.loc[at_800, ["flags", "limit"]] = [";client_bound", "load tool"]
    flagged.loc[at_200 & (flagged["repetition"] == 1), ["flags", "limit"]] = [
        ";near_tool_ceiling",
        "load tool",
    ]
    fit = sections.fit_sweep(flagged, [], 100).shapes[target].fit
    assert fit.left_out == 4 and len(fit.points) == 14
    assert 800 not in fit.levels and (fit.points["connections"] == 200).sum() == 2
    kept = stored_sweep[(stored_sweep["target"] == target) & ~at_800]
    kept = kept[~((kept["connections"] == 200) & (kept["repetition"] == 1))]
    assert sorted(fit.points["rps"]) == sorted(kept["rps"])
    line = wording.shape_sentence(sections.fit_sweep(flagged, [], 100).shapes[target])
    assert "fitted to 14 of 18 runs; 4 left out where the load tool was the limit" in line


def test_the_charts_of_a_session_whose_every_run_was_busy_draw_no_bars() -> None:
    """Notebook 01 on a VM whose hypervisor took 10-16 % (AMD 25/1): every run flagged
    busy_machine, so none counts; the latency chart stopped the notebook with a KeyError."""
    from benchbook.analyse.display import plots

    busy = pd.read_csv(REPO_ROOT / "tests/samples/runs/busy_sweep_results.csv")
    figure = plots.latency_percentiles(busy, "Latency percentiles")
    heights = [bar.get_height() for bar in figure.axes[0].patches]
    assert heights and all(h != h for h in heights)  # NaN: no counted run, no bar
    assert len(figure.axes[0].get_xticklabels()) == busy["target"].nunique()
