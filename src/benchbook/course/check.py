"""The notebook's side of an exercise: ``check(key, prediction, …)`` in the cell after the
student's prediction. It measures only once there is a number to compare, and only when
the notebook's ``exercises`` parameter is on (the classroom profile and the course's
editions turn it on; ``make report`` leaves it off, so the report measures no exercise).
"""

from benchbook.course import feedback as fb
from benchbook.course.exercise import Settings
from benchbook.course.exercises import exercise
from benchbook.measure.hosts.namespaces import HostError


def check(
    key: str, prediction: object, enabled: bool, duration: str = "5s", repetitions: int = 3
) -> fb.Feedback:
    """Measure exercise ``key`` and compare ``prediction`` with the measurement and the
    model; before a prediction, or with exercises off, say what to do instead."""
    found = exercise(key)
    if fb.as_number(prediction) is None:
        return fb.missing(found, prediction)
    if not enabled:
        return fb.Feedback(
            fb.MISSING,
            f"**{found.title}.** Exercises measure only with `exercises = True` (the "
            "classroom profile: `make run NB=… PROFILE=classroom`, or the course's "
            "editions: `make course`). Your prediction is kept in "
            f"`{found.variable}`.",
        )
    try:
        outcome = found.measure(Settings(duration, repetitions))
    except HostError as error:  # lesson 07 without root: say so, keep the prediction
        return fb.Feedback(fb.MISSING, f"**{found.title}.** {error}")
    return fb.feedback(found, prediction, outcome)
