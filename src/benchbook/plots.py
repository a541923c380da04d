"""Bar charts of medians with their confidence intervals, and curves over time or load."""

import textwrap
from collections.abc import Mapping

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from benchbook.sweep import sweep_summary
from benchbook.tables import medians_with_ci, with_derived


def _finish(fig: Figure, ax: plt.Axes, title: str, legend: bool = True) -> Figure:
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=8)
    fig.tight_layout()
    plt.close(fig)  # the caller displays it; no second copy from the inline backend
    return fig


def bars_with_ci(
    results: pd.DataFrame, column: str, ylabel: str, title: str, log: bool = False
) -> Figure:
    """One bar per target: the median of ``column``, whiskers at its CI."""
    m = medians_with_ci(results, column)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    err = [m["median"] - m["low"], m["high"] - m["median"]]
    # Long labels ("locust FastHttpUser x2") wrap instead of running into each other.
    labels = [textwrap.fill(str(t), 16) for t in m["target"]]
    bars = ax.bar(labels, m["median"], yerr=err, capsize=6, color="#4C72B0")
    ax.bar_label(bars, labels=[f"{v:,.0f}" if v >= 100 else f"{v:.2f}" for v in m["median"]],
                 padding=3, fontsize=8)  # fmt: skip
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.margins(y=0.15)
    ax.tick_params(axis="x", labelsize=8)
    return _finish(fig, ax, title, legend=False)


def latency_percentiles(results: pd.DataFrame, title: str) -> Figure:
    """Median p50, p90 and p99 latency per target, log scale (they span decades)."""
    data = with_derived(results)
    columns = {"lat_p50_ms": "p50", "lat_p90_ms": "p90", "lat_p99_ms": "p99"}
    targets = list(dict.fromkeys(data["target"]))
    fig, ax = plt.subplots(figsize=(7, 3.6))
    width = 0.8 / len(columns)
    for i, (col, label) in enumerate(columns.items()):
        m = medians_with_ci(results, col).set_index("target").loc[targets]
        xs = [x + (i - 1) * width for x in range(len(targets))]
        err = [m["median"] - m["low"], m["high"] - m["median"]]
        ax.bar(xs, m["median"], width, yerr=err, capsize=3, label=label)
    ax.set_xticks(range(len(targets)), targets, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("latency (ms, log scale)")
    return _finish(fig, ax, title)


def sweep_curves(
    results: pd.DataFrame,
    column: str,
    ylabel: str,
    title: str,
    knees: dict[str, int | None] | None = None,
    log_y: bool = False,
) -> Figure:
    """One line per target over connection counts, the CI as a band, knees dotted."""
    curves = sweep_summary(results, column)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for target, curve in curves.groupby("target", sort=False):
        (line,) = ax.plot(curve["connections"], curve["median"], marker="o", label=target)
        ax.fill_between(curve["connections"], curve["low"], curve["high"], alpha=0.2,
                        color=line.get_color())  # fmt: skip
        knee = (knees or {}).get(target)
        if knee is not None:
            ax.axvline(knee, linestyle=":", color=line.get_color())
    ax.set_xscale("log")
    ax.set_xlabel("connections (log scale)")
    ax.set_ylabel(ylabel)
    if log_y:
        ax.set_yscale("log")
    return _finish(fig, ax, title)


def ratio_curves(table: pd.DataFrame, x: str, curve: str, ratio: str, title: str) -> Figure:
    """A ratio (e.g. cc/sc req/s) along ``x``, one line per ``curve`` value, CI whiskers,
    and the line of no difference at 1."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for value, part in table.groupby(level=curve):
        part = part.droplevel(curve).sort_index()
        err = [part[ratio] - part["CI low"], part["CI high"] - part[ratio]]
        ax.errorbar(part.index, part[ratio], yerr=err, marker="o", capsize=4,
                    label=f"{curve} = {value}")  # fmt: skip
    ax.axhline(1, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel(f"{x} (log scale)")
    ax.set_ylabel(ratio)
    return _finish(fig, ax, title)


def timeseries(runs: Mapping[str, pd.DataFrame], title: str) -> Figure:
    """Users running, requests completed and p95 latency second by second, one line per
    run (``runs``: label → loadgen.locust.per_second frame), on one time axis."""
    panels = {"users": "users", "rps": "requests/s", "p95_ms": "p95 ms (last 10 s)"}
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 6), sharex=True)
    for label, frame in runs.items():
        for ax, column in zip(axes, panels, strict=True):
            ax.plot(frame["t_s"], frame[column], label=label, linewidth=1.2)
    for ax, ylabel in zip(axes, panels.values(), strict=True):
        ax.set_ylabel(ylabel)
    axes[-1].set_xlabel("seconds since the run started")
    axes[0].legend(fontsize=8)
    return _finish(fig, axes[0], title, legend=False)
