"""benchbook.analyse.display.plots and chart_style: one colour per family of targets everywhere,
every line in the legend, every axis labelled with its unit, and SVG output."""

import io
import json
import os
import subprocess
import sys

import matplotlib
import pandas as pd
import pytest
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle

from benchbook.analyse.display import chart_style, plots

GO = ["go-hello", "go-iodelay", "go-fanout /sc/9", "go-fanout /cc/9", "wrk: go-hello", "go"]
PYTHON = [
    "python-hello",
    "python-iodelay asyncio+h11",
    "python-iodelay uvloop+httptools",
    "Locust as in the article: python-hello",
    "python",
]
TOOLS = ["wrk", "locust HttpUser x1", "locust FastHttpUser x2", "Locust, best setting"]
UNIT = ("(", "×", "%", "req/s", "ms")  # a label names its unit in one of these ways


def results(targets: dict[str, list[float]], connections: list[int] | None = None) -> pd.DataFrame:
    """Rows as a run stores them, with what plots and tables read."""
    rows = []
    for target, values in targets.items():
        for i, rps in enumerate(values):
            row = {"target": target, "rps": rps, "lat_p50_ms": 1 + i, "lat_p90_ms": 2 + i,
                   "lat_p99_ms": 4 + i, "flags": "", "err_connect": 0, "err_read": 0,
                   "err_write": 0, "err_timeout": 0, "requests": 1000, "headroom": 0.5}  # fmt: skip
            if connections:
                row["connections"] = connections[i % len(connections)]
            rows.append(row)
    return pd.DataFrame(rows)


def hue(colour: str) -> float:
    r, g, b = to_rgb(colour)
    return matplotlib.colors.rgb_to_hsv((r, g, b))[0]


def colours_in_another_interpreter(labels: list[str], hash_seed: str) -> list[str]:
    """colour_for's answers in a fresh interpreter, as another notebook's kernel gets them:
    the labels asked in the order given, with Python's string hashing seeded apart."""
    code = (
        "import json, sys\n"
        "from benchbook.analyse.display import chart_style\n"
        "print(json.dumps([chart_style.colour_for(label) for label in json.load(sys.stdin)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(labels), capture_output=True, text=True,
        env={**os.environ, "PYTHONHASHSEED": hash_seed}, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def test_a_label_has_one_colour_whatever_else_is_in_the_chart() -> None:
    labels = GO + PYTHON + TOOLS
    here = [chart_style.colour_for(label) for label in labels]
    # The same in every notebook of the report (each its own kernel), whatever was drawn
    # before: asked in reverse order, with other string hashes, nothing changes.
    for seed in ("1", "2"):
        assert colours_in_another_interpreter(labels[::-1], seed)[::-1] == here
    for label in labels:
        assert chart_style.colour_for(label) == chart_style.colour_for(f"  {label} ")
    # a bare server or tool gets its family's own colour
    assert chart_style.colour_for("go-hello") == chart_style.colour_for("go-iodelay") == "#1565c0"
    assert chart_style.colour_for("python-hello") == chart_style.colour_for("python") == "#e07b00"


@pytest.mark.parametrize(
    ("labels", "family"), [(GO, "Go"), (PYTHON, "Python"), (TOOLS, "load tool")]
)
def test_families_come_from_the_label_and_the_server_wins_over_the_tool(labels, family) -> None:
    assert {chart_style.family_of(label) for label in labels} == {family}
    assert {chart_style.colour_for(label) for label in labels} <= set(
        chart_style.FAMILY_COLOURS[family]
    )


def test_go_and_python_are_different_hue_families() -> None:
    go = {hue(chart_style.colour_for(label)) for label in GO}
    python = {hue(chart_style.colour_for(label)) for label in PYTHON}
    assert all(0.5 <= h <= 0.7 for h in go), go  # blues
    assert all(0.0 <= h <= 0.12 for h in python), python  # oranges and reds
    assert not set(chart_style.FAMILY_COLOURS["Go"]) & set(chart_style.FAMILY_COLOURS["Python"])


def test_variants_of_a_server_are_shades_and_loads_pair_up_across_languages() -> None:
    a, b = chart_style.colour_for(PYTHON[1]), chart_style.colour_for(PYTHON[2])
    assert a != b and a != chart_style.colour_for("python-iodelay")
    go, py = chart_style.colour_for("wrk: go-hello"), chart_style.colour_for("wrk: python-hello")
    assert chart_style.FAMILY_COLOURS["Go"].index(go) == chart_style.FAMILY_COLOURS["Python"].index(
        py
    )
    styles = [chart_style.line_style_for(label) for label in PYTHON[1:3]]
    assert styles[0] != styles[1] and chart_style.line_style_for("go-iodelay")["linestyle"] == "-"


def axis_labels(fig) -> list[str]:
    return [
        label for ax in fig.axes for label in (ax.get_xlabel(), ax.get_ylabel()) if ax.get_visible()
    ]


def test_bars_take_their_family_colour_and_every_axis_its_unit() -> None:
    data = results({"go-hello": [100.0, 110, 105], "python-hello": [10.0, 11, 12]})
    fig = plots.bars_with_ci(data, "rps", "requests per second (req/s)", "Throughput")
    ax = fig.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_height() > 0]
    assert [matplotlib.colors.to_hex(bar.get_facecolor()) for bar in bars[:2]] == [
        chart_style.colour_for("go-hello"),
        chart_style.colour_for("python-hello"),
    ]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Go", "Python"]
    assert ax.get_xlabel() and any(unit in ax.get_ylabel() for unit in UNIT)
    fig = plots.latency_percentiles(data, "Latency")
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["p50", "p90", "p99"]
    assert all(label for label in axis_labels(fig))


