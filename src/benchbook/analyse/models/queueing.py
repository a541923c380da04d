"""Single-server queues for latency against offered load (an open-loop sweep).

Rates are per second and times in seconds in the formulas; the predictions for measured
points are in milliseconds. A server of capacity μ offered λ req/s is busy a share
ρ = λ/μ of the time; the formulas give the time a request spends queueing and served:

- M/M/1 (random arrivals, exponential service): response time is exponential with rate
  μ − λ, so its mean is 1/(μ − λ) and its p99 −ln(0.01)/(μ − λ), exactly.
- M/D/1 (random arrivals, constant service): mean wait ρ/(2μ(1 − ρ)) (Pollaczek–
  Khinchine), exact. Its p99 is an approximation: P(wait > t) ≈ ρ·e^(−θt), with θ the
  exact decay rate of the M/D/1 wait (the root θ > 0 of λ(e^(θ/μ) − 1) = θ) and
  P(wait > 0) = ρ exact; the constant in front is what is approximate.
- G/G/1 (Kingman): mean wait ≈ ρ/(1 − ρ) · (ca² + cs²)/2 · 1/μ, with ca² and cs² the
  squared coefficients of variation of the gaps between arrivals and of service times.
  Its p99 uses the exponential approximation P(wait > t) ≈ ρ·e^(−ρt/W̄), exact for M/M/1.
"""

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq

INF = float("inf")


def _rho(lam: float, mu: float) -> float:
    if not mu > 0 or lam < 0:
        raise ValueError(f"need capacity μ > 0 and rate λ ≥ 0; got μ={mu!r}, λ={lam!r}")
    return lam / mu


def mm1_mean_response(lam: float, mu: float) -> float:
    """1/(μ − λ) seconds; inf at or beyond capacity."""
    return 1 / (mu - lam) if _rho(lam, mu) < 1 else INF


def mm1_response_quantile(lam: float, mu: float, q: float = 0.99) -> float:
    """−ln(1 − q)/(μ − λ): the q-quantile of an exponential response time."""
    return -math.log(1 - q) / (mu - lam) if _rho(lam, mu) < 1 else INF


def md1_mean_wait(lam: float, mu: float) -> float:
    """Pollaczek–Khinchine for constant service: ρ/(2μ(1 − ρ))."""
    rho = _rho(lam, mu)
    return rho / (2 * mu * (1 - rho)) if rho < 1 else INF


def md1_mean_response(lam: float, mu: float) -> float:
    return md1_mean_wait(lam, mu) + 1 / mu


def md1_decay_rate(lam: float, mu: float) -> float:
    """θ > 0 with λ(e^(θ/μ) − 1) = θ: how fast the M/D/1 wait's tail falls."""
    rho = _rho(lam, mu)
    if rho >= 1:
        return 0.0
    if rho == 0:
        return INF
    f = lambda t: lam * math.expm1(t / mu) - t  # noqa: E731
    high = mu
    while f(high) <= 0:
        high *= 2
    return brentq(f, 1e-12 * mu, high, xtol=1e-14 * mu, rtol=1e-12)


def md1_response_quantile(lam: float, mu: float, q: float = 0.99) -> float:
    """1/μ + the wait's q-quantile under P(wait > t) ≈ ρ·e^(−θt) (see the module)."""
    rho = _rho(lam, mu)
    if rho >= 1:
        return INF
    wait = math.log(rho / (1 - q)) / md1_decay_rate(lam, mu) if rho > 1 - q else 0.0
    return wait + 1 / mu


def kingman_mean_wait(lam: float, mu: float, ca2: float, cs2: float) -> float:
    """ρ/(1 − ρ) · (ca² + cs²)/2 · 1/μ."""
    rho = _rho(lam, mu)
    return rho / (1 - rho) * (ca2 + cs2) / 2 / mu if rho < 1 else INF


def kingman_mean_response(lam: float, mu: float, ca2: float, cs2: float) -> float:
    return kingman_mean_wait(lam, mu, ca2, cs2) + 1 / mu


def kingman_response_quantile(
    lam: float, mu: float, ca2: float, cs2: float, q: float = 0.99
) -> float:
    """1/μ + the wait's q-quantile under P(wait > t) ≈ ρ·e^(−ρt/W̄)."""
    rho = _rho(lam, mu)
    if rho >= 1:
        return INF
    mean_wait = kingman_mean_wait(lam, mu, ca2, cs2)
    if rho <= 1 - q or mean_wait == 0:
        return 1 / mu
    return 1 / mu + math.log(rho / (1 - q)) * mean_wait / rho


MM1 = "M/M/1"
MD1 = "M/D/1"
GG1 = "G/G/1 (Kingman)"
STATISTICS = ("mean", "p99")
Formula = Callable[[float, float], float]


def formulas(ca2: float | None = None, cs2: float | None = None) -> dict[str, dict[str, Formula]]:
    """Each model's mean and p99 response time as f(λ, μ) in seconds; Kingman's only when
    both variabilities are known."""
    found: dict[str, dict[str, Formula]] = {
        MM1: {"mean": mm1_mean_response, "p99": mm1_response_quantile},
        MD1: {"mean": md1_mean_response, "p99": md1_response_quantile},
    }
    if ca2 is not None and cs2 is not None:
        found[GG1] = {
            "mean": lambda lam, mu: kingman_mean_response(lam, mu, ca2, cs2),
            "p99": lambda lam, mu: kingman_response_quantile(lam, mu, ca2, cs2),
        }
    return found


def predicted_ms(
    formula: Formula, rho: float | np.ndarray, mu: float, unloaded_ms: float
) -> float | np.ndarray:
    """The measured unloaded latency plus the queueing the model adds over an idle
    server: unloaded + 1000·(f(ρμ, μ) − f(0, μ)). Network, sleeps and parsing are in
    the unloaded latency; only the waiting grows with load."""
    idle = formula(0.0, mu)
    rhos = np.atleast_1d(np.asarray(rho, dtype=float))
    values = np.array([unloaded_ms + 1000 * (formula(r * mu, mu) - idle) for r in rhos])
    return values if np.ndim(rho) else float(values[0])


def slo_utilisation(formula: Formula, slo_ms: float, mu: float, unloaded_ms: float) -> float:
    """The ρ at which the predicted latency reaches ``slo_ms`` (0 when the unloaded
    latency already does; the prediction grows without bound as ρ → 1, so it always
    crosses below 1)."""
    if unloaded_ms >= slo_ms:
        return 0.0
    gap = lambda r: predicted_ms(formula, r, mu, unloaded_ms) - slo_ms  # noqa: E731
    top = 1 - 1e-9
    return brentq(gap, 0.0, top, xtol=1e-10) if gap(top) > 0 else top
