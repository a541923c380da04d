"""The load an open loop offers: rates scaled to each server's own closed-loop maximum,
and latency against the rate offered (the "hockey stick") as a table."""

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchbook.analyse.experiments.capacity import meets_slo, run_flags
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import summarize
from benchbook.analyse.rows.counted import flag_counts, valid_rows

RATE_DIGITS = 3


def closed_loop_maxima(results: pd.DataFrame) -> dict[str, float]:
    """Each server's median req/s over its valid closed-loop runs: the scale of the
    rates an open loop offers it."""
    valid = valid_rows(results)
    return {
        str(k): float(v) for k, v in valid.groupby("server", sort=False)["rps"].median().items()
    }


def offered_rates(maxima: Mapping[str, float], fractions: Sequence[float]) -> dict[str, list]:
    """The rates to offer each server: ``fractions`` of its own closed-loop maximum,
    rounded to three significant digits (a rate a reader can repeat), ascending."""
    if not fractions or any(not f > 0 for f in fractions):
        raise ValueError(f"fractions: {list(fractions)!r}; give shares above zero, e.g. [0.1, 1]")
    rates = {}
    for server, maximum in maxima.items():
        if not maximum > 0:
            raise ValueError(f"{server}: closed-loop maximum {maximum!r} req/s; nothing to scale")
        rates[server] = sorted({_rounded(f * maximum) for f in fractions})
    return rates


def _rounded(rate: float) -> float:
    return float(round(rate, RATE_DIGITS - 1 - math.floor(math.log10(rate))))


def load_table(
    results: pd.DataFrame, slos: Mapping[str, float], maxima: Mapping[str, float] | None = None
) -> pd.DataFrame:
    """The hockey stick as numbers: per target and offered rate, the share of the
    server's closed-loop maximum, the achieved rate, median p50 and p99 with their CIs,
    how many runs met the SLO, and every flag."""
    rows = []
    for (target, rate), runs in results.groupby(["target", "target_rate"], sort=True):
        valid = valid_rows(runs)
        p50, p99 = summarize(valid["lat_p50_ms"]), summarize(valid["lat_p99_ms"])
        maximum = (maxima or {}).get(runs["server"].iloc[0], np.nan)
        met = sum(meets_slo(r, slos[str(target)]) and "rate_shortfall" not in run_flags(r)
                  for _, r in valid.iterrows())  # fmt: skip
        rows.append({
            "target": target, "offered req/s": fmt.count(rate),
            "% of closed-loop max": 100 * rate / maximum,
            "achieved req/s": valid["achieved_rate"].median(),
            "p50 ms": p50.median, "p50 CI ms": fmt.interval(p50.low, p50.high, ""),
            "p99 ms": p99.median, "p99 CI ms": fmt.interval(p99.low, p99.high, ""),
            "met SLO": f"{met}/{len(runs)}", "flags": flag_counts(runs["flags"]),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index(["target", "offered req/s"])
