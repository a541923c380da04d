"""The models' numbers as sentences a student can follow: generated, never typed, and
each model's assumptions and where it fails, so a reader knows what the fit can say.
One sentence per shape a sweep can take (shape_sentence): the USL with its N* only
when its fit keeps the rule of usl_checks, else the ceiling the rounds show, else
neither."""

import math

import pandas as pd

from benchbook.analyse.models.ceiling import Ceiling
from benchbook.analyse.models.queueing_fit import (
    FOLLOWS,
    QueueFit,
    measured_slo_rho,
    slo_held_throughout,
)
from benchbook.analyse.models.shape import SweepShape
from benchbook.analyse.models.usl import LEVEL, UslFit
from benchbook.analyse.models.usl_checks import HOLDOUT_LIMIT, contradictions, worst_holdout
from benchbook.analyse.models.usl_rule_check import RuleCheck
from benchbook.analyse.numbers import formatting as fmt
from benchbook.runs.limits import SERVER_BOUND_SHARE

USL_ASSUMES = (
    "The USL assumes one resource shared by N identical workers: throughput grows "
    "linearly until a share σ of each request's work must wait its turn (contention), and "
    "falls once keeping the workers in step costs κ per pair (crosstalk). It fails when "
    "the limit is outside the server (the load tool, the network), when per-connection "
    "throughput grows with N (caches, batching), and when the curve has more than one "
    "bend; with few concurrency levels any three-parameter curve fits."
)
QUEUE_ASSUMES = (
    "The queues assume one server of fixed capacity μ serving requests in turn, arrivals "
    "independent of each other (M: a Poisson stream) and a steady state (ρ < 1). M/M/1 "
    "takes service times as exponential, M/D/1 as constant; Kingman's G/G/1 uses the "
    "measured variability of arrivals and service. They fail when the load tool's own "
    "schedule sets the arrivals (a constant-rate tool has ca² ≈ 0, so the M models "
    "overstate queueing), when the capacity changes with load (garbage collection, "
    "a second core), and past capacity, where no steady state exists."
)


def _number(value: float) -> str:
    return (
        "–"
        if math.isnan(value)
        else f"{value:.2g}"
        if abs(value) < 0.01
        else fmt.significant(value)
    )


def _peak_words(fit: UslFit) -> str:
    peak = fit.params.peak
    low, high = fit.peak_interval()
    if math.isinf(peak):
        return (
            f"never stops scaling within the model: κ = 0, so throughput only levels "
            f"off, towards λ/σ ≈ {fmt.count(fit.params.ceiling)} req/s"
        )
    if math.isnan(peak):
        return "stops scaling from the first connection (σ ≥ 1)"
    upper = "no peak at all" if math.isinf(high) else fmt.count(high)
    # the fitted curve's top, not the measured knee (where gains fall below 5 % a step)
    return (
        f"peaks, as fitted, at N* ≈ {fmt.count(peak)} connections (nominal {100 * LEVEL:.0f} % "
        f"interval {fmt.count(low)} to {upper})"
    )


def usl_sentence(fit: UslFit) -> str:
    """'go-iodelay peaks, as fitted, at N* ≈ 320 connections (…), because σ …'."""
    p = fit.params
    lam, sigma, kappa = (fit.interval(n) for n in ("lam", "sigma", "kappa"))
    return (
        f"**{fit.called}** {_peak_words(fit)}, because a share σ = {fmt.share(p.sigma)} of "
        f"each request's work is serialised ({_share_words(*sigma)}) and each pair of "
        f"connections costs κ = {_number(p.kappa)} in crosstalk "
        f"({_number(kappa[0])} to {_number(kappa[1])}); alone, one connection would get "
        f"λ ≈ {fmt.count(p.lam)} req/s ({fmt.count(lam[0])} to {fmt.count(lam[1])})"
        f"{_runs_clause(len(fit.points), fit.left_out)}; each bracket is a nominal "
        f"{100 * LEVEL:.0f} % bootstrap interval."
    )


def _share_words(low: float, high: float) -> str:
    """A share's interval; one reaching past 100 % says so rather than print a share above
    the whole (σ ≥ 1 fits rounds so spread that throughput could fall from N = 1)."""
    if high < 1:
        return fmt.share_interval(low, high)
    return f"{fmt.share(low)} to over 100 %: the rounds cannot bound it"


