"""What a notebook's "Models" section displays: the Universal Scalability Law over a
concurrency sweep (notebook 01) and queueing curves over latency against offered load
(notebook 06). The section shows the fits over the measurements, their values in
sentences, how often the data depart from them and what each model assumes; its details
(the predicted ratio over concurrency, each level held out, each departure, the latency
charts) go where the notebook puts them (the report's appendix). A sweep or a load too
small to fit says so in a sentence instead of failing, as the smoke profile's are."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from benchbook.analyse.display import model_plots, plots, tables
from benchbook.analyse.models import queueing_fit, usl
from benchbook.analyse.models.shape import SweepShape, shape_of
from benchbook.analyse.models.usl_rule_check import rule_check
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.rows.names import reader_name
from benchbook.analyse.words import models as wording
from benchbook.analyse.words.conclusions import bullets

# The USL has three parameters: three levels fit it, a fourth checks it on one it did not see.
USL_LEVELS = 3
# A queue is anchored at the lightest load; two more points say which model it follows.
QUEUE_POINTS = 3
# Runs the queues are fitted to whose tool had every worker waiting for a reply: later
# requests left late, and that delay is in no latency.
WORKERS_EXHAUSTED = "workers_exhausted"


@dataclass
class UslModels:
    """The USL fits of a sweep with the shape each describes, the pairs whose ratio a
    notebook asks for, and the concurrency (and figure) of the article it holds them
    against."""

    sweep: pd.DataFrame
    shapes: dict[str, SweepShape]
    pairs: Sequence[tuple[str, str]]
    connections: float
    article_ratio: float | None = None

    @property
    def fits(self) -> dict[str, usl.UslFit]:
        return {target: shape.fit for target, shape in self.shapes.items()}

    def unpredicted(self) -> list[tuple[str, str]]:
        """The pairs fitted on both sides whose ratio the USL may not predict: a side's
        fit breaks the rule, so its curve is no model of that server."""
        return [
            (a, b)
            for a, b in self.pairs
            if {a, b} <= set(self.shapes)
            and not (self.shapes[a].usl_holds and self.shapes[b].usl_holds)
        ]

    def ratios(self) -> list[tuple[tuple[str, str], pd.DataFrame, float | None]]:
        """Per pair whose fits both keep the rule: the predicted ratio over N, and the one
        the sweep's own rounds measured at the article's concurrency (the same session's
        runs), if the sweep has that level."""
        at = self.sweep[self.sweep["connections"] == self.connections]
        found = []
        for a, b in self.pairs:
            if {a, b} <= set(self.shapes) and (a, b) not in self.unpredicted():
                span = usl.span(self.fits, self.connections)
                ratio = usl.predicted_ratio(self.fits[a], self.fits[b], span)
                here = usl.measured_ratio(at, a, b) if {a, b} <= set(at["target"]) else None
                found.append(((a, b), ratio, here))
        return found


def fit_sweep(
    sweep: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    connections: float,
    article_ratio: float | None = None,
) -> UslModels:
    """The USL, and the shape it describes, of every target the sweep measured at enough
    levels (counting only runs where the server, not the load tool, was the limit), in
    sweep order."""
    targets = [str(t) for t in dict.fromkeys(sweep["target"])]
    fitted = [t for t in targets if _levels(sweep, t) >= USL_LEVELS]
    shapes = {target: shape_of(usl.fit(sweep, target)) for target in fitted}
    return UslModels(sweep, shapes, pairs, connections, article_ratio)


def _levels(sweep: pd.DataFrame, target: str) -> int:
    return int(usl.sweep_points(sweep, target)["connections"].nunique())


def no_usl_fit(sweep: pd.DataFrame) -> object:
    """The sentence shown instead of a fit when no target has enough levels."""
    from IPython.display import Markdown

    levels = max((_levels(sweep, str(t)) for t in set(sweep["target"])), default=0)
    return Markdown(
        f"No fit: this sweep measured {levels} concurrency "
        f"level(s) with runs that count (valid, and not on a busy machine); the USL has three "
        f"parameters, so it needs {USL_LEVELS}, "
        f"and {USL_LEVELS + 1} or more to check it on a level it did not see."
    )


def usl_section(models: UslModels) -> list[object]:
    """The fitted curves over the sweep's rounds, a sentence per target (the USL's λ, σ,
    κ and N* with their intervals where its fit keeps the rule, else the ceiling the
    rounds show, else neither), the predicted ratio of each pair at the article's
    concurrency beside the measured one and the article's figure, how often the rounds
    contradict the fits, the rule and what the model assumes."""
    from IPython.display import Markdown

    if not models.shapes:
        return [no_usl_fit(models.sweep)]
    lines = [wording.shape_sentence(shape) for shape in models.shapes.values()]
    lines += [
        wording.ratio_sentence(
            ratio,
            models.connections,
            (models.fits[pair[0]].called, models.fits[pair[1]].called),
            here,
            models.article_ratio,
        )
        for pair, ratio, here in models.ratios()
    ]
    lines += [wording.no_ratio_sentence(pair, models.shapes) for pair in models.unpredicted()]
    lines += list(filter(None, [wording.departures_sentence(models.fits)]))
    curves = model_plots.usl_curves(
        models.shapes, names=plots.reader_names(models.sweep, models.shapes)
    )
    first = next(iter(models.shapes.values())).fit  # the truth its rule is simulated with
    rule = wording.usl_rule(rule_check(first), first.called)
    return [curves, Markdown(bullets(lines + [rule, wording.USL_ASSUMES]))]


def usl_details(models: UslModels) -> list[object]:
    """The table of λ, σ, κ and N*, each pair's predicted ratio over N with its band, the
    measured and the article's points; then each level held out and each departure from
    the model, in words."""
    from IPython.display import Markdown

    if not models.shapes:
        return [no_usl_fit(models.sweep)]
    at = models.connections
    shown: list[object] = [
        model_plots.ratio_curve(
            ratio,
            _named(models.sweep, pair),
            article=(at, models.article_ratio) if models.article_ratio else None,
            measured=(at, here) if here else None,
        )
        for pair, ratio, here in models.ratios()
    ]
    lines = [wording.holdout_sentence(fit) for fit in models.fits.values()]
    lines += [s for fit in models.fits.values() for s in wording.contradiction_sentences(fit)]
    table = tables.styled(wording.usl_table(models.shapes), models.sweep)
    return [table, *shown, Markdown(bullets(lines))]


def _named(sweep: pd.DataFrame, pair: tuple[str, str]) -> tuple[str, str]:
    """A pair of targets by the names the tables give them."""
    names = plots.reader_names(sweep, pair)
    return names[pair[0]], names[pair[1]]


@dataclass
class QueueModels:
    """The queueing fits of an open-loop load, what kept a server out of them, and the
    fits with runs whose tool ran out of workers."""

    fits: dict[str, queueing_fit.QueueFit] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    workers_exhausted: dict[str, tuple[int, int]] = field(default_factory=dict)  # runs, fitted
    names: dict[str, str] = field(default_factory=dict)  # target → as the tables name it


def fit_load(
    load: pd.DataFrame, capacities: Mapping[str, float], slos: Mapping[str, float]
) -> QueueModels:
    """Every target offered enough rates below its capacity, each with its SLO, fitted to
    the runs where the load tool was not the limit; the others named, and the fits with
    runs whose tool ran out of workers counted."""
    models = QueueModels()
    for target, rows in valid_rows(load).groupby("target", sort=False):
        server, name = str(rows["server"].iloc[0]), str(target)
        try:
            points = queueing_fit.load_points(load, name, capacities[server])
        except ValueError:  # every run at a rate the tool fell short of
            points = pd.DataFrame({"rho": []})
        if (points["rho"] < 1).sum() < QUEUE_POINTS:
            models.skipped.append(reader_name(load, name))
            continue
        models.fits[name] = queueing_fit.fit(load, name, capacities[server], slos.get(name))
        models.names[name] = reader_name(load, name)
        used, _left_out = queueing_fit.fitted_rows(load, name)
        exhausted = int(used["flags"].fillna("").str.contains(WORKERS_EXHAUSTED).sum())
        if exhausted:
            models.workers_exhausted[reader_name(load, name)] = (exhausted, len(used))
    return models


def queueing_section(models: QueueModels) -> list[object]:
    """A sentence per server on which model its p99 follows and where the models put its
    SLO, the caveats, and what the queues assume."""
    from IPython.display import Markdown

    if not models.fits:
        return [
            Markdown(
                f"No fit: no server was offered {QUEUE_POINTS} or more rates below its "
                "capacity, the fewest that say which queue its latency follows."
            )
        ]
    lines = [wording.queue_sentence(fit) for fit in models.fits.values()]
    lines += wording.queue_caveats(models.workers_exhausted, models.skipped, QUEUE_POINTS)
    return [Markdown(bullets(lines + [wording.QUEUE_ASSUMES]))]


def queueing_charts(models: QueueModels) -> list[object]:
    """The table of each model's miss and SLO crossing, then latency against utilisation
    per server, the models drawn over the measured points."""
    if not models.fits:
        return []
    charts = [
        model_plots.latency_vs_utilisation(fit, name=models.names.get(target, ""))
        for target, fit in models.fits.items()
    ]
    # each target by its rows' name: without them, a 1 ms sleep server would read as its
    # hello-world namesake
    table = wording.queue_table(models.fits).rename(index=models.names, level="target")
    return [tables.styled(table), *charts]
