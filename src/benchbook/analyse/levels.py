"""How far a headline ratio holds beyond the sessions that measured it.

A headline (Go req/s ÷ Python req/s, say) is measured in sessions, one complete run of an
experiment each. A session's confidence interval covers only what varied inside it; between
sessions the machine itself changes speed, so estimates scatter more than their intervals
say, and machine classes (one CPU identity + core count) may differ again. On the log scale,
where a ratio and its inverse are mirror images:

    y_i = log(estimate of session i) = mu + u_i + e_i,   u_i ~ N(0, tau²),   e_i ~ N(0, v_i)

mu is the class's true log ratio, u_i the session's own shift, e_i its noise, whose variance
v_i comes from the session's own rounds (stats.log_ratio_variance).

Sessions of one headline share its design, so their estimates are draws from one
distribution whatever part of the scatter is the machine and whatever the rounds. From k >= 3
sessions (`pooled`):
- the estimate is exp(ȳ), ȳ the mean of the log estimates;
- its 95 % interval ȳ ± t(k−1) · s / √k (s their SD): Hartung–Knapp with equal weights;
- the prediction interval for the next session's estimate ȳ ± t(k−1) · s · √(1 + 1/k), the
  classic interval for one more draw; its centre is the estimate.
The simulation of the report's designs (interval_coverage) chose it: it covers the next
session 93–97 % in every cell of k = 2…10 and tau = 0…0.15, where Higgins–Thompson–
Spiegelhalter (random effects ± t(k−2) · √(tau² + SE² + v), this module's old rule) covers
97.8–100 % at k = 3 and 4 and has none at k = 2. tau (Paule–Mandel, with the rounds' v_i)
is still reported: how much sessions disagree beyond their noise.

With 1 or 2 sessions a headline's own s says little, so it borrows (`borrowed`): the spread S
of one session around its headline's mean, pooled over the class's other headlines of the
same kind (`kind_spread`), gives ȳ ± t(df) · S · √(1 + 1/k).

Across machine classes a random-effects model is applied one level up (across_classes).
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from statistics import median

import numpy as np
from scipy import optimize, stats

CONFIDENCE = 0.95
MIN_SESSIONS = 3  # fewer sessions on a class: "not yet replicated", no pooled interval
# The within-session variance of a session whose interval has no width or no coverage: an SD
# of 0.01 % on the ratio, finer than any headline is read to, yet a finite weight.
VARIANCE_FLOOR = 1e-8
THIS_CLASS, EVERY_CLASS = "this machine class", "every machine class"  # a Spread's scope


@dataclass(frozen=True)
class Session:
    ratio: float  # the session's estimate (> 0)
    ci_low: float
    ci_high: float
    ci_level: float  # achieved coverage of [ci_low, ci_high]
    machine_class: str = ""
    run_id: str = ""
    variance: float = math.nan  # of log(ratio), from its rounds (Comparison.log_variance)


@cache
def _quantile(level: float, df: int | None = None) -> float:
    """The two-sided critical value at `level`: normal, or t with df degrees of freedom."""
    p = 0.5 + level / 2
    return float(stats.norm.ppf(p) if df is None else stats.t.ppf(p, df))


def normal_quantile() -> float:
    """z at CONFIDENCE (1.96)."""
    return _quantile(CONFIDENCE)


def log_variance(s: Session) -> float:
    """Within-session variance of log(ratio): from the session's rounds where it has one.
    Else (a session stored without its runs' variance) read off its interval as a normal one
    on the log scale, ((log hi − log lo) / (2 z))², z = norm.ppf(0.5 + level / 2), which
    overstates it where that interval is the min–max of the runs. An interval without width
    or coverage (hi <= lo, level 0, 1 or NaN) gets VARIANCE_FLOOR."""
    if math.isfinite(s.variance):
        return max(VARIANCE_FLOOR, s.variance)
    if not (0 < s.ci_level < 1 and 0 < s.ci_low < s.ci_high):
        return VARIANCE_FLOOR
    width = math.log(s.ci_high) - math.log(s.ci_low)
    return max(VARIANCE_FLOOR, (width / (2 * _quantile(s.ci_level))) ** 2)


@dataclass(frozen=True)
class Pooled:
    """A random-effects pool of sessions (or of classes), back on the ratio scale."""

    sessions: int  # k
    estimate: float  # exp(mean of the log ratios): the centre of both intervals
    low: float  # CONFIDENCE interval of the pooled estimate
    high: float
    predict_low: float  # prediction interval for the next session's estimate
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
    return _on_ratio_scale(m, half, spread, sessions, math.sqrt(tau2), classes)


def _on_ratio_scale(
    m: float, half: float, predict: float, sessions: int, tau: float, classes: int = 1
) -> Pooled:
    """The log-scale centre m ± half (its interval) and ± predict (the next session's),
    back on the ratio scale."""
    return Pooled(
        sessions=sessions,
        estimate=math.exp(m),
        low=math.exp(m - half),
        high=math.exp(m + half),
        predict_low=math.exp(m - predict),
        predict_high=math.exp(m + predict),
        tau=tau,
        classes=classes,
    )


def _valid(sessions: Sequence[Session]) -> list[Session]:
    """The sessions with a usable estimate: finite and positive (a log ratio exists)."""
    return [s for s in sessions if math.isfinite(s.ratio) and s.ratio > 0]


def _logs(sessions: Sequence[Session]) -> tuple[np.ndarray, np.ndarray]:
    return np.log([s.ratio for s in sessions]), np.array([log_variance(s) for s in sessions])


def _interval(y: np.ndarray, spread: float, df: int, k: int) -> Pooled:
    """ȳ ± t(df) · spread / √k, and for the next session ± t(df) · spread · √(1 + 1/k)."""
    m = float(y.mean())
    q = _quantile(CONFIDENCE, df)
    half, predict = q * spread / math.sqrt(k), q * spread * math.sqrt(1 + 1 / k)
    return _on_ratio_scale(m, half, predict, k, tau=0.0)  # tau: set by the caller


def pooled(sessions: Sequence[Session]) -> Pooled | None:
    """The sessions of one class pooled by the plain t rule of the module's docstring; None
    below MIN_SESSIONS usable sessions (NaN and non-positive ratios are dropped first)."""
    valid = _valid(sessions)
    if len(valid) < MIN_SESSIONS:
        return None
    y, v = _logs(valid)
    k = len(y)
    model = _interval(y, float(np.std(y, ddof=1)), k - 1, k)
    return replace(model, tau=math.sqrt(_fit(y, v)[2]))


# The sessions' ratios of every headline of one kind (one compared column), by machine
# class, then by headline (session_estimate.headline_key): what a headline with few sessions
# borrows its spread from (analyse.kinds gathers them from the store).
KindSessions = Mapping[str, Mapping[str, Sequence[float]]]


@dataclass(frozen=True)
class Spread:
    """How far one session's log estimate lies from its headline's mean, pooled over other
    headlines of one kind: S² = Σ (y − ȳ_headline)² / df, df = Σ (sessions − 1)."""

    sd: float
    df: int
    headlines: int
    scope: str  # THIS_CLASS, or EVERY_CLASS when no other headline of this class has two


def kind_spread(headlines: Sequence[Sequence[float]], scope: str) -> Spread | None:
    """The pooled spread of ``headlines`` (each its sessions' ratios); only headlines with
    two or more usable sessions count. None without any."""
    squares, df, counted = 0.0, 0, 0
    for ratios in headlines:
        y = np.log([r for r in ratios if math.isfinite(r) and r > 0])
        if len(y) >= 2:
            squares += float(((y - y.mean()) ** 2).sum())
            df += len(y) - 1
            counted += 1
    if not counted:
        return None
    return Spread(sd=math.sqrt(squares / df), df=df, headlines=counted, scope=scope)


def borrowed_spread(kinds: KindSessions, machine_class: str, key: str) -> Spread | None:
    """The spread between sessions of the other headlines of this kind: on this class, else
    on every class (named so); None where no other headline has two sessions."""
    here = [ratios for name, ratios in kinds.get(machine_class, {}).items() if name != key]
    spread = kind_spread(here, THIS_CLASS)
    if spread is not None:
        return spread
    every = [r for group in kinds.values() for name, r in group.items() if name != key]
    return kind_spread(every, EVERY_CLASS)


def borrowed(sessions: Sequence[Session], spread: Spread) -> Pooled | None:
    """The sessions' mean with the kind's spread: ȳ ± t(df) · S / √k, and for the next
    session ± t(df) · S · √(1 + 1/k). None without a usable session."""
    valid = _valid(sessions)
    if not valid:
        return None
    y = np.log([s.ratio for s in valid])
    return _interval(y, spread.sd, spread.df, len(y))


def verdict_interval(sessions: Sequence[Session], spread: Spread) -> tuple[float, float] | None:
    """The interval a verdict is judged on: the sessions' mean ± t(df) · S · √2 — as wide as
    the prediction for the next session from one session, whatever k. Neither its centre
    (the mean) nor its width (other headlines' spread) moves when a session equal to the
    estimate is added, so counting such a session cannot change a verdict."""
    valid = _valid(sessions)
    if not valid:
        return None
    m = float(np.mean(np.log([s.ratio for s in valid])))
    half = _quantile(CONFIDENCE, spread.df) * spread.sd * math.sqrt(2)
    return math.exp(m - half), math.exp(m + half)


def predicted(sessions: Sequence[Session], spread: Spread | None) -> Pooled | None:
    """The prediction for the next session at every count: `pooled` from MIN_SESSIONS
    sessions on, below that `borrowed` with ``spread``; None where neither applies."""
    fit = pooled(sessions)
    if fit is None and spread is not None:
        fit = borrowed(sessions, spread)
    return fit


@dataclass(frozen=True)
class HeldOut:
    run_id: str
    ratio: float
    predict_low: float
    predict_high: float
    inside: bool
    machine_class: str = ""
    borrowed: bool = False  # predicted from 1–2 sessions with a borrowed spread


def leave_one_out(sessions: Sequence[Session], spread: Spread | None = None) -> list[HeldOut]:
    """Each session judged by the others (sessions of one class): their prediction for the
    next session (`predicted`: pooled from MIN_SESSIONS remaining, below that with the
    borrowed ``spread``), and whether its estimate lies inside. [] below two usable
    sessions, or where one or two remain and there is no spread to borrow."""
    valid = _valid(sessions)
    held = []
    for i, s in enumerate(valid if len(valid) >= 2 else []):
        rest = valid[:i] + valid[i + 1 :]
        fit = predicted(rest, spread)
        if fit is None:
            return []  # every session leaves as many behind: none can be judged
        low, high = fit.predict_low, fit.predict_high
        borrowed_rule = len(rest) < MIN_SESSIONS
        held.append(
            HeldOut(
                s.run_id, s.ratio, low, high, fit.holds(s.ratio), s.machine_class, borrowed_rule
            )
        )
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