def runs_fitted(used: int, left_out: int) -> str:
    """'fitted to 14 of 20 runs; 6 left out where the load tool was the limit'."""
    return (
        f"fitted to {used} of {used + left_out} runs; {left_out} left out where the load "
        "tool was the limit"
    )


def _runs_clause(used: int, left_out: int) -> str:
    return f" ({runs_fitted(used, left_out)})" if left_out else ""


def _cpu_range(cpu: pd.Series) -> str:
    low, high = float(cpu.min()), float(cpu.max())
    return f"{low:.0f} %" if round(low) == round(high) else f"{low:.0f}–{high:.0f} %"


def ceiling_sentence(
    target: str,
    ceiling: Ceiling,
    broken: list[str],
    used: int,
    left_out: int = 0,
    peak: tuple[float, float] | None = None,
) -> str:
    """'go: a ceiling — throughput stops rising at ≈ 38,000 req/s from 200 connections,
    while the server used 95–96 % of a core: one core's limit, not contention …'; after
    ``peak`` (connections, median req/s: a level before the stretch above all of it) the
    rounds rose and fell before they settled, and the sentence says so."""
    medians = ceiling.medians
    spread = (
        f"the levels' medians {fmt.count(medians.min())}–{fmt.count(medians.max())}"
        if len(medians) > 1
        else "one level"
    )
    if ceiling.at_one_core:
        cause = (
            f"while the server used {_cpu_range(ceiling.server_cpu)} of a core: the limit of "
            "one core, reached at every level from there, not contention between connections"
        )
    elif ceiling.server_cpu.notna().all():
        cause = (
            f"while the server used {_cpu_range(ceiling.server_cpu)} of a core (below "
            f"{100 * SERVER_BOUND_SHARE:.0f} % at some level): something other than its CPU set "
            "the limit (the load tool, the network, a lock)"
        )
    else:
        cause = "(the server's CPU was not recorded, so what set the limit is not known)"
    opening = "a ceiling, not a peak — throughput stops rising at"
    if peak is not None:
        opening = (
            f"after a peak at {peak[0]:g} connections ({fmt.count(peak[1])} req/s), throughput "
            "settles at"
        )
    return (
        f"**{target}**: {opening} ≈ "
        f"{fmt.count(ceiling.rate)} req/s ({spread}) from {ceiling.start:g} connections on, "
        f"{cause}; left out in turn, each of those levels is predicted by the others within "
        f"{fmt.share(ceiling.holdout['error'].abs().max())}. The USL is not summarised by a "
        f"peak N*: {'; '.join(broken)}{_runs_clause(used, left_out)}."
    )


def _peak_before(points: pd.DataFrame, ceiling: Ceiling) -> tuple[float, float] | None:
    """The level before the ceiling's stretch with the highest median, where that median
    lies above every level of the stretch (connections, req/s); None where none does."""
    medians = points.groupby("connections")["rps"].median()
    before = medians[medians.index < ceiling.start]
    if before.empty or before.max() <= ceiling.medians.max():
        return None
    return float(before.idxmax()), float(before.max())


def no_shape_sentence(target: str, broken: list[str], used: int, left_out: int = 0) -> str:
    """Neither the USL nor a ceiling describes the rounds: no model's figure is stated."""
    return (
        f"**{target}**: neither the USL nor a ceiling describes these rounds, so no peak N* "
        f"or limit is stated: {'; '.join(broken)}. The medians per level are in the "
        f"sweep's table{_runs_clause(used, left_out)}."
    )


def shape_sentence(shape: SweepShape) -> str:
    """The one sentence for a target's sweep: which model describes it, and its figures."""
    fit = shape.fit
    if shape.usl_holds:
        return usl_sentence(fit)
    if shape.ceiling is not None:
        return ceiling_sentence(
            fit.called, shape.ceiling, shape.broken, len(fit.points), fit.left_out,
            _peak_before(fit.points, shape.ceiling),
        )  # fmt: skip
    return no_shape_sentence(fit.called, shape.broken, len(fit.points), fit.left_out)


