"""Sessions and machine classes as levels: the pooled ratio, its interval and the prediction
for the next session (plain t over the sessions' log estimates), the borrowed spread of a
headline with few sessions, checked by hand, against statsmodels (tau), on edge cases; the
coverage of the rules is simulated in test_interval_coverage."""

import math

import numpy as np
import pytest
from scipy import stats

from benchbook.analyse.sessions.levels import (
    THIS_CLASS,
    VARIANCE_FLOOR,
    Session,
    Spread,
    by_class,
    kind_spread,
    leave_one_out,
    log_variance,
    moderated,
    pooled,
    prior_spread,
    strays_more,
)

# (ratio, ci_low, ci_high, ci_level): sessions that disagree beyond their noise (tau² > 0),
# at the coverages the order-statistic intervals actually achieve.
SPREAD = [
    (2.0, 1.9, 2.1, 0.95),
    (2.4, 2.2, 2.6, 0.937),
    (1.8, 1.7, 1.9, 0.968),
    (2.9, 2.6, 3.2, 0.95),
]
# Sessions that agree within their noise (tau² = 0).
AGREE = [(2.0, 1.6, 2.5, 0.95), (2.02, 1.7, 2.4, 0.937), (1.98, 1.6, 2.4, 0.968)]


def sessions(rows: list[tuple[float, float, float, float]], machine: str = "") -> list[Session]:
    return [Session(*row, machine_class=machine, run_id=f"r{i}") for i, row in enumerate(rows)]


