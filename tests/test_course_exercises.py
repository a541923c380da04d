"""Every predict-then-measure exercise, measured for real at the smoke profile's setting,
with a right and a wrong prediction: the feedback calls the one close and the other not,
and prints the student's number, the model's and the measurement."""

import math

import nbformat
import pytest

from benchbook.course import Settings, check, feedback
from benchbook.course.exercises import EXERCISES
from benchbook.render.execute import load_profile
from benchbook.runs.layout import REPO_ROOT

NOTEBOOKS = REPO_ROOT / "notebooks"
SMOKE = NOTEBOOKS / "profiles" / "smoke.yaml"


def smoke_settings(notebook: str) -> Settings:
    profile = load_profile(SMOKE, NOTEBOOKS / f"{notebook}.ipynb")
    return Settings(profile["exercise_duration"], profile["exercise_repetitions"], warmup="0s")


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_a_right_prediction_is_close_and_a_wrong_one_is_not(key: str) -> None:
    exercise = EXERCISES[key]
    outcome = exercise.measure(smoke_settings(exercise.notebook))
    assert outcome.measured > 0 and math.isfinite(outcome.measured), outcome
    assert outcome.model > 0 and math.isfinite(outcome.model), outcome
    right = feedback.feedback(exercise, outcome.measured * (1 + exercise.tolerance / 2), outcome)
    assert right.verdict == feedback.CLOSE, right.text
    assert "**Close:**" in right.text and outcome.model_name in right.text
    for wrong in (outcome.measured * 3, outcome.measured / 3):
        off = feedback.feedback(exercise, wrong, outcome)
        assert off.verdict == feedback.OFF, off.text
        assert "**Not close:**" in off.text and "Explain the gap" in off.text


@pytest.mark.parametrize("prediction", [None, "ten thousand", float("nan"), True])
def test_without_a_number_nothing_is_measured_and_the_student_is_told_where_to_write(
    prediction: object,
) -> None:
    exercise = next(iter(EXERCISES.values()))
    said = check(exercise.key, prediction, enabled=True)  # would measure with a number
    assert said.verdict == feedback.MISSING and f"`{exercise.variable}`" in said.text


def test_with_exercises_off_a_prediction_is_kept_and_nothing_measured() -> None:
    exercise = next(iter(EXERCISES.values()))
    said = check(exercise.key, 1000, enabled=False)
    assert said.verdict == feedback.MISSING and "exercises = True" in said.text


def test_an_unknown_exercise_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="no exercise 'nope'; choose from: .*01.littles_law"):
        check("nope", 1, enabled=True)


def exercise_cells(notebook: str) -> list[nbformat.NotebookNode]:
    cells = nbformat.read(NOTEBOOKS / f"{notebook}.ipynb", as_version=4).cells
    return [c for c in cells if "exercise" in c.metadata.get("tags", [])]


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_each_exercise_has_its_prediction_cell_then_its_check_cell(key: str) -> None:
    exercise = EXERCISES[key]
    cells = exercise_cells(exercise.notebook)
    sources = [c.source for c in cells]
    (prediction,) = [
        i for i, s in enumerate(sources) if s.startswith(f"{exercise.variable} = None  #")
    ]
    assert "### BEGIN SOLUTION" in sources[prediction]
    assert cells[prediction].metadata["nbgrader"]["solution"] is True
    assert sources[prediction + 1] == (
        f'course.check("{key}", {exercise.variable}, exercises, exercise_duration, '
        "exercise_repetitions)"
    )
    explanation = cells[prediction + 2]
    assert explanation.cell_type == "markdown" and explanation.metadata["nbgrader"]["solution"]


def test_every_notebook_asks_at_least_two_exercises() -> None:
    for notebook in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
        asked = [e for e in EXERCISES.values() if e.notebook == notebook.stem]
        assert len(asked) >= 2, f"{notebook.stem}: {[e.key for e in asked]}"
