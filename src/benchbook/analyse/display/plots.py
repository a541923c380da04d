"""Bar charts of medians with their confidence intervals, and curves over time or load.

Every chart colours a target by what it is, the same way everywhere in the report
(chart_style.colour_for). Every line has a legend entry and every axis a label with its
unit. ``use_svg`` makes a notebook's figures vector graphics, sharp on paper and on screen.
"""

import textwrap
from collections.abc import Iterable, Mapping, Sequence

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from benchbook.analyse.display.chart_style import (
    colour_for,
    family_legend,
    hatch_for,
    line_style_for,
)
from benchbook.analyse.models.sweep import sweep_summary
from benchbook.analyse.rows.counted import medians_with_ci, with_derived
from benchbook.analyse.rows.names import distinct_names, renamed
from benchbook.analyse.words.findings_format import missing

# What belongs to no target: a legend's percentile swatch, an earlier run's dot.
NEUTRAL = "#57606a"


def use_svg() -> None:
    """Make the notebook's inline figures SVG (vector: sharp at any zoom and on paper),
    with stable element ids and no timestamp, so a re-run gives the same file. Call it
    after ``%matplotlib inline``; outside IPython it only sets the SVG options."""
    plt.rcParams["svg.hashsalt"] = "benchbook"
    from IPython import get_ipython

    if get_ipython() is None:
        return
    from matplotlib_inline.backend_inline import InlineBackend, set_matplotlib_formats

    InlineBackend.instance().figure_formats = {"svg"}
    set_matplotlib_formats("svg", metadata={"Date": None})


def reader_names(results: pd.DataFrame, targets: Iterable[object]) -> dict[str, str]:
    """Each target by the name its tables give it (rows.names), so a chart's labels match
    the prose; a label that holds a server's id ('wrk: go-hello') names it there too, and
    one that names no server stays as it is."""
    labels = [str(t) for t in targets]
    names = distinct_names(labels, results)
    servers = distinct_names(set(results.get("server", ())))  # by title, as a label holds them
    return {label: names.get(label) or str(renamed(label, servers)) for label in labels}


def finish_chart(fig: Figure, ax: plt.Axes, title: str, legend: bool = True) -> Figure:
    """Title, legend and layout every chart of the report shares; closed, so a notebook
    shows it once."""
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=8)
    fig.tight_layout()
    plt.close(fig)  # the caller displays it; no second copy from the inline backend
    return fig


def bars_with_ci(
    results: pd.DataFrame,
    column: str,
    ylabel: str,
    title: str,
    log: bool = False,
    xlabel: str = "target",
    every_valid: bool = False,
) -> Figure:
    """One bar per target: the median of ``column`` over the runs that count for it (as
    the tables count them; every valid run with ``every_valid``), whiskers at its CI,
    coloured by the target's family."""
    m = medians_with_ci(results, column, every_valid=every_valid)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    err = [m["median"] - m["low"], m["high"] - m["median"]]
    # Long labels ("locust FastHttpUser x2") wrap instead of running into each other.
    name = reader_names(results, m["target"])
    labels = [textwrap.fill(name[str(t)], 16) for t in m["target"]]
    colours = [colour_for(t) for t in m["target"]]
    bars = ax.bar(labels, m["median"], yerr=err, capsize=6, color=colours)
    for bar, target in zip(bars, m["target"], strict=True):
        bar.set_hatch(hatch_for(target))
    ax.bar_label(bars, labels=[f"{v:,.0f}" if v >= 100 else f"{v:.2f}" for v in m["median"]],
                 padding=3, fontsize=8)  # fmt: skip
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    if log:
        ax.set_yscale("log")
    ax.margins(y=0.15)
    ax.tick_params(axis="x", labelsize=8)
    family_legend(ax, list(m["target"]))
    return finish_chart(fig, ax, title, legend=False)


