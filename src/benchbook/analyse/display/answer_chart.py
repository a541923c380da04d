"""Every headline answer on one chart: a row per headline, under its question, on one log
ratio axis, so a reader sees at a glance which way each comparison went, how sure it is,
how the sessions spread and where the article's figure lies.

A row shows the estimate (pooled over this machine class's sessions when there are three
or more, else this session's) as a dot with its 95 % interval as a thick line; the
prediction interval for the next session as a light, wider band behind it; each session
of this class under the same conditions as a small grey dot below, and each of another
class as a small hollow square; the article's figure as a red diamond; the verdict as a
badge at the right. A lower bound is an arrow pointing right from the bound ("≥ 2.5×").
A ratio whose rates were not both set by what it compares (a load tool, the users' wait,
a link: rows.limits) is drawn hollow and grey: it describes what set them, and the
answer says what that was.
Colours follow plots.spread_dots (the same band, the same red for the article).
"""

import math
import textwrap
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import NullLocator
from matplotlib.transforms import blended_transform_factory

from benchbook.analyse.claims.verdict_kinds import MUTED, Verdict
from benchbook.analyse.display.plots import NEUTRAL
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.words.findings_format import LOWER_BOUND, comparison, missing

INK = "#1f2328"
ARTICLE = "#b42318"  # as plots.spread_dots draws the article's ratio
PREDICTION = "#ddf4ff"  # as plots.spread_dots draws the next session's band
PREDICTION_EDGE = "#9fd0f5"
ZEBRA = "#f6f8fa"  # the report's group rows (report.css --zebra)
# The gid of row i's label (its i-th headline, in the order given): the page titles it with
# the headline's full label.
ROW_GID = "answer-row-{}"
LABEL_WIDTH = 45  # characters before a row label wraps
WIDTH_IN, ROW_IN = 7.0, 0.28  # A4's text width; a row's height
LABELS_IN, BADGES_IN = 2.65, 1.15  # the row labels at the left, the badges at the right
LEGEND_COLUMNS = 3
BOUND_ARROW = 1.9  # how far a lower bound's arrow reaches: × the bound


@dataclass
class Row:
    """A row of the chart: a headline's, or (headline None) its group's title."""

    y: float  # its centre, in rows from the top
    text: str
    headline: Mapping | None = None


def short_label(headline: Mapping) -> str:
    """A headline's row label: what it compares, without its metric; the whole label where
    that part names no two sides ('Python backend, HealthCheck: HTTP vs gRPC time per
    call'), so every row says what its ratio is of."""
    label = str(headline.get("label") or "")
    compared = comparison(label)
    return compared if " vs " in compared else label


def badge(verdict: str | None) -> tuple[str, str]:
    """The verdict's badge ('✓ reproduced') and its colour (verdict_kinds); ('', …) for
    none."""
    if (known := Verdict.of(verdict)) is not None:
        return f"{known.value.badge} {known.value.word}", known.value.colour
    if not verdict:
        return "", MUTED
    return f"? {textwrap.shorten(str(verdict), 16, placeholder='…')}", MUTED


def _positive(value: object) -> float | None:
    """A ratio that a log axis can show, or None (null, NaN, not positive)."""
    return None if missing(value) or value <= 0 else float(value)


def is_bound(headline: Mapping) -> bool:
    return headline.get("reproduced_why") == LOWER_BOUND


def estimate(headline: Mapping) -> tuple[float | None, float | None, float | None]:
    """The estimate and its interval: pooled over sessions when present, else this session's."""
    keys = ("pooled_ratio", "pooled_low", "pooled_high")
    if _positive(headline.get("pooled_ratio")) is None or is_bound(headline):
        keys = ("ratio", "ci_low", "ci_high")
    ratio, low, high = (_positive(headline.get(key)) for key in keys)
    return ratio, (None if is_bound(headline) else low), (None if is_bound(headline) else high)


