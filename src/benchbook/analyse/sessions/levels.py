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
distribution whatever part of the scatter is the machine and whatever the rounds:
- the estimate is exp(ȳ), ȳ the mean of the k log estimates;
- from three sessions, its 95 % interval ȳ ± t(k−1) · s / √k (s their SD): Hartung–Knapp
  with equal weights (`pooled`);
- the prediction interval for the next session's estimate, at every k: ȳ ± t(d) · S ·
  √(1 + 1/k), the classic interval for one more draw, whose spread S leans on the other
  headlines of its kind only as much as its own few sessions need (`moderated`):
  S² = (d₀ s₀² + Σ (y − ȳ)²) / (d₀ + k − 1) with d = d₀ + k − 1, where s₀ is the kind's
  typical spread and d₀ what it is worth, estimated from how much the kind's headlines'
  own spreads differ (`kind_spread`: Smyth's empirical Bayes, as limma moderates a gene's
  variance) — many degrees of freedom where they agree, few where they do not; where the
  headline's own sessions scatter more than the kind's spread allows (an F test at 5 %,
  `strays_more`), its own alone: t(k−1) · s. Without other headlines, the headline's own:
  t(k−1) · s from three sessions on.
A session equal to the estimate adds a degree of freedom and nothing to the squares, so
the prediction only narrows as agreeing sessions are counted: no jump between counts.
The simulation of the report's designs (interval_coverage) checks its coverage of the next
session in every cell of k = 1…10 and tau = 0…0.15. tau (Paule–Mandel, with the rounds' v_i)
is still computed: how much sessions disagree beyond their noise.

Across machine classes nothing is pooled: each class's sessions are shown apart
(replication.OtherClass), with what the speed references predict for it (across_classes).
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
from scipy import optimize, special, stats

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
    machine: str = ""  # the boot it was measured in ('' where not recorded): sessions.machines


@cache
def _quantile(level: float, df: float | None = None) -> float:
    """The two-sided critical value at `level`: normal, or t with df degrees of freedom."""
    p = 0.5 + level / 2
    return float(stats.norm.ppf(p) if df is None else stats.t.ppf(p, df))


def quantile(df: float) -> float:
    """t at CONFIDENCE with ``df`` degrees of freedom (the normal's where df is inf)."""
    return _quantile(CONFIDENCE, None if math.isinf(df) else df)


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
    """A pool of sessions, back on the ratio scale."""

    sessions: int  # k
    estimate: float  # exp(mean of the log ratios): the centre of both intervals
    low: float  # CONFIDENCE interval of the pooled estimate
    high: float
    predict_low: float  # prediction interval for the next session's estimate
    predict_high: float
    tau: float  # between-session (or between-class) SD on the log scale, Paule–Mandel

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


def _on_ratio_scale(m: float, half: float, predict: float, sessions: int, tau: float) -> Pooled:
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
    )


def _valid(sessions: Sequence[Session]) -> list[Session]:
    """The sessions with a usable estimate: finite and positive (a log ratio exists)."""
    return [s for s in sessions if math.isfinite(s.ratio) and s.ratio > 0]


def _logs(sessions: Sequence[Session]) -> tuple[np.ndarray, np.ndarray]:
    return np.log([s.ratio for s in sessions]), np.array([log_variance(s) for s in sessions])


def _interval(y: np.ndarray, spread: float, df: float | None, k: int) -> Pooled:
    """ȳ ± t(df) · spread / √k, and for the next session ± t(df) · spread · √(1 + 1/k)
    (df None: the normal quantile)."""
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
# class, then by headline (sessions.estimate.headline_key): what a headline with few sessions
# borrows its spread from (analyse.sessions.kinds gathers them from the store).
KindSessions = Mapping[str, Mapping[str, Sequence[float]]]


@dataclass(frozen=True)
class Spread:
    """How far one session's log estimate lies from its headline's mean over the other
    headlines of one kind, as what a headline's own sessions are moderated with: the
    typical spread s₀ and the degrees of freedom d₀ it is worth (inf where the headlines'
    spreads differ no more than their own few sessions make them)."""

    sd: float  # s₀
    df: float  # d₀
    headlines: int
    scope: str  # THIS_CLASS, or EVERY_CLASS when no other headline of this class has two


def kind_spread(headlines: Sequence[Sequence[float]], scope: str) -> Spread | None:
    """The prior spread from ``headlines`` (each its sessions' ratios; only those with two
    or more usable sessions count): one headline's own SD and degrees of freedom; from two,
    Smyth's moment estimates of s₀ and d₀ (prior_spread). None without any."""
    variances, dfs = [], []
    for ratios in headlines:
        y = np.log([r for r in ratios if math.isfinite(r) and r > 0])
        if len(y) >= 2:
            variances.append(float(np.var(y, ddof=1)))
            dfs.append(len(y) - 1)
    if not variances:
        return None
    if len(variances) == 1:
        return Spread(math.sqrt(variances[0]), float(dfs[0]), 1, scope)
    s0, d0 = prior_spread(np.array([variances]), np.array(dfs, dtype=float))
    return Spread(float(s0[0]), float(d0[0]), len(variances), scope)


