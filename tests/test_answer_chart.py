"""The chart of every headline answer (analyse.display.answer_chart): its rows and marks, and where
the report puts it (page 1, above the summary table; each notebook's answer box)."""

import html
import re
import textwrap
from pathlib import Path

import nbformat
import pytest
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Annotation
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.display.answer_chart import (
    ARTICLE,
    LABEL_WIDTH,
    answer_chart,
    badge,
    limits,
    rows,
    short_label,
    ticks,
)
from benchbook.analyse.words.findings_format import FINDINGS_MIME, LOWER_BOUND
from benchbook.render.report import render_report

CLASS = "AMD EPYC (family 25, model 17, stepping 1), 2 CPUs"


def run(ratio: float, machine_class: str = CLASS, same: bool = True, current: bool = False):
    return {"run_id": f"run-{ratio}", "date": "2026-11-25 10:00", "ratio": ratio,
            "ci_low": ratio / 1.1, "ci_high": ratio * 1.1, "current": current,
            "same_conditions": same, "machine_class": machine_class}  # fmt: skip


POOLED = {
    "label": "Go net/http vs FastAPI (asyncio + h11): requests per second",
    "ratio": 7.8, "ci_low": 7.6, "ci_high": 8.1, "significant": True,
    "pooled_ratio": 7.5, "pooled_low": 7.0, "pooled_high": 8.0,
    "predict_low": 6.0, "predict_high": 9.4,
    "machine_class": CLASS,
    "spread": [run(7.2), run(7.4), run(7.8, current=True), run(6.1, "Intel Xeon, 2 CPUs"),
               run(30.0, same=False)],
    "article_ratio": 4.91, "reproduced": "same direction, different size",
    "reproduced_why": "the article's 4.9× lies outside the next session's range",
}  # fmt: skip
SESSION = {
    "label": "Python backend, HealthCheck: HTTP vs gRPC time per call",
    "ratio": 0.51, "ci_low": 0.48, "ci_high": 0.64, "pooled_ratio": None,
    "predict_low": None, "predict_high": None, "machine_class": CLASS,
    "spread": [run(0.51, current=True)], "article_ratio": 3.09,
    "reproduced": "the article measured something else", "reproduced_why": "404s",
}  # fmt: skip
BOUND = {
    "label": "Go net/http vs FastAPI (uvloop + httptools): requests per second within the "
    "SLO (Go net/http: only a lower bound)",
    "ratio": 2.47, "ci_low": None, "ci_high": None, "pooled_ratio": None,
    "predict_low": None, "predict_high": None, "machine_class": CLASS, "spread": [],
    "article_ratio": None, "reproduced": "no article figure", "reproduced_why": LOWER_BOUND,
}  # fmt: skip
NONE = {"label": "a vs b: requests per second", "ratio": None, "reproduced": "no valid runs"}
GROUPS = [("Goroutines vs an asyncio event loop", [POOLED, BOUND]),
          ("HTTP/JSON vs gRPC for one API", [SESSION, NONE])]  # fmt: skip


def row_y(fig, headline: dict) -> float:
    """The y of a headline's row: its label's tick."""
    ax = fig.axes[0]
    labels = [t.get_text().replace("\n", " ") for t in ax.get_yticklabels()]
    return ax.get_yticks()[labels.index(short_label(headline))]


def marks(fig, y: float, marker: str) -> list[Line2D]:
    """The lines drawing ``marker`` at row y (or just below it: the sessions)."""
    return [
        line
        for line in fig.axes[0].get_lines()
        if line.get_marker() == marker and all(abs(value - y) < 0.5 for value in line.get_ydata())
    ]


def test_one_row_per_headline_under_its_question() -> None:
    fig = answer_chart(GROUPS)
    ax = fig.axes[0]
    labels = [t.get_text().replace("\n", " ") for t in ax.get_yticklabels()]
    assert labels == [
        "Go net/http vs FastAPI (asyncio + h11)",
        "Go net/http vs FastAPI (uvloop + httptools)",  # the label before its first ":"
        "Python backend, HealthCheck: HTTP vs gRPC time per call",  # whole: no sides before ":"
        "a vs b",
    ]
    texts = [t.get_text() for t in ax.texts]
    assert "Goroutines vs an asyncio event loop" in texts
    assert "HTTP/JSON vs gRPC for one API" in texts
    assert ax.get_xscale() == "log"
    assert any(list(line.get_xdata()) == [1, 1] for line in ax.get_lines())  # the 1× line
    assert fig.get_size_inches()[0] == pytest.approx(7)
    assert fig.legends and len(fig.legends) == 1


