"""Queueing formulas against values worked out by hand, the M/D/1 tail against a
simulated queue, and the model choice on points each model generated."""

import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from benchbook.analyse.display import model_plots
from benchbook.analyse.display import model_sections as sections
from benchbook.analyse.experiments import open_loop
from benchbook.analyse.models import queueing, queueing_fit
from benchbook.analyse.words import models as wording
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import Run

MU, LAM = 100.0, 80.0  # ρ = 0.8


def test_mm1_by_hand() -> None:
    # 1/(100 − 80) = 50 ms; p99 = 50 ms × ln 100 ≈ 230.26 ms.
    assert queueing.mm1_mean_response(LAM, MU) == pytest.approx(0.050)
    assert queueing.mm1_response_quantile(LAM, MU) == pytest.approx(0.23026, abs=1e-5)
    assert queueing.mm1_response_quantile(LAM, MU, 0.5) == pytest.approx(0.050 * math.log(2))
    assert queueing.mm1_mean_response(100.0, MU) == math.inf


def test_md1_by_hand() -> None:
    # Pollaczek–Khinchine, constant service: 0.8 / (2 × 100 × 0.2) = 20 ms of wait,
    # plus 10 ms of service: 30 ms.
    assert queueing.md1_mean_wait(LAM, MU) == pytest.approx(0.020)
    assert queueing.md1_mean_response(LAM, MU) == pytest.approx(0.030)
    theta = queueing.md1_decay_rate(LAM, MU)
    assert LAM * math.expm1(theta / MU) == pytest.approx(theta, rel=1e-9)
    # θ ≈ 43.08/s at ρ = 0.8: x = θ/μ solves 0.8(eˣ − 1) = x; by hand, x = 0.4308 gives
    # 0.8 × (1.53850 − 1) = 0.4308. The p99 wait is then ln(0.8/0.01)/θ.
    assert theta == pytest.approx(43.08, abs=0.01)
    p99 = 0.010 + math.log(80) / theta
    assert queueing.md1_response_quantile(LAM, MU) == pytest.approx(p99)


def test_kingman_reduces_to_the_exact_formulas() -> None:
    # ca² = cs² = 1 is M/M/1's wait ρ/(μ(1 − ρ)) = 40 ms; cs² = 0 is M/D/1's 20 ms.
    assert queueing.kingman_mean_wait(LAM, MU, 1, 1) == pytest.approx(0.040)
    assert queueing.kingman_mean_wait(LAM, MU, 1, 0) == pytest.approx(0.020)
    assert queueing.kingman_mean_wait(LAM, MU, 0, 0) == 0  # D/D/1 below capacity: no wait
    # Its p99, P(wait > t) = ρe^(−ρt/W̄), is M/M/1's exact wait tail: 10 ms + ln 80 × 50 ms.
    expected = 0.010 + math.log(80) * 0.050
    assert queueing.kingman_response_quantile(LAM, MU, 1, 1) == pytest.approx(expected)


def test_the_md1_tail_approximation_against_a_simulated_queue() -> None:
    """Lindley's recursion W' = max(0, W + S − A) over 200,000 Poisson arrivals with
    constant service; the approximate p99 response within 5 % of the simulated one."""
    rng = np.random.default_rng(11)
    gaps = rng.exponential(1 / LAM, 200_000)
    wait, waits = 0.0, np.empty(len(gaps))
    for i, gap in enumerate(gaps):
        waits[i] = wait
        wait = max(0.0, wait + 1 / MU - gap)
    simulated = np.quantile(waits[10_000:], 0.99) + 1 / MU
    assert queueing.md1_response_quantile(LAM, MU) == pytest.approx(simulated, rel=0.05)
    assert waits[10_000:].mean() == pytest.approx(queueing.md1_mean_wait(LAM, MU), rel=0.05)


def test_the_slo_crossing_by_hand() -> None:
    # Anchored at M/M/1's own idle p99 (ln 100 / μ), the prediction is exactly M/M/1's
    # p99, which reaches 230.26 ms at ρ = 0.8.
    idle = 1000 * math.log(100) / MU
    rho = queueing.slo_utilisation(queueing.mm1_response_quantile, 230.2585, MU, idle)
    assert rho == pytest.approx(0.8, abs=1e-4)
    assert queueing.slo_utilisation(queueing.mm1_response_quantile, 5.0, MU, 6.0) == 0.0


