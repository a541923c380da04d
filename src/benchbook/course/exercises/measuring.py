"""What every exercise's measurement shares: one short experiment, its medians, and the
words that say what was measured."""

import pandas as pd

from benchbook import measure
from benchbook.course.exercise import Settings
from benchbook.measure.experiment_plan import PlannedRun


def run(name: str, settings: Settings, **experiment: object) -> PlannedRun:
    """Measure ``experiment`` as ``exercise_<name>`` for ``settings`` (its rounds and
    warm-up), servers and load tool on disjoint CPUs."""
    return measure.run(
        measure.Experiment(
            f"exercise_{name}",
            warmup=settings.warmup,
            repetitions=settings.repetitions,
            **experiment,  # type: ignore[arg-type]
        )
    )


def median(results: pd.DataFrame, target: str, column: str) -> float:
    """The median of ``column`` over ``target``'s rounds; a target that was not measured
    is an error that names the ones that were."""
    rows = results[results["target"] == target]
    if rows.empty:
        raise ValueError(f"no rounds of {target!r}; measured: {sorted(set(results['target']))}")
    return float(rows[column].median())


def rounds(settings: Settings) -> str:
    """'median of 3 rounds of 5 s'."""
    plural = "round" if settings.repetitions == 1 else "rounds"
    return f"median of {settings.repetitions} {plural} of {settings.duration}"


def paired_ratio(results: pd.DataFrame, numerator: str, denominator: str, column: str) -> float:
    """The median over rounds of ``numerator``'s ``column`` ÷ ``denominator``'s in the same
    round: both measured side by side, so what drifts between rounds (another program on
    the machine) cancels, as the notebooks' paired comparisons have it."""
    by_round = results.pivot_table(index="repetition", columns="target", values=column)
    for target in (numerator, denominator):
        if target not in by_round:
            raise ValueError(f"no rounds of {target!r}; measured: {sorted(by_round.columns)}")
    return float((by_round[numerator] / by_round[denominator]).median())
