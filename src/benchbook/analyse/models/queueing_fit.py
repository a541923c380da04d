"""Which queue the measured latencies follow, and where a predicted p99 breaks an SLO.

The measured points are an open-loop sweep's medians per offered rate, at utilisation
ρ = achieved rate / capacity μ. A model's error at a point is |ln(predicted/measured)|
(a factor of 2 too high or too low costs the same); the model the points follow best is
the one with the lowest median error over the points below capacity (ρ < 1: beyond it
no queue is steady and every model predicts an unbounded wait), the lightest point left
out: every prediction is anchored there. "Follows up to ρ" is the
highest ρ up to which every point past the anchor is within FOLLOWS of the model (nan
when the first of them is not).
"""

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchbook.analyse.models import queueing as q
from benchbook.analyse.models.runs_used import RATE_SHORTFALL, tool_limited
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.rows.names import reader_name

FOLLOWS = 1.5  # within a factor of 1.5 either way
COLUMNS = {"mean": "lat_mean_ms", "p50": "lat_p50_ms", "p99": "lat_p99_ms"}


def fitted_rows(results: pd.DataFrame, target: str) -> tuple[pd.DataFrame, int]:
    """The valid runs of ``target`` where the server, not the load tool, set the
    latencies (runs_used; a rate shortfall too), and how many valid runs that leaves out."""
    rows = valid_rows(results[results["target"] == target])
    limited = tool_limited(rows, also=(RATE_SHORTFALL,))
    return rows[~limited], int(limited.sum())


def load_points(results: pd.DataFrame, target: str, mu: float) -> pd.DataFrame:
    """Per offered rate: the median achieved rate, ρ and median latencies over the valid
    runs where the server, not the load tool, was the limit (fitted_rows)."""
    rows, _left_out = fitted_rows(results, target)
    if rows.empty:
        raise ValueError(f"{target}: no valid open-loop runs the load tool kept up with")
    grouped = rows.groupby("target_rate", sort=True)
    points = pd.DataFrame(
        {
            "offered": grouped["target_rate"].first(),
            "achieved": grouped["achieved_rate"].median(),
            "runs": grouped.size(),
        }
    )
    for stat, column in COLUMNS.items():
        points[stat] = grouped[column].median()
    points["rho"] = points["achieved"] / mu
    return points.reset_index(drop=True)


@dataclass(frozen=True)
class QueueFit:
    """One server's measured points beside each model's predictions."""

    target: str
    mu: float
    unloaded: dict[str, float]  # statistic → ms, at the lightest load measured
    points: pd.DataFrame  # offered, achieved, runs, mean, p50, p99, rho, <model> <stat>
    errors: pd.DataFrame  # per model and statistic: median |log error|, follows up to ρ
    slo_ms: float | None = None
    slo_rho: dict[str, float] = field(default_factory=dict)  # model → ρ at the SLO
    ca2: float | None = None  # variability of the gaps between arrivals (Kingman)
    cs2: float | None = None  # variability of service times (Kingman)
    left_out: int = 0  # valid runs left out: the load tool, not the server, was the limit
    name: str = ""  # what a reader calls the target (rows.names); its label when ''

    @property
    def called(self) -> str:
        return self.name or self.target

    @property
    def runs(self) -> int:
        """The runs the fit used."""
        return int(self.points["runs"].sum())

    def best(self, stat: str = "p99") -> str:
        """The model with the lowest median |log error| on ``stat``."""
        part = self.errors[self.errors["statistic"] == stat]
        return str(part.sort_values("median_log_error", kind="stable").iloc[0]["model"])

    def row(self, model: str, stat: str = "p99") -> pd.Series:
        part = self.errors
        return part[(part["model"] == model) & (part["statistic"] == stat)].iloc[0]


def _errors(points: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    below = points[points["rho"] < 1].sort_values("rho")
    rows = []
    for model in models:
        for stat in q.STATISTICS:
            error = np.abs(np.log(below[f"{model} {stat}"] / below[stat])).to_numpy()
            scored = error[1:]  # the lightest point is the anchor: its error is 0 by design
            within = scored <= math.log(FOLLOWS)
            upto = float("nan")  # not even the first point past the anchor is within
            if len(within) and within[0]:
                last = len(within) if within.all() else int(np.argmin(within))
                upto = float(below["rho"].iloc[last])  # below[0] is the anchor
            rows.append(
                {
                    "model": model,
                    "statistic": stat,
                    "points": len(scored),
                    "median_log_error": float(np.median(scored)) if len(scored) else np.nan,
                    "follows_up_to_rho": upto,
                }
            )
    return pd.DataFrame(rows)


def fit(
    results: pd.DataFrame,
    target: str,
    mu: float,
    slo_ms: float | None = None,
    ca2: float | None = None,
    cs2: float | None = None,
) -> QueueFit:
    """Predict every point with every model (Kingman's when ca², cs² are given), anchored
    at the lightest load's latencies; score the models; find where p99 meets the SLO.
    Only runs where the server set the latencies are used (fitted_rows), and counted."""
    points = load_points(results, target, mu)
    lightest = points.iloc[0]
    unloaded = {stat: float(lightest[stat]) for stat in q.STATISTICS}
    models = q.formulas(ca2, cs2)
    for model, stats in models.items():
        for stat, formula in stats.items():
            points[f"{model} {stat}"] = q.predicted_ms(formula, points["rho"], mu, unloaded[stat])
    errors = _errors(points, list(models))
    slo_rho = {}
    if slo_ms is not None:
        slo_rho = {
            m: q.slo_utilisation(s["p99"], slo_ms, mu, unloaded["p99"]) for m, s in models.items()
        }
    _rows, left_out = fitted_rows(results, target)
    return QueueFit(
        target, mu, unloaded, points, errors, slo_ms, slo_rho, ca2, cs2, left_out,
        reader_name(results, target),
    )  # fmt: skip


def measured_slo_rho(fit: QueueFit) -> float:
    """The highest measured ρ whose median p99 is within the SLO, with every lighter
    point within it too (nan without an SLO or when the lightest point breaks it)."""
    if fit.slo_ms is None:
        return float("nan")
    below = fit.points.sort_values("rho")
    ok = (below["p99"] <= fit.slo_ms).to_numpy()
    if not len(ok) or not ok[0]:
        return float("nan")
    last = len(ok) if ok.all() else int(np.argmin(ok))
    return float(below["rho"].iloc[last - 1])


def slo_held_throughout(fit: QueueFit) -> bool:
    """Every fitted point's median p99 met the SLO: the highest ρ measured within it is
    only where the measuring stopped, not where the SLO broke."""
    return fit.slo_ms is not None and bool((fit.points["p99"] <= fit.slo_ms).all())