def latency_percentiles(results: pd.DataFrame, title: str, xlabel: str = "target") -> Figure:
    """Median p50, p90 and p99 latency per target, log scale (they span decades): the
    target's colour, lighter and hatched for the lower percentiles."""
    data = with_derived(results)
    columns = {"lat_p50_ms": ("p50", 0.45, "//"), "lat_p90_ms": ("p90", 0.7, ".."),
               "lat_p99_ms": ("p99", 1.0, "")}  # fmt: skip
    targets = list(dict.fromkeys(data["target"]))
    colours = [colour_for(t) for t in targets]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    width = 0.8 / len(columns)
    handles, drawn = [], False
    for i, (col, (label, alpha, hatch)) in enumerate(columns.items()):
        m = medians_with_ci(results, col).set_index("target").reindex(targets)  # none: no bar
        drawn = drawn or bool((m["median"] > 0).any())
        xs = [x + (i - 1) * width for x in range(len(targets))]
        err = [m["median"] - m["low"], m["high"] - m["median"]]
        ax.bar(xs, m["median"], width, yerr=err, capsize=3, color=colours, alpha=alpha,
               hatch=hatch, edgecolor="white", linewidth=0)  # fmt: skip
        handles.append(Patch(facecolor=NEUTRAL, alpha=alpha, hatch=hatch, label=label))
    name = reader_names(results, targets)
    ax.set_xticks(range(len(targets)), [textwrap.fill(name[t], 22) for t in targets], fontsize=8)
    if drawn:  # a log scale needs a bar above 0 (a session of busy runs draws none)
        ax.set_yscale("log")
    ax.set_ylabel("latency (ms, log scale)")
    ax.set_xlabel(xlabel)
    ax.legend(handles=handles, fontsize=8, title="percentile", title_fontsize=8)
    return finish_chart(fig, ax, title, legend=False)


def sweep_curves(
    results: pd.DataFrame,
    column: str,
    ylabel: str,
    title: str,
    knees: dict[str, int | None] | None = None,
    log_y: bool = False,
    xlabel: str = "concurrent connections (log scale)",
) -> Figure:
    """One line per target over connection counts, the CI as a band, each knee a dotted
    vertical line in the target's colour with its own legend entry."""
    curves = sweep_summary(results, column)
    name = reader_names(results, curves["target"].unique())
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for target, curve in curves.groupby("target", sort=False):
        style = line_style_for(target)
        ax.plot(curve["connections"], curve["median"], label=name[str(target)], **style)
        ax.fill_between(curve["connections"], curve["low"], curve["high"], alpha=0.2,
                        color=style["color"], linewidth=0)  # fmt: skip
        knee = (knees or {}).get(target)
        if knee is not None:
            ax.axvline(knee, linestyle=":", linewidth=1.5, color=style["color"],
                       label=f"knee of {name[str(target)]} ({knee})")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("log")
    return finish_chart(fig, ax, title)


