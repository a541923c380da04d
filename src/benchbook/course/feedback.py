"""What a student reads after measuring: their number, the model's and the measured one
side by side, whether the prediction is close (within the exercise's tolerance of the
measurement), and the question that asks them to explain the gap.

Pure: a test gives it a right and a wrong prediction for one measured outcome.
"""

import math
from dataclasses import dataclass

from benchbook.analyse.numbers import formatting as fmt
from benchbook.course.exercise import Exercise, Outcome

CLOSE, OFF, MISSING = "close", "off", "missing"


@dataclass(frozen=True)
class Feedback:
    verdict: str  # CLOSE, OFF or MISSING
    text: str  # Markdown

    def _repr_markdown_(self) -> str:
        return self.text


def as_number(value: object) -> float | None:
    """A prediction as a number; None for anything else (None, text, NaN, a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def missing(exercise: Exercise, value: object) -> Feedback:
    """Before any measuring: where to write the prediction."""
    what = "holds no prediction yet" if value is None else f"holds {value!r}, which is not a number"
    return Feedback(
        MISSING,
        f"**{exercise.title}.** `{exercise.variable}` {what}. Write your prediction (a number, "
        f"in {exercise.unit}) into `{exercise.variable}` in the cell above, run that cell, "
        "then this one: it measures only once you have predicted.",
    )


def relative(value: float, reference: float) -> str:
    """'12 % above', '3.1 times', 'equal' — value against reference, in words."""
    if reference <= 0:
        return "–"
    ratio = value / reference
    if ratio >= 2 or ratio <= 0.5:
        return f"{fmt.ratio(ratio)} of it"
    change = ratio - 1
    if abs(change) < 0.005:
        return "equal to it"
    return f"{fmt.share_point(abs(change))} {'above' if change > 0 else 'below'}"


def feedback(exercise: Exercise, prediction: object, outcome: Outcome) -> Feedback:
    """The student's number against the measurement and the model (module docstring)."""
    number = as_number(prediction)
    if number is None:
        return missing(exercise, prediction)
    tolerance = fmt.share_point(exercise.tolerance)
    close = _within(number, outcome.measured, exercise.tolerance)
    model_close = _within(outcome.model, outcome.measured, exercise.tolerance)
    rows = [
        f"| | {exercise.unit} | against the measurement |",
        "| --- | --- | --- |",
        f"| Your prediction | {fmt.significant(number, 3)} | "
        f"{relative(number, outcome.measured)} |",
        f"| The model: {outcome.model_name} | {fmt.significant(outcome.model, 3)} | "
        f"{relative(outcome.model, outcome.measured)} |",
        f"| Measured: {outcome.measured_how} | {fmt.significant(outcome.measured, 3)} | |",
    ]
    verdict = (
        f"**Close:** your prediction is within ±{tolerance} of the measurement."
        if close
        else f"**Not close:** your prediction is {relative(number, outcome.measured)} the "
        f"measurement, outside ±{tolerance}."
    )
    model = (
        f"The model is within ±{tolerance} of the measurement, too."
        if model_close
        else f"The model misses the measurement: it is {relative(outcome.model, outcome.measured)}."
    )
    return Feedback(
        CLOSE if close else OFF,
        f"**{exercise.title}.**\n\n" + "\n".join(rows) + f"\n\n{verdict} {model}\n\n"
        f"**Explain the gap** (between your number, the model's and the measurement): "
        f"{exercise.explain}",
    )


def _within(value: float, reference: float, tolerance: float) -> bool:
    return reference > 0 and abs(value / reference - 1) <= tolerance