def prediction(headline: Mapping) -> tuple[float, float] | None:
    low, high = _positive(headline.get("predict_low")), _positive(headline.get("predict_high"))
    return None if low is None or high is None or is_bound(headline) else (low, high)


def sessions(headline: Mapping) -> tuple[list[float], list[float]]:
    """The ratios of the stored sessions under the same conditions: of this machine class,
    and of other classes."""
    runs = [run for run in headline.get("spread") or [] if run.get("same_conditions")]
    here = headline.get("machine_class") or next(
        (run.get("machine_class") for run in runs if run.get("current")), None
    )
    same: list[float] = []
    other: list[float] = []
    for run in runs:
        if (ratio := _positive(run.get("ratio"))) is not None:
            (same if run.get("machine_class") == here else other).append(ratio)
    return same, other


def _values(headline: Mapping) -> list[float]:
    """Every ratio a row draws, so that the axis holds them all."""
    ratio, low, high = estimate(headline)
    values = [v for v in (ratio, low, high, _positive(headline.get("article_ratio"))) if v]
    values += list(prediction(headline) or ()) + [v for vs in sessions(headline) for v in vs]
    if is_bound(headline) and ratio is not None:
        values.append(ratio * BOUND_ARROW * 1.9)  # the arrow and its "≥ N×"
    return values


def limits(headlines: Sequence[Mapping]) -> tuple[float, float]:
    """The ratio axis: every value and 1×, with a margin, spanning at least 2.5×."""
    values = [1.0] + [v for h in headlines for v in _values(h)]
    low, high = min(values) / 1.25, max(values) * 1.25
    if high / low < 2.5:
        centre, half = math.sqrt(low * high), math.sqrt(2.5)
        low, high = centre / half, centre * half
    return low, high


def ticks(low: float, high: float) -> list[float]:
    """Round ratios between low and high: the sparsest series giving four or more."""
    series = ((1,), (1, 3), (1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8))
    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    found: list[float] = []
    for mantissas in series:
        found = [float(f"{m * 10.0**e:.6g}") for e in decades for m in mantissas]
        found = [v for v in found if low <= v <= high]
        if len(found) >= 4:
            break
    return found if len(found) <= 9 else found[:: math.ceil(len(found) / 8)]


def rows(groups: Sequence[tuple[str, Sequence[Mapping]]]) -> tuple[list[Row], float]:
    """The chart's rows, top to bottom, and their total height (in rows): a group's title
    (when it has one, 0.8 of a row), then a row per headline, taller for a label of three
    lines."""
    found, top = [], 0.0
    shorts = Counter(short_label(h) for _, headlines in groups for h in headlines)
    for title, headlines in groups:
        if title:
            found.append(Row(top + 0.4, textwrap.shorten(str(title), 110, placeholder=" …")))
            top += 0.8
        for headline in headlines:
            label = short_label(headline)
            if shorts[label] > 1:  # two rows compare the same sides: their metrics tell them apart
                label = str(headline.get("label") or label)
            lines = textwrap.wrap(label, LABEL_WIDTH, max_lines=3,
                                  placeholder=" …", break_on_hyphens=False)  # fmt: skip
            height = 1.0 if len(lines) <= 2 else 1.35
            found.append(Row(top + height / 2, "\n".join(lines) or "—", headline))
            top += height
    return found, top