def usl_rule(check: RuleCheck | None, truth: str) -> str:
    """The rule, and how often it keeps a sweep simulated at this sweep's design
    (models.usl_rule_check) with ``truth``'s fitted curve as the true one."""
    rule = (
        "A USL fit is summarised by its peak N* only when it misses fewer than half of the "
        "concurrency levels beyond their rounds' spread and every level between two others, "
        f"left out and predicted by a refit, is within {fmt.share(HOLDOUT_LIMIT)}."
    )
    if check is None:
        return f"{rule} With one round per level, how often it keeps a true USL is not simulated."
    design = (
        f"{len(check.levels)} levels × {check.rounds} rounds, the rounds differing by "
        f"{fmt.share(check.noise)} at the median level"
    )
    return (
        f"{rule} Simulated at this sweep's design ({design}; {check.sweeps} sweeps each), it "
        f"kept {fmt.share(check.keeps_usl)} of sweeps of {truth}'s fitted USL and "
        f"{fmt.share(check.keeps_flat)} of a curve that rises at the same rate and then "
        "stays flat: a sweep that breaks it is not thereby shown to break the USL."
    )


def holdout_sentence(fit: UslFit) -> str:
    """How well the model predicts a level it was not fitted to."""
    level, error = worst_holdout(fit)
    if math.isnan(error):
        return f"{fit.called}: too few levels to leave one out and refit."
    row = fit.holdout.set_index("connections").loc[level]
    return (
        f"{fit.called}: fitted without one level at a time, the model missed the left-out "
        f"level by at most {fmt.share(abs(error))} (at {level:g} connections it predicted "
        f"{fmt.count(row['predicted'])} req/s; the rounds' median was "
        f"{fmt.count(row['measured'])})."
    )


def contradiction_sentences(fit: UslFit) -> list[str]:
    """Each way the data contradict the model, or that none was found."""
    found = contradictions(fit)
    if not found:
        return [f"{fit.called}: the rounds contradict the USL nowhere we check."]
    return [f"{fit.called}: {c.words}." for c in found]


def ratio_sentence(
    ratio: pd.DataFrame,
    connections: float,
    names: tuple[str, str],
    measured: float | None = None,
    article: float | None = None,
) -> str:
    """The predicted X_a/X_b at one concurrency beside the measured and published ones."""
    row = ratio.set_index("connections").loc[float(connections)]
    text = (
        f"At {connections:g} connections the two fits predict {names[0]} / {names[1]} = "
        f"{fmt.ratio(row['ratio'])} ({100 * LEVEL:.0f} % band "
        f"{fmt.interval(row['low'], row['high'])})"
    )
    if measured is not None:
        inside = row["low"] <= measured <= row["high"]
        text += f"; measured {fmt.ratio(measured)} ({'inside' if inside else 'outside'} the band)"
    if article is not None:
        text += f"; the article's figure is {fmt.ratio(article)}"
    return text + "."


def no_ratio_sentence(pair: tuple[str, str], shapes: dict[str, SweepShape]) -> str:
    """Why a pair's ratio over N is not predicted: a side's USL fit breaks the rule."""
    called = {t: shapes[t].fit.called for t in pair}
    broken = " and ".join(called[t] for t in pair if not shapes[t].usl_holds)
    return (
        f"No ratio {called[pair[0]]} / {called[pair[1]]} is predicted over concurrency: the "
        f"USL does not "
        f"describe {broken}'s rounds (above), so its curve is no model to divide by."
    )


def departures_sentence(fits: dict[str, UslFit]) -> str:
    """How many levels' departures from the USL each fit has, pointing to the details ('' for
    none)."""
    departures = {fit.called: len(contradictions(fit)) for fit in fits.values()}
    if not any(departures.values()):
        return ""
    counted = ", ".join(f"{name} {n}" for name, n in departures.items() if n)
    return (
        f"Where the rounds contradict the model (departures: {counted}), and how far each "
        "level left out was missed, is listed with the details."
    )


def queue_caveats(
    workers_exhausted: dict[str, tuple[int, int]], skipped: list[str], fewest: int
) -> list[str]:
    """What limits the queue fits: the servers whose runs ran the tool out of workers (name
    → runs so, runs fitted), and those not fitted (fewer than ``fewest`` rates)."""
    lines = []
    if workers_exhausted:
        runs = ", ".join(
            f"{name} ({n} of {of} runs fitted)" for name, (n, of) in workers_exhausted.items()
        )
        lines.append(
            f"The load tool had every worker waiting for a reply in runs of {runs}: there "
            "later requests left late and that wait is in no latency, so the latencies "
            "describe the tool's schedule as much as the server's queue."
        )
    if skipped:
        lines.append(
            f"Not fitted: {', '.join(skipped)} (fewer than {fewest} offered rates below "
            "capacity with valid runs where the load tool was not the limit)."
        )
    return lines


