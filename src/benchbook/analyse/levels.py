"""How far a headline ratio holds beyond the sessions that measured it.

A headline (Go req/s ÷ Python req/s, say) is measured in sessions, one complete run of an
experiment each. A session's confidence interval covers only what varied inside it; between
sessions the machine itself changes speed, so estimates scatter more than their intervals
say, and machine classes (one CPU identity + core count) may differ again. We treat this as
a random-effects meta-analysis on the log scale, where a ratio and its inverse are mirror
images and effects add (Borenstein et al. 2009, Introduction to Meta-Analysis):

    y_i = log(estimate of session i) = mu + u_i + e_i,   u_i ~ N(0, tau²),   e_i ~ N(0, v_i)

mu is the class's true log ratio, u_i the session's own shift (tau: how much sessions
disagree beyond their noise), e_i the session's noise, whose variance v_i is read off its
interval (log_variance). With weights w_i = 1 / (v_i + tau²):

1. tau² by Paule–Mandel: the tau² at which Q = Σ w_i (y_i − m)² equals its expectation
   k − 1 (tau² = 0 if Q < k − 1 already at 0). Not DerSimonian–Laird: DL is one step of the
   same moment equation with fixed-effect weights and underestimates tau² when k is small and
   the v_i differ, which is our case (Veroniki et al. 2016 and Langan et al. 2019 recommend PM).
2. The pooled mean m = Σ w_i y_i / Σ w_i, reported as exp(m).
3. Its interval m ± t(k−1) · SE with SE² = max(1, Q / (k − 1)) / Σ w_i: Hartung–Knapp–
   Sidik–Jonkman, which uses t with k − 1 degrees of freedom because tau² itself was estimated
   from only k sessions (the normal interval is far too narrow for k = 3…5, IntHout et al.
   2014). Under PM, Q = k − 1 whenever tau² > 0, so the max(1, ·) of Knapp & Hartung (2003)
   only acts when tau² = 0: it keeps k identical sessions from a zero-width interval.
4. The prediction interval for the NEXT session's estimate (Higgins, Thompson & Spiegelhalter
   2009; IntHout et al. 2016):   m ± t(k−2) · sqrt(tau² + SE² + v_typical).
   A new estimate misses m for three independent reasons whose variances add: m is uncertain
   (SE²), the new session has its own shift (tau²), and it measures with noise (v_typical, the
   median v_i): we predict the estimate the next session will report, not its true value. The
   t has k − 2 degrees of freedom because two quantities, mu and tau², were estimated from the
   k sessions (Higgins et al. 2009); with k = 3 that is t(1), an honestly wide interval.

Across machine classes the same model is applied one level up (across_classes).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from statistics import median

import numpy as np
from scipy import optimize, stats

CONFIDENCE = 0.95
MIN_SESSIONS = 3  # fewer sessions on a class: "not yet replicated", no pooled interval
MIN_HELD_OUT = 4  # a headline takes part in the leave-one-session-out check from this many
# The within-session variance of a session whose interval has no width or no coverage: an SD
# of 0.01 % on the ratio, finer than any headline is read to, yet a finite weight.
VARIANCE_FLOOR = 1e-8


@dataclass(frozen=True)
class Session:
    ratio: float  # the session's estimate (> 0)
    ci_low: float
    ci_high: float
    ci_level: float  # achieved coverage of [ci_low, ci_high]
    machine_class: str = ""
    run_id: str = ""


@cache
def _quantile(level: float, df: int | None = None) -> float:
    """The two-sided critical value at `level`: normal, or t with df degrees of freedom."""
    p = 0.5 + level / 2
    return float(stats.norm.ppf(p) if df is None else stats.t.ppf(p, df))


def log_variance(s: Session) -> float:
    """Within-session variance of log(ratio) implied by its interval, read as a normal one on
    the log scale: ((log hi − log lo) / (2 z))², z = norm.ppf(0.5 + level / 2). An interval
    without width or coverage (hi <= lo, level 0, 1 or NaN) gets VARIANCE_FLOOR."""
    if not (0 < s.ci_level < 1 and 0 < s.ci_low < s.ci_high):
        return VARIANCE_FLOOR
    width = math.log(s.ci_high) - math.log(s.ci_low)
    return max(VARIANCE_FLOOR, (width / (2 * _quantile(s.ci_level))) ** 2)


@dataclass(frozen=True)
class Pooled:
    """A random-effects pool of sessions (or of classes), back on the ratio scale."""

    sessions: int  # k
    estimate: float  # exp(random-effects mean of the log ratios)
    low: float  # CONFIDENCE interval of the pooled estimate (HKSJ, t with k − 1 df)
    high: float
    predict_low: float  # prediction interval for the next session's estimate (t, k − 2 df)
    predict_high: float
    tau: float  # between-session (or between-class) SD on the log scale, Paule–Mandel
    classes: int = 1  # the machine classes pooled: > 1 only from across_classes

    def holds(self, ratio: float) -> bool:
        """The ratio lies where the next session's estimate is predicted to."""
        return self.predict_low <= ratio <= self.predict_high