# The marks, shared by the rows and the legend.
ESTIMATE = {
    "marker": "o",
    "markersize": 5,
    "color": INK,
    "markeredgecolor": "white",
    "markeredgewidth": 0.6,
}
INTERVAL = {"color": INK, "linewidth": 3, "solid_capstyle": "butt"}
BAND = {"facecolor": PREDICTION, "edgecolor": PREDICTION_EDGE, "linewidth": 0.5}
SAME_CLASS = {"marker": "o", "markersize": 2.6, "color": NEUTRAL, "linestyle": "none"}
OTHER_CLASS = {
    "marker": "s",
    "markersize": 3.4,
    "color": NEUTRAL,
    "markerfacecolor": "white",
    "markeredgewidth": 0.7,
    "linestyle": "none",
}
ARTICLE_MARK = {
    "marker": "D",
    "markersize": 4.5,
    "color": ARTICLE,
    "markeredgecolor": "white",
    "markeredgewidth": 0.5,
    "linestyle": "none",
}
ARROW = {
    "arrowstyle": "-|>",
    "color": INK,
    "linewidth": 1.2,
    "mutation_scale": 7,
    "shrinkA": 0,
    "shrinkB": 0,
}
ONE = {"color": "grey", "linestyle": ":", "linewidth": 1}  # fmt: skip
APART = {"marker": "o", "markersize": 5, "color": MUTED, "markerfacecolor": "white",
         "markeredgewidth": 1.0}  # fmt: skip
APART_INTERVAL = {"color": MUTED, "linewidth": 1.5, "linestyle": (0, (2, 1))}


def _draw_estimate(ax: Axes, headline: Mapping, y: float, drawn: set[str]) -> None:
    """The estimate with its interval, or a lower bound's arrow, or 'no comparison'."""
    ratio, low, high = estimate(headline)
    beside = {"ha": "left", "va": "center", "fontsize": 6.5}
    if ratio is None:
        ax.text(0.02, y, "no comparison", transform=ax.get_yaxis_transform(), style="italic",
                color=MUTED, **beside)  # fmt: skip
        return
    if is_bound(headline):
        end = ratio * BOUND_ARROW
        ax.plot([ratio], [y], marker="|", markersize=7, markeredgewidth=1.6, color=INK, zorder=4)
        ax.annotate("", xy=(end, y), xytext=(ratio, y), arrowprops=ARROW, zorder=4)
        ax.text(end * 1.06, y, f"≥ {fmt.ratio(ratio)}", color=INK, **beside)
        drawn.add("bound")
        return
    apart = bool(headline.get("set_by"))
    if low is not None and high is not None:
        ax.plot([low, high], [y, y], zorder=3, **(APART_INTERVAL if apart else INTERVAL))
    ax.plot([ratio], [y], linestyle="none", zorder=4, **(APART if apart else ESTIMATE))
    drawn.add("apart" if apart else "estimate")


def _draw_headline(ax: Axes, headline: Mapping, y: float, drawn: set[str]) -> None:
    """One headline's row: band, sessions, estimate, the article's figure, the badge."""
    if band := prediction(headline):
        ax.add_patch(Rectangle((band[0], y - 0.36), band[1] - band[0], 0.72, zorder=1, **BAND))
        drawn.add("prediction")
    same, other = sessions(headline)
    if same:  # just below the row's line, where the interval does not hide them
        ax.plot(same, [y + 0.24] * len(same), zorder=2, **SAME_CLASS)
        drawn.add("same class")
    if other:
        ax.plot(other, [y + 0.24] * len(other), zorder=2, **OTHER_CLASS)
        drawn.add("other class")
    _draw_estimate(ax, headline, y, drawn)
    if (article := _positive(headline.get("article_ratio"))) is not None:
        ax.plot([article], [y], zorder=5, **ARTICLE_MARK)
        drawn.add("article")
    text, colour = badge(headline.get("reproduced"))
    ax.text(1.03, y, text, transform=ax.get_yaxis_transform(), ha="left", va="center",
            fontsize=7, color=colour)  # fmt: skip


def _legend() -> dict[str, tuple[object, str]]:
    """Each kind of mark drawn, its legend handle and text (new artists for each figure)."""
    return {
        "estimate": (Line2D([], [], **(INTERVAL | ESTIMATE)),
                     "estimate and its 95 % CI (pooled when 3+ sessions)"),
        "prediction": (Patch(**BAND), "the next session (95 % prediction interval)"),
        "same class": (Line2D([], [], **SAME_CLASS), "a session on this machine class"),
        "other class": (Line2D([], [], **OTHER_CLASS), "a session on another machine class"),
        "article": (Line2D([], [], **ARTICLE_MARK), "the article's figure"),
        "bound": (Line2D([], [], marker=">", markersize=4, color=INK, linewidth=1.2),
                  "a lower bound: at least this"),
        "apart": (Line2D([], [], **(APART_INTERVAL | APART)),
                  "something else set both rates"),
        "one": (Line2D([], [], **ONE), "no difference (1×)"),
    }  # fmt: skip