def ratio_curves(
    table: pd.DataFrame,
    x: str,
    curve: str,
    ratio: str,
    title: str,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Figure:
    """A ratio (e.g. cc/sc req/s) along ``x``, one line per ``curve`` value, CI whiskers,
    and the line of no difference at 1."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for value, part in table.groupby(level=curve):
        part = part.droplevel(curve).sort_index()
        err = [part[ratio] - part["CI low"], part["CI high"] - part[ratio]]
        label = f"{curve} = {value}"
        ax.errorbar(part.index, part[ratio], yerr=err, capsize=4, label=label,
                    **line_style_for(label))  # fmt: skip
    ax.axhline(1, color="grey", linestyle="--", linewidth=1, label="no difference (1×)")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel or f"{x} (log scale)")
    ax.set_ylabel(ylabel or f"{ratio} (ratio of medians, ×)")
    return finish_chart(fig, ax, title)


def timeseries(
    runs: Mapping[str, pd.DataFrame], title: str, names: Mapping[str, str] | None = None
) -> Figure:
    """Users running, requests completed and p95 latency second by second, one line per
    run (``runs``: label → runs.locust_output.per_second frame), on one time axis; each
    label as ``names`` gives it (reader_names)."""
    panels = {
        "users": "users running (count)",
        "rps": "requests per second (req/s)",
        "p95_ms": "p95 latency (ms, last 10 s)",
    }
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 6), sharex=True)
    for label, frame in runs.items():
        style = line_style_for(label) | {"marker": None}
        for ax, column in zip(axes, panels, strict=True):
            named = (names or {}).get(label, label)
            ax.plot(frame["t_s"], frame[column], label=named, linewidth=1.2, **style)
    for ax, ylabel in zip(axes, panels.values(), strict=True):
        ax.set_ylabel(ylabel, fontsize=8)
    axes[-1].set_xlabel("time since the run started (s)")
    axes[0].legend(fontsize=8)
    return finish_chart(fig, axes[0], title, legend=False)


def _number(value: object) -> float | None:
    """A number from findings JSON, or None (null, or a NaN stored as text)."""
    return None if missing(value) else float(value)


def spread_dots(
    runs: Sequence[Mapping],
    article_ratio: float | None = None,
    label: str = "ratio",
    predict: tuple[float, float] | None = None,
) -> Figure:
    """Run-to-run spread of one comparison: a dot per stored run at its ratio with CI
    whiskers (the current run filled; a square for a run on another machine class), the
    prediction interval for the next session on this class as a band (``predict``), the
    article's ratio dashed, 1× dotted; a log scale when the values span more than 10×.
    ``runs``: the findings' ``spread`` rows."""
    height = 0.62 + 0.2 * max(len(runs), 1)
    fig = Figure(figsize=(3.7, height), layout="constrained")
    ax = fig.add_subplot()
    values = []
    here = next((run.get("machine_class") for run in runs if run.get("current")), None)
    if predict is not None:
        values += list(predict)
        ax.axvspan(*predict, color="#ddf4ff", label="next session (95 % PI)")
    for y, run in enumerate(runs):
        ratio, low, high = (_number(run.get(k)) for k in ("ratio", "ci_low", "ci_high"))
        if ratio is None:
            continue
        values.append(ratio)
        current = bool(run.get("current"))
        colour = "#1f2328" if current else NEUTRAL
        if low is not None and high is not None:
            values += [low, high]
            ax.plot([low, high], [y, y], color=colour, linewidth=1.4 if current else 1)
        marker = "o" if run.get("machine_class") == here else "s"
        ax.plot([ratio], [y], marker=marker, markersize=6 if current else 4.5, color=colour,
                markerfacecolor=colour if current else "white", linestyle="none",
                label="this report" if current else None)  # fmt: skip
    if article_ratio is not None:
        values.append(article_ratio)
        ax.axvline(article_ratio, color="#b42318", linestyle="--", linewidth=1.2,
                   label=f"article: {article_ratio:.3g}×")  # fmt: skip
    positive = [v for v in values if v and v > 0]
    log = bool(positive) and max(positive) / min(positive) > 10
    if positive and min(positive) <= 1 <= max(positive):
        ax.axvline(1, color="grey", linestyle=":", linewidth=1, label="no difference")
    if log:
        ax.set_xscale("log")
    ax.set_yticks(range(len(runs)), [str(run.get("date", "")) for run in runs], fontsize=7)
    ax.set_ylim(len(runs) - 0.5, -0.5)  # oldest at the top, as in the table
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel(f"{label} (×{', log scale' if log else ''})", fontsize=7)
    ax.grid(axis="x", color="#d0d7de", linewidth=0.5)
    ax.set_axisbelow(True)
    if ax.get_legend_handles_labels()[0]:
        fig.legend(loc="outside right center", fontsize=6, frameon=False, handlelength=1.6)
    return fig


def hockey_stick(
    results: pd.DataFrame,
    targets: Sequence[str],
    slos: Mapping[str, float],
    title: str,
    capacities: Mapping[str, tuple[float, str]] | None = None,
) -> Figure:
    """Latency against offered load under an open loop, for a few targets on one chart:
    p99 (solid) and p50 (dotted) medians over runs with their CI as bands, both axes on
    log scales (rates and latencies span decades), each target's SLO as a dashed
    horizontal line and its capacity at that SLO (``capacities``: target → (req/s, "" or
    "at least")) as a dotted vertical one, in the target's colour. A rate the tool fell
    short of in any run is crossed (rate_shortfall): it was not all offered."""
    fig, ax = plt.subplots(figsize=(7, 5.2))
    shortfall_drawn = False
    name = reader_names(results, targets)
    for target in targets:
        runs = results[results["target"] == target]
        if runs.empty:
            raise ValueError(f"no runs of {target!r}; have {sorted(set(results['target']))}")
        colour = colour_for(target)
        for column, label, line in (("lat_p99_ms", "p99", "-"), ("lat_p50_ms", "p50", ":")):
            curve = medians_with_ci(runs, column, by=("target_rate",)).sort_values("target_rate")
            ax.plot(curve["target_rate"], curve["median"], color=colour, linestyle=line,
                    marker="o", markersize=4, label=f"{name[target]}: {label}")  # fmt: skip
            ax.fill_between(curve["target_rate"], curve["low"], curve["high"], color=colour,
                            alpha=0.15, linewidth=0)  # fmt: skip
        short = runs[runs["flags"].fillna("").str.contains("rate_shortfall")]
        if len(short):
            p99 = medians_with_ci(runs, "lat_p99_ms", by=("target_rate",)).set_index("target_rate")
            rates = sorted(set(short["target_rate"]) & set(p99.index))
            tools = " and ".join(dict.fromkeys(map(str, short["tool"])))
            label = None if shortfall_drawn else f"{tools} short of the rate (rate_shortfall)"
            ax.plot(rates, p99.loc[rates, "median"], linestyle="none", marker="x", markersize=9,
                    color="black", label=label)  # fmt: skip
            shortfall_drawn = True
        slo = slos.get(target)
        if slo is not None and slo == slo:
            ax.axhline(slo, color=colour, linestyle="--", linewidth=1.2,
                       label=f"SLO of {name[target]}: p99 ≤ {slo:.3g} ms")  # fmt: skip
        rps, bound = (capacities or {}).get(target, (float("nan"), ""))
        if rps == rps:
            at = "≥ " if bound == "at least" else ""
            said = f"capacity of {name[target]} at its SLO: {at}{rps:,.0f} req/s"
            ax.axvline(rps, color=colour, linestyle=(0, (1, 2)), linewidth=1.5, label=said)
    ax.set_xscale("log")
    ax.set_xlabel("offered rate (req/s, log scale)")
    return _finish_log_latency(fig, ax, title, legend_size=7, legend_below=0.14)


def freeze_chart(percentiles: pd.DataFrame, title: str, model: str = "pause model") -> Figure:
    """The freeze server's latency percentiles by source (open_loop.freeze_percentiles):
    a bar per measured source with CI whiskers, hatched to tell them apart, and the
    model as a black tick on each group; log scale (the fast path and the stall are
    three decades apart)."""
    percentile_labels = list(dict.fromkeys(percentiles["percentile"]))
    sources = [s for s in dict.fromkeys(percentiles["source"]) if s != model]
    hatches = ("", "//", "..", "xx", "\\\\")
    width = 0.8 / max(len(sources), 1)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for i, source in enumerate(sources):
        part = percentiles[percentiles["source"] == source].set_index("percentile")
        part = part.reindex(percentile_labels)
        xs = [x + (i - (len(sources) - 1) / 2) * width for x in range(len(percentile_labels))]
        err = [part["median"] - part["low"], part["high"] - part["median"]]
        ax.bar(xs, part["median"], width, yerr=err, capsize=3, color=colour_for(source),
               hatch=hatches[i % len(hatches)], edgecolor="white", label=source)  # fmt: skip
    expected = percentiles[percentiles["source"] == model].set_index("percentile")
    if len(expected):
        expected = expected.reindex(percentile_labels)
        ax.plot(range(len(percentile_labels)), expected["median"], linestyle="none", marker="_",
                markersize=40, markeredgewidth=2, color="black", label=model)  # fmt: skip
    ax.set_xticks(range(len(percentile_labels)), percentile_labels)
    ax.set_xlabel("percentile of latency")
    return _finish_log_latency(fig, ax, title, legend_size=8, legend_below=0.16)


def _finish_log_latency(
    fig: Figure, ax: plt.Axes, title: str, legend_size: float, legend_below: float
) -> Figure:
    """A latency chart with a log y axis, its legend in two columns below the axes (a
    chart of many lines would hide some behind it)."""
    ax.set_yscale("log")
    ax.set_ylabel("latency (ms, log scale)")
    ax.legend(fontsize=legend_size, loc="upper center", bbox_to_anchor=(0.5, -legend_below),
              ncol=2)  # fmt: skip
    return finish_chart(fig, ax, title, legend=False)