def queue_sentence(fit: QueueFit, stat: str = "p99") -> str:
    """'its p99 follows M/M/1 up to ρ ≈ 0.5; the model puts the SLO at ρ ≈ 0.96 …'."""
    best = fit.best(stat)
    row = fit.row(best, stat)
    upto = row["follows_up_to_rho"]
    error = math.expm1(row["median_log_error"])
    follows = (
        f"follows {best} (median miss {fmt.share(error)}) up to ρ ≈ {upto:.2f}, "
        f"within a factor of {FOLLOWS:g}"
        if not math.isnan(upto)
        else f"follows no model well; {best} misses least (median {fmt.share(error)})"
    )
    text = f"**{fit.called}** (capacity μ ≈ {fmt.count(fit.mu)} req/s): its {stat} {follows}"
    if fit.slo_ms is not None and best in fit.slo_rho:
        rho = fit.slo_rho[best]
        measured = measured_slo_rho(fit)
        if math.isnan(measured):
            within = "within it up to no rate measured"
        elif slo_held_throughout(fit):  # where the fitted rates stop, not where it broke
            within = f"within it at every rate fitted, up to ρ ≈ {measured:.2f}"
        else:
            within = f"within it up to ρ ≈ {measured:.2f}"
        text += (
            f"; {best} puts its p99 at the {fit.slo_ms:g} ms SLO at ρ ≈ {rho:.2f} "
            f"(≈ {fmt.count(rho * fit.mu)} req/s), while the measured p99 stayed {within}"
        )
    return text + _runs_clause(fit.runs, fit.left_out) + "."


def usl_table(shapes: dict[str, SweepShape]) -> pd.DataFrame:
    """Per target: which model describes the sweep, the runs fitted, λ, σ, κ with their
    intervals, N* (only where the USL keeps its rule), the worst hold-out miss, and how
    many ways the rounds contradict the USL."""
    rows = {}
    for target, shape in shapes.items():
        fit = shape.fit
        p, level = fit.params, worst_holdout(fit)
        lam, sigma, kappa = (fit.interval(n) for n in ("lam", "sigma", "kappa"))
        peak_low, peak_high = fit.peak_interval()
        stated = shape.usl_holds
        rows[target] = {
            "model": shape.kind,
            "runs fitted": f"{len(fit.points)} of {len(fit.points) + fit.left_out}",
            "λ req/s": fmt.count(p.lam),
            "λ interval": f"{fmt.count(lam[0])}–{fmt.count(lam[1])}",
            "σ": _number(p.sigma),
            "σ interval": f"{_number(sigma[0])}–{_number(sigma[1])}",
            "κ": _number(p.kappa),
            "κ interval": f"{_number(kappa[0])}–{_number(kappa[1])}",
            "N*": (
                "not stated (misfit)"
                if not stated
                else "none (κ = 0)"
                if math.isinf(p.peak)
                else fmt.count(p.peak)
            ),
            "N* interval": (
                "–"
                if not stated
                else f"{fmt.count(peak_low)}–"
                + ("none" if math.isinf(peak_high) else fmt.count(peak_high))
            ),
            "worst hold-out miss": f"{fmt.share(abs(level[1]))} at {level[0]:g}",
            "contradictions": ", ".join(c.kind for c in contradictions(fit)) or "none",
        }
    return pd.DataFrame(rows).T


def queue_table(fits: dict[str, QueueFit], stat: str = "p99") -> pd.DataFrame:
    """Per target and model: median miss on ``stat``, the ρ it follows up to, and the ρ
    at which its p99 reaches the SLO."""
    rows = []
    for target, fit in fits.items():
        for _, row in fit.errors[fit.errors["statistic"] == stat].iterrows():
            model = row["model"]
            rows.append({
                "target": target, "model": model, "capacity μ req/s": fmt.count(fit.mu),
                "runs fitted": f"{fit.runs} of {fit.runs + fit.left_out}",
                "median miss": fmt.share(math.expm1(row["median_log_error"])),
                "follows up to ρ": row["follows_up_to_rho"],
                "ρ at the SLO": fit.slo_rho.get(model, float("nan")),
                "best": "✓" if model == fit.best(stat) else "",
            })  # fmt: skip
    return pd.DataFrame(rows).set_index(["target", "model"])
