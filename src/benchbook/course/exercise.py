"""One predict-then-measure exercise: what the student predicts, how it is measured, and
the model that predicts the same number.

A student writes a number into a named variable (``Exercise.variable``); ``measure`` runs
the servers for the exercise's setting and returns the measured number beside the model's
(an ``Outcome``); feedback compares the three. The model's number comes from the model and
the run's own parameters, the measured one from the run: neither is typed anywhere.
"""

from collections.abc import Callable
from dataclasses import dataclass

from benchbook.runs.durations import parse_duration


@dataclass(frozen=True)
class Settings:
    """How long an exercise measures: each run ``duration``, ``repetitions`` rounds, each
    server warmed up for ``warmup`` first (the classroom profile keeps an exercise near a
    minute; the tests, at the smoke profile's setting and no warm-up, to seconds)."""

    duration: str = "5s"
    repetitions: int = 3
    warmup: str = "1s"

    def __post_init__(self) -> None:
        parse_duration("exercise_duration", self.duration)
        if self.repetitions < 1:
            raise ValueError(f"exercise_repetitions: {self.repetitions}; give 1 or more")


@dataclass(frozen=True)
class Outcome:
    """What an exercise measured and what its model predicts for the same setting."""

    measured: float
    model: float
    model_name: str  # the model in a few words, with its numbers: "Little's law, 10 / 1 ms"
    measured_how: str  # what was measured: the target, the setting, the rounds
    run_id: str | None = None  # the stored run the measurement comes from


@dataclass(frozen=True)
class Exercise:
    """A prediction a student makes before measuring (see the module's docstring)."""

    key: str  # "<notebook number>.<name>": how a notebook's cell names it
    notebook: str  # the lesson it belongs to
    title: str
    variable: str  # the notebook variable that holds the student's number
    unit: str  # the prediction's unit, as printed
    tolerance: float  # a prediction within ±tolerance (a share) of the measurement is close
    explain: str  # the question asked about the gap between the model and the measurement
    measure: Callable[[Settings], Outcome]