def test_long_labels_wrap_and_rows_stack_top_down() -> None:
    long = {"label": "x" * 20 + " vs " + "y" * 30 + " " + "z" * 30 + ": requests per second"}
    found, total = rows([("", [long, NONE])])
    assert found[0].text.split("\n") == ["x" * 20 + " vs", "y" * 30, "z" * 30]
    assert found[0].y < found[1].y < total


def test_a_headline_with_a_prediction_has_its_band_behind_the_interval() -> None:
    fig = answer_chart(GROUPS)
    y = row_y(fig, POOLED)
    bands = [p for p in fig.axes[0].patches if isinstance(p, Rectangle)]
    assert len(bands) == 1  # only POOLED has a prediction interval
    band = bands[0]
    assert band.get_x() == pytest.approx(6.0) and band.get_x() + band.get_width() == pytest.approx(
        9.4
    )
    assert band.get_y() < y < band.get_y() + band.get_height()
    assert band.get_transform().contains_branch(fig.axes[0].transData)  # data coordinates
    # the estimate is the pooled one, its interval the pooled interval, drawn thick
    interval = [line for line in fig.axes[0].get_lines() if list(line.get_ydata()) == [y, y]]
    assert [list(line.get_xdata()) for line in interval] == [[7.0, 8.0]]
    assert interval[0].get_linewidth() > 2
    assert [list(line.get_xdata()) for line in marks(fig, y, "o")][-1] == [7.5]


def test_sessions_of_this_class_are_dots_and_of_other_classes_hollow_squares() -> None:
    fig = answer_chart(GROUPS)
    y = row_y(fig, POOLED)
    dots = [list(line.get_xdata()) for line in marks(fig, y, "o") if line.get_markersize() < 4]
    assert dots == [[7.2, 7.4, 7.8]]  # same class, same conditions; not the 30× of others
    squares = marks(fig, y, "s")
    assert [list(line.get_xdata()) for line in squares] == [[6.1]]
    assert squares[0].get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0))


def test_the_articles_figure_is_a_red_diamond() -> None:
    fig = answer_chart(GROUPS)
    for headline in (POOLED, SESSION):
        diamonds = marks(fig, row_y(fig, headline), "D")
        assert [list(d.get_xdata()) for d in diamonds] == [[headline["article_ratio"]]]
        assert diamonds[0].get_color() == ARTICLE
    assert marks(fig, row_y(fig, BOUND), "D") == []


def test_a_lower_bound_is_an_arrow_to_the_right_without_an_interval() -> None:
    fig = answer_chart(GROUPS)
    ax = fig.axes[0]
    y = row_y(fig, BOUND)
    arrows = [t for t in ax.texts if isinstance(t, Annotation) and t.arrow_patch is not None]
    assert len(arrows) == 1
    (start, y_start), (end, y_end) = arrows[0].xyann, arrows[0].xy
    assert start == pytest.approx(2.47) and end > start and y_start == y_end == y
    assert not [line for line in ax.get_lines() if len(line.get_xdata()) == 2
                and list(line.get_ydata()) == [y, y]]  # fmt: skip
    assert "≥ 2.5×" in [t.get_text() for t in ax.texts]


def test_each_verdict_has_its_badge_at_the_right() -> None:
    fig = answer_chart(GROUPS)
    texts = [t.get_text() for t in fig.axes[0].texts]
    for expected in ("≈ same direction", "≠ measured else", "– no article", "∅ no valid runs"):
        assert expected in texts
    assert "no comparison" in texts  # the headline without a ratio
    words = [badge(v.label)[0] for v in Verdict]
    assert [w.split(" ", 1)[0] for w in words] == [v.value.badge for v in Verdict]
    assert words[0] == "✓ reproduced" and words[1] == "✗ not reproduced"
    assert badge("too few runs")[0] == "? too few runs" and badge(None)[0] == ""