def _fit(y: np.ndarray, v: np.ndarray) -> tuple[float, float, float]:
    """The random-effects mean of y, its HKSJ variance, and the Paule–Mandel tau² (steps 1–3)."""
    k = len(y)

    def excess(tau2: float) -> float:  # Q(tau²) − (k − 1): decreasing in tau²; PM's root
        w = 1 / (v + tau2)
        return float(w @ (y - w @ y / w.sum()) ** 2) - (k - 1)

    tau2 = 0.0
    if excess(0.0) > 0:
        # At 2 · var(y) every weight is below 1 / (2 var(y)), so Q < k − 1: a bracket.
        tau2 = optimize.brentq(excess, 0.0, 2 * float(np.var(y, ddof=1)), xtol=1e-15)
    w = 1 / (v + tau2)
    m = float(w @ y / w.sum())
    q = float(w @ (y - m) ** 2)
    return m, max(1.0, q / (k - 1)) / float(w.sum()), tau2


def _pool(y: np.ndarray, v: np.ndarray, v_new: float, sessions: int, classes: int) -> Pooled:
    """Pool the k values y (variances v); predict a new one that has its own variance v_new."""
    k = len(y)
    m, se2, tau2 = _fit(y, v)
    half = _quantile(CONFIDENCE, k - 1) * math.sqrt(se2)
    spread = _quantile(CONFIDENCE, k - 2) * math.sqrt(tau2 + se2 + v_new)
    return Pooled(
        sessions=sessions,
        estimate=math.exp(m),
        low=math.exp(m - half),
        high=math.exp(m + half),
        predict_low=math.exp(m - spread),
        predict_high=math.exp(m + spread),
        tau=math.sqrt(tau2),
        classes=classes,
    )


def _valid(sessions: Sequence[Session]) -> list[Session]:
    """The sessions with a usable estimate: finite and positive (a log ratio exists)."""
    return [s for s in sessions if math.isfinite(s.ratio) and s.ratio > 0]


def _logs(sessions: Sequence[Session]) -> tuple[np.ndarray, np.ndarray]:
    return np.log([s.ratio for s in sessions]), np.array([log_variance(s) for s in sessions])


def pooled(sessions: Sequence[Session]) -> Pooled | None:
    """The sessions of one class pooled; None below MIN_SESSIONS usable sessions (NaN and
    non-positive ratios are dropped first): too few to tell sessions' shifts from noise."""
    valid = _valid(sessions)
    if len(valid) < MIN_SESSIONS:
        return None
    y, v = _logs(valid)
    return _pool(y, v, median(v.tolist()), sessions=len(valid), classes=1)


@dataclass(frozen=True)
class HeldOut:
    run_id: str
    ratio: float
    predict_low: float
    predict_high: float
    inside: bool


def leave_one_out(sessions: Sequence[Session]) -> list[HeldOut]:
    """Each session judged by the others: refit without it, and whether its estimate lies in
    that fit's prediction interval. [] below MIN_HELD_OUT usable sessions, where the fits
    would have fewer than MIN_SESSIONS."""
    valid = _valid(sessions)
    if len(valid) < MIN_HELD_OUT:
        return []
    held = []
    for i, s in enumerate(valid):
        fit = pooled(valid[:i] + valid[i + 1 :])
        assert fit is not None  # len(valid) - 1 >= MIN_SESSIONS
        low, high = fit.predict_low, fit.predict_high
        held.append(HeldOut(s.run_id, s.ratio, low, high, fit.holds(s.ratio)))
    return held


def by_class(sessions: Sequence[Session]) -> dict[str, list[Session]]:
    """Sessions grouped by machine_class, in first-seen order."""
    groups: dict[str, list[Session]] = {}
    for s in sessions:
        groups.setdefault(s.machine_class, []).append(s)
    return groups


def across_classes(sessions: Sequence[Session]) -> Pooled | None:
    """Two levels: each class's mean first, then a random-effects pool of the class means
    (tau = between-class SD), predicting one session's estimate on a NEW class.

    A class with >= MIN_SESSIONS sessions enters with its pooled mean and HKSJ variance;
    a smaller one with the mean of its log ratios and (mean within-session variance) / count.
    The prediction adds, to tau² + SE², what a single session adds on its class: the median
    within-class tau² (0 if no class has enough sessions to estimate one) plus the median
    within-session variance. It uses t(m − 2) over m classes, so it needs m >= 3: with two
    class means nothing is left to tell the between-class spread from chance. None then.
    """
    valid = _valid(sessions)
    groups = by_class(valid)
    if len(groups) < 3:
        return None
    means, variances, within_tau2 = [], [], []
    for group in groups.values():
        y, v = _logs(group)
        if len(group) >= MIN_SESSIONS:
            m, se2, tau2 = _fit(y, v)
            within_tau2.append(tau2)
        else:
            m, se2 = float(y.mean()), float(v.mean()) / len(group)
        means.append(m)
        variances.append(se2)
    v_new = (median(within_tau2) if within_tau2 else 0.0) + median(_logs(valid)[1].tolist())
    return _pool(np.array(means), np.array(variances), v_new, len(valid), classes=len(groups))