def test_every_line_and_every_knee_has_a_legend_entry() -> None:
    data = results(
        {"go-iodelay": [100.0, 200, 300, 305] * 2, PYTHON[1]: [50.0, 52, 53, 53] * 2},
        connections=[10, 50, 200, 800],
    )
    fig = plots.sweep_curves(
        data, "rps", "requests per second (req/s)", "Sweep", {"go-iodelay": 200, PYTHON[1]: 10}
    )
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [
        "go-iodelay",
        "knee of go-iodelay (200)",
        PYTHON[1],
        f"knee of {PYTHON[1]} (10)",
    ]
    assert all(line.get_label() in legend for line in ax.get_lines())
    go_line = ax.get_lines()[0]
    assert go_line.get_color() == chart_style.colour_for("go-iodelay")
    assert ax.get_lines()[1].get_linestyle() == ":"  # the knee, dotted, in its target's colour
    assert "(log scale)" in ax.get_xlabel() and "req/s" in ax.get_ylabel()


def test_ratio_curves_label_the_line_of_no_difference_and_the_ratio_unit() -> None:
    index = pd.MultiIndex.from_product([[1, 32], [1, 100]], names=["connections", "work"])
    table = pd.DataFrame(
        {
            "cc/sc": [1.0, 1.1, 0.9, 1.2],
            "CI low": [0.9, 1.0, 0.8, 1.1],
            "CI high": [1.1, 1.2, 1.0, 1.3],
        },
        index=index,
    )
    fig = plots.ratio_curves(table, "work", "connections", "cc/sc", "Ratio", xlabel="work (loops)")
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(legend) == ["connections = 1", "connections = 32", "no difference (1×)"]
    assert ax.get_xlabel() == "work (loops)" and "×" in ax.get_ylabel()


def test_timeseries_panels_name_their_units() -> None:
    frame = pd.DataFrame(
        {"t_s": [0, 1, 2], "users": [1, 2, 3], "rps": [5, 6, 7], "p95_ms": [1, 2, 3]}
    )
    fig = plots.timeseries({"go-hello": frame, "python-hello": frame}, "Ramp-up")
    assert all(any(unit in label for unit in UNIT) for label in axis_labels(fig) if label)
    assert fig.axes[0].get_lines()[0].get_color() == chart_style.colour_for("go-hello")


def test_spread_dots_mark_the_article_and_switch_to_log_beyond_ten_times() -> None:
    runs = [
        {"date": "a", "ratio": 0.0031, "ci_low": 0.002, "ci_high": 0.0045, "current": False},
        {"date": "b", "ratio": 14.3, "ci_low": 11.0, "ci_high": 20.6, "current": True},
        {"date": "c", "ratio": None, "ci_low": None, "ci_high": None, "current": False},
        {"date": "d", "ratio": "NaN", "ci_low": None, "ci_high": None, "current": False},
    ]
    fig = plots.spread_dots(runs, article_ratio=4.91)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and "log scale" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c", "d"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["this report", "article: 4.91×", "no difference"]
    narrow = plots.spread_dots(runs[1:2], article_ratio=None)
    assert narrow.axes[0].get_xscale() == "linear"


def test_use_svg_outside_a_notebook_only_sets_stable_svg_ids() -> None:
    plots.use_svg()
    assert matplotlib.rcParams["svg.hashsalt"] == "benchbook"
    fig = plots.spread_dots([{"date": "a", "ratio": 2.0, "ci_low": 1.5, "ci_high": 2.5}])
    svg = [io.StringIO(), io.StringIO()]
    for buffer in svg:
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    assert svg[0].getvalue() == svg[1].getvalue() and "<svg" in svg[0].getvalue()


def test_a_charts_labels_name_servers_as_the_tables_do() -> None:
    rows = pd.DataFrame({
        "target": ["wrk: go-hello", "wrk: python-hello", "locust FastHttpUser x1"],
        "server": ["go-hello", "python-hello", "go-hello"],
    })  # fmt: skip
    assert plots.reader_names(rows, rows["target"]) == {
        "wrk: go-hello": "wrk: Go net/http",
        "wrk: python-hello": "wrk: FastAPI (uvicorn's defaults)",
        "locust FastHttpUser x1": "locust FastHttpUser x1",  # names no server: as it is
    }


def test_a_bar_is_the_median_of_the_runs_its_table_counts() -> None:
    # a run that nothing measured limited counts in no rate, in the table or the chart
    rows = pd.DataFrame({
        "target": ["t"] * 3, "server": ["t"] * 3, "rps": [100.0, 110.0, 500.0],
        "flags": [""] * 3, "limit": ["server", "server", "none"], "err_connect": 0,
        "err_read": 0, "err_write": 0, "err_timeout": 0, "requests": 1000, "headroom": None,
    })  # fmt: skip
    (bar,) = plots.bars_with_ci(rows, "rps", "req/s", "t").axes[0].patches
    assert bar.get_height() == 105.0
    (every,) = plots.bars_with_ci(rows, "rps", "req/s", "t", every_valid=True).axes[0].patches
    assert every.get_height() == 110.0