def logs(rows: list[tuple[float, float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Log ratios and the within-session variances their intervals imply."""
    r, lo, hi, level = (np.array(c) for c in zip(*rows, strict=True))
    return np.log(r), ((np.log(hi) - np.log(lo)) / (2 * stats.norm.ppf(0.5 + level / 2))) ** 2


def by_hand(rows: list[tuple[float, float, float, float]]) -> dict[str, float]:
    """Paule–Mandel tau² (with the intervals' variances), the mean of the log ratios, its t
    interval and the t prediction interval, step by step and without the module."""
    y, v = logs(rows)
    k = len(y)

    def q(tau2: float) -> float:  # Σ w (y − m)², decreasing in tau²
        w = 1 / (v + tau2)
        return float(np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2))

    tau2, upper = 0.0, 10.0
    if q(0.0) > k - 1:  # bisect Q(tau²) = k − 1
        for _ in range(200):
            mid = (tau2 + upper) / 2
            tau2, upper = (mid, upper) if q(mid) > k - 1 else (tau2, mid)
    m, s = float(np.mean(y)), float(np.std(y, ddof=1))
    ci = stats.t.ppf(0.975, k - 1) * s / math.sqrt(k)
    pi = stats.t.ppf(0.975, k - 1) * s * math.sqrt(1 + 1 / k)
    return {
        "tau": math.sqrt(tau2),
        "estimate": math.exp(m),
        "low": math.exp(m - ci),
        "high": math.exp(m + ci),
        "predict_low": math.exp(m - pi),
        "predict_high": math.exp(m + pi),
    }


@pytest.mark.parametrize("rows", [SPREAD, SPREAD[:3], AGREE], ids=["k4", "k3", "tau0"])
def test_pooled_matches_the_hand_computation(rows: list) -> None:
    fit = pooled(sessions(rows))
    assert fit is not None and fit.sessions == len(rows)
    for name, expected in by_hand(rows).items():
        assert getattr(fit, name) == pytest.approx(expected, rel=1e-9, abs=1e-12), name
    assert (fit.tau > 0) == (rows is not AGREE)


def test_tau_matches_statsmodels() -> None:
    meta = pytest.importorskip("statsmodels.stats.meta_analysis")
    y, v = logs(SPREAD)
    res = meta.combine_effects(y, v, method_re="pm", use_t=True, atol=1e-12, maxiter=200)
    fit = pooled(sessions(SPREAD))
    assert fit is not None
    assert fit.tau**2 == pytest.approx(res.tau2, rel=1e-6)


@pytest.mark.parametrize(
    ("session", "expected"),
    [
        (Session(2.0, 1.8, 2.2, 0.95), (math.log(2.2 / 1.8) / (2 * 1.959963984540054)) ** 2),
        (Session(2.0, 2.0, 2.0, 0.95), VARIANCE_FLOOR),
        (Session(2.0, 1.8, 2.2, 0.0), VARIANCE_FLOOR),
        (Session(2.0, 1.8, 2.2, float("nan")), VARIANCE_FLOOR),
    ],
    ids=["ci", "no-width", "level-0", "level-nan"],
)
def test_log_variance(session: Session, expected: float) -> None:
    assert log_variance(session) == pytest.approx(expected, rel=1e-12)


def test_log_variance_prefers_the_rounds() -> None:
    assert log_variance(Session(2.0, 1.5, 2.5, 0.95, variance=4e-4)) == 4e-4
    assert log_variance(Session(2.0, 1.5, 2.5, 0.95, variance=0.0)) == VARIANCE_FLOOR


def test_identical_sessions_pool_to_their_ratio() -> None:
    fit = pooled(sessions([(2.0, 1.8, 2.2, 0.95)] * 4))
    assert fit is not None and fit.tau == 0
    assert fit.low == fit.estimate == fit.high == pytest.approx(2.0)


def test_one_headline_lends_its_own_spread_and_degrees_of_freedom() -> None:
    y = np.log([2.0, 2.2, 1.8])
    found = kind_spread([[2.0, 2.2, 1.8], [7.0]], THIS_CLASS)  # a lone session counts for nothing
    assert found is not None and (found.df, found.headlines) == (2, 1)
    assert found.sd == pytest.approx(float(np.std(y, ddof=1)))
    assert kind_spread([[7.0], []], THIS_CLASS) is None


def test_the_prior_is_worth_more_the_more_alike_the_headlines_spreads_are() -> None:
    """Smyth's moments: spreads drawn from one scaled χ² give a large d₀ and s₀ near the
    truth; spreads 10× apart, a small d₀ (each headline leans on the others less)."""
    rng = np.random.default_rng(3)
    alike = 0.05**2 * rng.chisquare(7, (1, 40)) / 7
    s0, d0 = prior_spread(alike, np.full(40, 7.0))
    assert d0[0] > 30 and s0[0] == pytest.approx(0.05, rel=0.1)
    unlike = alike * np.exp(rng.normal(0, 1.2, (1, 40)))
    assert prior_spread(unlike, np.full(40, 7.0))[1][0] < 5


def test_the_moderated_prediction_leans_on_the_kind_and_narrows_with_agreeing_sessions() -> None:
    spread = Spread(sd=0.05, df=10.0, headlines=4, scope=THIS_CLASS)
    one = sessions([(3.0, 2.9, 3.1, 0.95)])
    fit = moderated(one, spread)
    q = stats.t.ppf(0.975, 10) * 0.05
    assert fit is not None and fit.estimate == pytest.approx(3.0)
    assert fit.predict_high == pytest.approx(3.0 * math.exp(q * math.sqrt(2)))
    widths = []
    for k in range(1, 11):  # sessions at the estimate: one more degree of freedom each
        model = moderated(sessions([(3.0, 2.9, 3.1, 0.95)] * k), spread)
        widths.append(model.predict_high / model.predict_low)  # type: ignore[union-attr]
    assert all(later < earlier for earlier, later in zip(widths, widths[1:], strict=False))
    # its own scatter counts: two sessions 20 % apart widen it beyond the kind's
    apart = moderated(sessions([(2.7, 2.6, 2.8, 0.95), (3.3, 3.2, 3.4, 0.95)]), spread)
    assert apart.predict_high / apart.predict_low > widths[1]  # type: ignore[union-attr]


def test_sessions_that_disagree_predict_wider_than_their_spread() -> None:
    rows = [(r, r * 0.98, r * 1.02, 0.95) for r in (1.5, 2.0, 3.0, 4.0)]
    fit = pooled(sessions(rows))
    assert fit is not None and fit.tau > 0.3
    assert fit.predict_low < 1.5 and fit.predict_high > 4.0
    assert fit.predict_low < fit.low < fit.estimate < fit.high < fit.predict_high


@pytest.mark.parametrize(
    ("ratios", "k"),
    [
        ([2.0, 2.1], None),
        ([2.0, 2.1, float("nan")], None),
        ([2.0, 2.1, 0.0, -1.0], None),
        ([2.0, 2.1, 1.9], 3),
        ([2.0, float("nan"), 2.1, 0.0, 1.9, -2.0, float("inf")], 3),
    ],
)
def test_pooled_needs_three_usable_sessions(ratios: list[float], k: int | None) -> None:
    fit = pooled(sessions([(r, 1.8, 2.3, 0.95) for r in ratios]))
    assert (fit and fit.sessions) == k
    if k is not None:
        assert fit == pooled(sessions([(r, 1.8, 2.3, 0.95) for r in (2.0, 2.1, 1.9)]))


def test_leave_one_out() -> None:
    rows = [(r, r * 0.97, r * 1.03, 0.95) for r in (2.0, 2.1, 1.9, 2.05, 20.0)]
    held = leave_one_out(sessions(rows))
    assert [h.run_id for h in held] == ["r0", "r1", "r2", "r3", "r4"]
    assert [h.ratio for h in held] == [r for r, *_ in rows]
    assert not held[4].inside and held[4].predict_high < 20.0
    assert all(h.inside == (h.predict_low <= h.ratio <= h.predict_high) for h in held)
    assert leave_one_out(sessions(rows[:3])) == []  # two would remain, and nothing to borrow


@pytest.mark.parametrize("k", [2, 3])
def test_one_or_two_remaining_sessions_predict_the_one_left_out_with_a_borrowed_spread(
    k: int,
) -> None:
    spread = Spread(sd=0.05, df=40, headlines=20, scope=THIS_CLASS)
    rows = [(r, r * 0.97, r * 1.03, 0.95) for r in (2.0, 2.1, 2.6)[:k]]
    held = leave_one_out(sessions(rows, "class"), spread)
    assert len(held) == k and all(h.borrowed and h.machine_class == "class" for h in held)
    for i, h in enumerate(held):
        rest = moderated(sessions(rows[:i] + rows[i + 1 :]), spread)
        assert rest is not None and (h.predict_low, h.predict_high) == (
            rest.predict_low,
            rest.predict_high,
        )
    if k == 2:  # ±t(40) · 0.05 · √2 around either holds the other, 4.9 % away
        assert held[0].inside and held[1].inside
    else:  # 2.6 is 27 % above the other two's mean: outside ±t(41) · ~0.05 · √1.5
        assert not held[2].inside
    # from four sessions on, three remain: no longer marked as leaning on the kind
    four = rows + [(1.9, 1.8, 2.0, 0.95)] * (4 - k)
    assert not any(h.borrowed for h in leave_one_out(sessions(four), spread))


def test_by_class_keeps_first_seen_order() -> None:
    mixed = sessions(SPREAD[:2], "b") + sessions(SPREAD[2:], "a") + sessions(AGREE[:1], "b")
    groups = by_class(mixed)
    assert list(groups) == ["b", "a"]
    assert [s.ratio for s in groups["b"]] == [2.0, 2.4, 2.0]


def test_a_headline_scattering_more_than_its_kind_is_predicted_from_its_own_sessions() -> None:
    """Notebook 05's Go HealthCheck on the Intel class (2026-12-07): four sessions 0.847,
    0.882, 0.882, 0.992 against a kind whose spread was 0.031 (its headlines agreeing, d₀
    inf). Leaning on the kind put the next-session range inside its own 95 % CI and left out
    its own latest session; its own spread puts every session inside."""
    ratios = [0.847, 0.882, 0.882, 0.992]
    sessions = [Session(r, r * 0.9, r * 1.1, 0.95, "c", str(i)) for i, r in enumerate(ratios)]
    kind = Spread(0.031, math.inf, 10, THIS_CLASS)
    y = np.log(ratios)
    assert strays_more(float(((y - y.mean()) ** 2).sum()), 4, kind)
    fit, own = moderated(sessions, kind), pooled(sessions)
    assert fit is not None and own is not None
    assert fit.predict_low < own.low and fit.predict_high > own.high
    assert all(fit.holds(r) for r in ratios)
    # a headline that scatters as its kind does still leans on the kind
    alike = [1.0, 1.02, 0.98, 1.01]
    y = np.log(alike)
    assert not strays_more(float(((y - y.mean()) ** 2).sum()), 4, kind)