def test_the_axis_holds_every_value_with_round_ticks() -> None:
    low, high = limits([POOLED, SESSION])
    assert low < 0.48 and high > 9.4 and low < 1 < high
    narrow_low, narrow_high = limits([{"ratio": 1.02, "ci_low": 0.99, "ci_high": 1.05}])
    assert narrow_high / narrow_low >= 2.5
    assert ticks(0.3, 12) == [0.3, 1.0, 3.0, 10.0]
    assert len(ticks(0.001, 1000)) == 7
    assert 1.0 in ticks(narrow_low, narrow_high)


def findings_notebook(path: Path, findings: dict) -> Path:
    """An executed-looking notebook with a findings output, as tests/test_report.py builds."""
    output = new_output(
        "display_data", data={FINDINGS_MIME: findings, "text/markdown": "**Answer.**"}
    )
    cells = [
        new_markdown_cell(f"# {findings['title']}\n\nIts question."),
        new_markdown_cell("## Setup\n\nHow it ran."),
        new_code_cell("findings", outputs=[output], execution_count=1),
    ]
    nbformat.write(new_notebook(cells=cells), path)
    return path


def test_the_report_puts_the_chart_on_page_1_and_in_each_answer_box(tmp_path: Path) -> None:
    notebooks = [
        findings_notebook(
            tmp_path / f"{number:02d}.ipynb",
            {"title": title, "question": "Q?", "answer": "A.", "headlines": headlines},
        )  # fmt: skip
        for number, (title, headlines) in enumerate(GROUPS)
    ]
    page = render_report(notebooks)
    summary = page[page.index('id="summary"') : page.index('<table class="summary-table"')]
    figure = re.search(r'<figure class="answer-chart">\s*(<svg\b.*?</svg>)', summary, re.S)
    assert figure, "no chart above the summary table"
    svg = figure.group(1)
    assert 'aria-label="Every answer at a glance"' in svg and "<image" not in svg
    for _, headlines in GROUPS:
        for headline in headlines:
            assert html.escape(headline["label"], quote=False) in svg  # its row's title
            wrapped = textwrap.wrap(short_label(headline), LABEL_WIDTH, break_on_hyphens=False)
            for line in wrapped:  # its row's lines
                assert f">{html.escape(line, quote=False)}</text>" in svg
    boxes = re.findall(r'<aside class="answer-box".*?</aside>', page, re.S)
    assert len(boxes) == 2
    for box, (_, headlines) in zip(boxes, GROUPS, strict=True):
        chart = box[box.index('<figure class="answer-chart">') :]
        assert chart.count("<svg") == 1
        for headline in headlines:
            assert html.escape(headline["label"], quote=False) in chart
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # three charts on one page share no id


def test_a_row_label_keeps_a_colon_inside_the_comparison() -> None:
    label = "Go + Redis vs aiohttp + Redis (same storage: the language apart): requests per second"
    assert (
        short_label({"label": label})
        == "Go + Redis vs aiohttp + Redis (same storage: the language apart)"
    )
    assert short_label({"label": "a vs b"}) == "a vs b"


def test_a_row_whose_comparison_names_no_two_sides_keeps_the_whole_label() -> None:
    """'Python backend, HealthCheck' alone would not say what the ratio is of."""
    label = "Python backend, HealthCheck: HTTP vs gRPC time per call"
    assert short_label({"label": label}) == label


def test_two_rows_comparing_the_same_sides_keep_their_metrics() -> None:
    """Notebooks 01 and 06 both compare Go and FastAPI with a 1 ms sleep, by req/s and by
    req/s within the SLO: without their metrics the page-1 chart named two figures alike."""
    pair = "Go net/http with a 1 ms sleep vs FastAPI (uvloop + httptools) with a 1 ms sleep"
    groups = [
        ("01", [{"label": f"{pair}: requests per second"}]),
        ("06", [{"label": f"{pair}: requests per second within the SLO"}, {"label": "a vs b: x"}]),
    ]
    texts = [row.text.replace("\n", " ") for row in rows(groups)[0] if row.headline]
    assert texts == [f"{pair}: requests per second", f"{pair}: requests per second within the SLO",
                     "a vs b"]  # fmt: skip