def _frame(ax: Axes, found: list[Row], total: float, headlines: list[Mapping]) -> None:
    """Axes, row labels, group titles (on a shaded band across the figure) and the 1× line."""
    ax.set_xscale("log")
    low, high = limits(headlines)
    ax.set_xlim(low, high)
    marks = ticks(low, high)
    ax.set_xticks(marks, [f"{v:g}×" for v in marks], fontsize=7)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_ylim(total, 0)
    labelled = [row for row in found if row.headline is not None]
    ax.set_yticks([row.y for row in labelled], [row.text for row in labelled], fontsize=7)
    for number, label in enumerate(ax.get_yticklabels()):
        label.set_gid(ROW_GID.format(number))
    ax.tick_params(axis="y", length=0, pad=4)
    ax.tick_params(axis="x", length=2.5, top=len(found) > 12, labeltop=len(found) > 12)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.grid(axis="x", color="#d0d7de", linewidth=0.5)
    ax.set_axisbelow(True)
    ax.set_facecolor("none")  # the group bands show through
    ax.axvline(1, zorder=1.5, **ONE)
    ax.set_xlabel(
        "ratio of the first named to the second (×, log scale); for a time or a latency, "
        "below 1× means the first measured less time",
        fontsize=7,
    )
    across = blended_transform_factory(ax.figure.transFigure, ax.transData)
    for row in found:
        if row.headline is None:
            band = Rectangle((0, row.y - 0.4), 1, 0.8, transform=across, facecolor=ZEBRA,
                             edgecolor="none", zorder=-1)  # fmt: skip
            ax.figure.add_artist(band)
            ax.text(0.012, row.y, row.text, transform=across, ha="left", va="center",
                    fontsize=7.5, fontweight="bold", color=INK)  # fmt: skip


def answer_chart(groups: Sequence[tuple[str, Sequence[Mapping]]]) -> Figure:
    """Every headline of ``groups`` (each a question's or notebook's title, '' for none,
    and its headlines as findings_format describes them) as a row of one chart, 7 in wide
    (A4's text width) and 0.28 in a row, with one legend at the bottom."""
    found, total = rows(groups)
    headlines = [row.headline for row in found if row.headline is not None]
    drawn = {"one"}
    fig = Figure(figsize=(WIDTH_IN, max(total, 1) * ROW_IN))
    ax = fig.add_subplot()
    _frame(ax, found, max(total, 1), headlines)
    for row in found:
        if row.headline is not None:
            _draw_headline(ax, row.headline, row.y, drawn)
    legend = _legend()
    entries = [legend[key] for key in legend if key in drawn]
    # Sized once every row is drawn: the legend's rows set the bottom margin.
    top_in = 0.35 if len(found) > 12 else 0.12
    bottom_in = 0.5 + 0.17 * math.ceil(len(entries) / LEGEND_COLUMNS)
    height = max(total, 1) * ROW_IN + top_in + bottom_in
    fig.set_size_inches(WIDTH_IN, height)
    fig.subplots_adjust(left=LABELS_IN / WIDTH_IN, right=1 - BADGES_IN / WIDTH_IN,
                        top=1 - top_in / height, bottom=bottom_in / height)  # fmt: skip
    fig.legend([handle for handle, _ in entries], [text for _, text in entries],
               loc="lower center", bbox_to_anchor=(0.5, 0.005), ncol=LEGEND_COLUMNS,
               fontsize=6.5, frameon=False, handlelength=2, columnspacing=1.5)  # fmt: skip
    return fig
