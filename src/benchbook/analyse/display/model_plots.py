"""Charts of the models over the measurements, in the report's style (plots.finish_chart,
chart_style colours): a reader sees at once where a model follows the points and where
it leaves them."""

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from benchbook.analyse.display.chart_style import line_style_for
from benchbook.analyse.display.plots import NEUTRAL, finish_chart
from benchbook.analyse.models import queueing as q
from benchbook.analyse.models.queueing_fit import QueueFit
from benchbook.analyse.models.shape import SweepShape

MODEL_LINES = {q.MM1: "--", q.MD1: ":", q.GG1: "-."}


def usl_curves(
    shapes: Mapping[str, SweepShape],
    title: str = "Throughput vs concurrency: USL fits",
    names: Mapping[str, str] | None = None,
) -> Figure:
    """Each round as a dot in the target's colour; where the USL keeps its rule, its fit
    as a line with its bootstrap band and a finite peak N* as a dotted vertical line;
    where a ceiling describes the rounds instead, the ceiling as a dashed level from its
    start; otherwise the rounds alone. Connections on a log scale."""
    fig, ax = plt.subplots(figsize=(7, 4.6))
    fits = [shape.fit for shape in shapes.values()]
    top = max(max(f.levels) for f in fits)
    low = min(min(f.levels) for f in fits)
    n = np.geomspace(max(1.0, low / 2), top * 1.5, 200)
    for target, shape in shapes.items():
        fit, name = shape.fit, (names or {}).get(target, target)  # as the tables name it
        colour = line_style_for(target)["color"]
        ax.plot(
            fit.points["connections"],
            fit.points["rps"],
            "o",
            color=colour,
            alpha=0.6,
            markersize=4,
            label=f"{name}: rounds",
        )
        if shape.ceiling is not None:
            ax.hlines(
                shape.ceiling.rate,
                shape.ceiling.start,
                n[-1],
                color=colour,
                linestyle="--",
                label=f"{name}: ceiling ≈ {shape.ceiling.rate:,.0f} req/s",
            )
        if not shape.usl_holds:
            continue
        ax.plot(n, fit.predict(n), color=colour, label=f"{name}: USL fit")
        band = fit.band(n)
        ax.fill_between(n, *band, color=colour, alpha=0.15, linewidth=0)
        peak = fit.params.peak
        if np.isfinite(peak) and n[0] <= peak <= n[-1]:
            ax.axvline(
                peak,
                color=colour,
                linestyle=":",
                linewidth=1.5,
                label=f"{name}: N* ≈ {peak:,.0f}",
            )
    ax.set_xscale("log")
    ax.set_xlabel("concurrent connections N (log scale)")
    ax.set_ylabel("requests per second")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    return finish_chart(fig, ax, title, legend=False)


def ratio_curve(
    ratio: pd.DataFrame,
    names: tuple[str, str],
    article: tuple[float, float] | None = None,
    measured: tuple[float, float] | None = None,
    title: str | None = None,
) -> Figure:
    """The predicted X_a(N)/X_b(N) with its bootstrap band; the article's concurrency
    and figure as a red cross, a measured ratio as a black dot, 1× dotted."""
    fig, ax = plt.subplots(figsize=(7, 3.4))
    label = f"{names[0]} / {names[1]}"
    ax.plot(ratio["connections"], ratio["ratio"], color=NEUTRAL, label=f"USL: {label}")
    ax.fill_between(
        ratio["connections"],
        ratio["low"],
        ratio["high"],
        color=NEUTRAL,
        alpha=0.2,
        linewidth=0,
        label="95 % band (bootstrap)",
    )
    if article is not None:
        ax.plot(
            *article,
            "x",
            color="#b42318",
            markersize=10,
            markeredgewidth=2,
            label=f"article: {article[1]:.3g}× at {article[0]:g}",
        )
    if measured is not None:
        ax.plot(
            *measured,
            "o",
            color="#1f2328",
            label=f"measured: {measured[1]:.3g}× at {measured[0]:g}",
        )
    ax.axhline(1, color="grey", linestyle=":", linewidth=1, label="no difference (1×)")
    ax.set_xscale("log")
    ax.set_xlabel("concurrent connections N (log scale)")
    ax.set_ylabel("predicted ratio of req/s (×)")
    return finish_chart(fig, ax, title or f"Predicted {label} over concurrency")


def latency_vs_utilisation(
    fit: QueueFit, stat: str = "p99", title: str | None = None, name: str = ""
) -> Figure:
    """Measured medians against ρ, each model's prediction as a line (anchored at the
    lightest load), the SLO dashed and each model's SLO crossing as a dotted vertical
    line; latency on a log scale (it spans decades near capacity). ``name``: the server
    as the tables name it (its target's label without one)."""
    name = name or fit.target
    fig, ax = plt.subplots(figsize=(7, 4.6))
    colour = line_style_for(fit.target)["color"]
    ax.plot(
        fit.points["rho"],
        fit.points[stat],
        "o",
        color=colour,
        markersize=6,
        label=f"{name}: measured {stat} (median)",
    )
    rho = np.linspace(0.0, 0.98, 200)
    for model, formulas in q.formulas(*_variability(fit)).items():
        curve = q.predicted_ms(formulas[stat], rho, fit.mu, fit.unloaded[stat])
        ax.plot(
            rho,
            curve,
            color=NEUTRAL,
            linestyle=MODEL_LINES.get(model, "-"),
            label=f"{model} {stat}",
        )
    if fit.slo_ms is not None and stat == "p99":
        ax.axhline(
            fit.slo_ms,
            color="#b42318",
            linestyle="--",
            linewidth=1.2,
            label=f"SLO: p99 ≤ {fit.slo_ms:g} ms",
        )
        for model, at in fit.slo_rho.items():
            ax.axvline(
                at,
                color="#b42318",
                linestyle=MODEL_LINES.get(model, "-"),
                linewidth=0.8,
                label=f"{model} reaches the SLO at ρ ≈ {at:.2f}",
            )
    ax.axvline(1, color="grey", linestyle="-", linewidth=0.8, label="capacity (ρ = 1)")
    ax.set_xlim(0, max(1.05, float(fit.points["rho"].max()) + 0.05))
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("utilisation ρ = achieved rate / capacity μ")
    ax.set_ylabel(f"{stat} latency (ms, log scale)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2)
    title = title or f"{name}: {stat} vs utilisation"
    return finish_chart(fig, ax, title, legend=False)


def _variability(fit: QueueFit) -> tuple[float | None, float | None]:
    """The ca², cs² the fit was made with (Kingman's columns exist only then)."""
    return (fit.ca2, fit.cs2) if q.GG1 + " p99" in fit.points else (None, None)