def prior_spread(variances: np.ndarray, dfs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s₀, d₀) per row of ``variances`` (rows of headlines' sample variances, each with
    ``dfs`` degrees of freedom): the scaled-χ² prior they are drawn from, by Smyth's
    moments of log variances (limma's fitFDist). d₀ is inf where the log variances scatter
    no more than their sampling alone makes them (all spreads alike)."""
    n = variances.shape[1]
    half = dfs / 2
    e = np.log(np.maximum(variances, 1e-300)) - special.digamma(half) + np.log(half)
    mean = e.mean(axis=1)
    excess = ((e - mean[:, None]) ** 2).sum(axis=1) / (n - 1) - special.polygamma(1, half).mean()
    d0 = np.where(excess > 0, 2 * _trigamma_inverse(np.maximum(excess, 1e-12)), np.inf)
    finite = np.isfinite(d0)
    scale = np.where(finite, special.digamma(d0 / 2) - np.log(np.where(finite, d0, 2) / 2), 0.0)
    return np.sqrt(np.exp(mean + scale)), d0


def _trigamma_inverse(x: np.ndarray) -> np.ndarray:
    """y with trigamma(y) = x, by Newton's method from 0.5 + 1/x (Smyth's, as in limma)."""
    y = 0.5 + 1 / x
    for _ in range(50):
        tri = special.polygamma(1, y)
        step = tri * (1 - tri / x) / special.polygamma(2, y)
        y = y + step
        if np.all(np.abs(step / y) < 1e-8):
            break
    return y


def borrowed_spread(kinds: KindSessions, machine_class: str, key: str) -> Spread | None:
    """The spread between sessions of the other headlines of this kind: on this class, else
    on every class (named so); None where no other headline has two sessions."""
    here = [ratios for name, ratios in kinds.get(machine_class, {}).items() if name != key]
    spread = kind_spread(here, THIS_CLASS)
    if spread is not None:
        return spread
    every = [r for group in kinds.values() for name, r in group.items() if name != key]
    return kind_spread(every, EVERY_CLASS)


# How sure a headline's own sessions must be that they scatter more than its kind does
# before its prediction stops leaning on the kind (a one-sided test at 5 %).
OWN_SPREAD_TEST = 0.05


def strays_more(squares: float, k: int, spread: Spread) -> bool:
    """The headline's own k sessions (``squares``: Σ (y − ȳ)²) scatter more than the kind's
    spread allows: their variance over s₀² beyond the F(k − 1, d₀) quantile (χ²(k − 1) / (k − 1)
    where d₀ is inf). A kind whose headlines agree can still hold one that does not, and a
    prediction narrower than its own sessions' interval would hide that."""
    if k < 2 or spread.sd <= 0:
        return False
    ratio = squares / (k - 1) / spread.sd**2
    if math.isinf(spread.df):
        return ratio > stats.chi2.ppf(1 - OWN_SPREAD_TEST, k - 1) / (k - 1)
    return ratio > stats.f.ppf(1 - OWN_SPREAD_TEST, k - 1, spread.df)


def moderated(sessions: Sequence[Session], spread: Spread) -> Pooled | None:
    """The sessions' mean with their own spread moderated by the kind's (module docstring):
    S² = (d₀ s₀² + Σ (y − ȳ)²) / (d₀ + k − 1), ȳ ± t(d₀ + k − 1) · S / √k, and for the
    next session ± t(…) · S · √(1 + 1/k). None without a usable session."""
    valid = _valid(sessions)
    if not valid:
        return None
    y = np.log([s.ratio for s in valid])
    k = len(y)
    squares = float(((y - y.mean()) ** 2).sum())
    if strays_more(squares, k, spread):  # its own sessions say the kind's spread is not its
        return _interval(y, math.sqrt(squares / (k - 1)), k - 1, k)
    if math.isinf(spread.df):
        return _interval(y, spread.sd, None, k)
    df = spread.df + k - 1
    return _interval(y, math.sqrt((spread.df * spread.sd**2 + squares) / df), df, k)


def predicted(sessions: Sequence[Session], spread: Spread | None) -> Pooled | None:
    """The prediction for the next session at every count: `moderated` by ``spread`` where
    the kind has one, else the headline's own `pooled` from MIN_SESSIONS sessions on;
    None where neither applies."""
    if spread is not None:
        return moderated(sessions, spread)
    return pooled(sessions)


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
    next session (`predicted`: moderated by ``spread``, else their own from MIN_SESSIONS
    remaining), and whether its estimate lies inside. [] below two usable sessions, or
    where one or two remain and there is no spread to lean on."""
    valid = _valid(sessions)
    held = []
    for i, s in enumerate(valid if len(valid) >= 2 else []):
        rest = valid[:i] + valid[i + 1 :]
        fit = predicted(rest, spread)
        if fit is None:
            return []  # every session leaves as many behind: none can be judged
        low, high = fit.predict_low, fit.predict_high
        borrowed_rule = len(rest) < MIN_SESSIONS  # what its own sessions could not say alone
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