def open_loop_rows(model: str, mu: float = 1000.0, unloaded: float = 2.0) -> pd.DataFrame:
    """Runs of an open-loop sweep whose mean and p99 follow ``model`` (anchored at
    ``unloaded`` ms), 3 % noise, plus a rate past capacity the fit must leave out."""
    rng = np.random.default_rng(5)
    formulas = queueing.formulas()[model]
    rows = []
    for rho in (0.1, 0.3, 0.5, 0.7, 0.85, 0.95, 1.2):
        for r in range(3):
            noise = math.exp(rng.normal(0, 0.03))
            p99 = queueing.predicted_ms(formulas["p99"], min(rho, 0.999), mu, 3 * unloaded)
            mean = queueing.predicted_ms(formulas["mean"], min(rho, 0.999), mu, unloaded)
            rows.append(
                {
                    "target": "srv",
                    "repetition": r,
                    "target_rate": rho * mu,
                    "achieved_rate": min(rho, 1.0) * mu,
                    "lat_mean_ms": mean * noise,
                    "lat_p50_ms": mean * noise,
                    "lat_p99_ms": p99 * noise,
                    "flags": "",
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("model", [queueing.MM1, queueing.MD1])
def test_the_model_that_made_the_points_is_the_one_they_follow(model: str) -> None:
    fit = queueing_fit.fit(open_loop_rows(model), "srv", 1000.0, slo_ms=20.0)
    assert fit.best("p99") == model and fit.best("mean") == model
    assert fit.row(model)["follows_up_to_rho"] == pytest.approx(0.95)
    assert fit.row(model)["points"] == 5  # 6 below capacity, the anchor not scored
    assert 0.5 < fit.slo_rho[model] < 1
    sentence = wording.queue_sentence(fit)
    assert f"follows {model}" in sentence and f"ρ ≈ {fit.slo_rho[model]:.2f}" in sentence
    assert isinstance(model_plots.latency_vs_utilisation(fit), Figure)


def test_kingman_enters_only_with_measured_variability() -> None:
    rows = open_loop_rows(queueing.MM1)
    assert queueing.GG1 not in set(queueing_fit.fit(rows, "srv", 1000.0).errors["model"])
    fit = queueing_fit.fit(rows, "srv", 1000.0, ca2=1.0, cs2=1.0)
    assert queueing.GG1 in set(fit.errors["model"])
    assert fit.points[f"{queueing.GG1} mean"].to_numpy() == pytest.approx(
        fit.points[f"{queueing.MM1} mean"].to_numpy()
    )
    assert isinstance(model_plots.latency_vs_utilisation(fit, "mean"), Figure)


def test_points_far_above_every_model_follow_none_and_the_table_says_which_missed_least() -> None:
    rows = open_loop_rows(queueing.MM1)
    rows.loc[rows["target_rate"] > 100, "lat_p99_ms"] *= 5  # a tail no queue explains
    rows["server"] = "srv"
    fits = sections.fit_load(rows, {"srv": 1000.0}, {"srv": 20.0}).fits
    fit = fits["srv"]
    assert math.isnan(fit.row(fit.best())["follows_up_to_rho"])
    assert "follows no model well" in wording.queue_sentence(fit)
    table = wording.queue_table(fits)
    assert list(table.index) == [("srv", queueing.MM1), ("srv", queueing.MD1)]
    assert table["best"].tolist().count("✓") == 1
    assert queueing_fit.measured_slo_rho(fit) < fit.slo_rho[fit.best()]


# A stored open-loop load of notebook 06 (2026-11-26) and its closed-loop maxima: vegeta
# was at its CPU limit in 10 of the 20 runs offered to the 1 ms-sleep Go server.
LOAD = "20261126T031924Z-06_open_loop_load-fe21"
MAXIMA = "20261126T031848Z-06_open_loop_maxima-a1ca"


def stored(tmp_path: Path, run_id: str) -> pd.DataFrame:
    """A stored run's results, copied into a runs folder of the test's own and read back."""
    (tmp_path / run_id).mkdir()
    for name in ("manifest.json", "results.csv"):
        shutil.copy(REPO_ROOT / "data" / "runs" / run_id / name, tmp_path / run_id / name)
    return Run(tmp_path / run_id).results()


def test_queues_are_not_laid_over_runs_where_the_load_tool_was_the_limit(tmp_path: Path) -> None:
    load = stored(tmp_path, LOAD)
    maxima = open_loop.closed_loop_maxima(stored(tmp_path, MAXIMA))
    target = "go-iodelay"
    runs = load[load["target"] == target]
    limited = runs["flags"].str.contains("client_bound|near_tool_ceiling|rate_shortfall")
    assert limited.sum() == 10 and len(runs) == 20
    models = sections.fit_load(load, maxima, {target: 20.0})
    fit = models.fits[target]
    assert fit.runs == 10 and fit.left_out == 10
    # Every point the queues are scored on comes from runs the tool kept up with.
    assert set(fit.points["offered"]) == set(runs.loc[~limited, "target_rate"])
    assert fit.points["runs"].sum() == (~limited).sum()
    sentence = wording.queue_sentence(fit)
    assert sentence.endswith(
        "(fitted to 10 of 20 runs; 10 left out where the load tool was the limit)."
    )
    assert wording.queue_table(models.fits).loc[(target, queueing.MM1), "runs fitted"] == "10 of 20"
