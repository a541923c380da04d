"""Cells that belong to the course, not to the report: the predict-then-measure exercises
(tagged ``exercise``), the teacher's notes (``teacher``) and the parameters that switch and
size the exercises. The report leaves them out and says, once per notebook and in its
appendix, where the exercises are; JupyterLab and the course's editions show them
(benchbook.course)."""

import copy
import itertools
import re

import nbformat

from benchbook.render.details import APPENDIX_TAG

COURSE_TAGS = frozenset({"exercise", "teacher"})
COURSE_MAP = "notebooks/COURSE.md"
PARAMETER_CELLS = frozenset({"parameters", "injected-parameters"})
# A parameters cell's line that sets an exercise's switch or size ('exercise_duration = …').
EXERCISE_PARAMETER = re.compile(r"^exercises?\w*\s*=.*(?:\n|$)", re.M)


def is_course_cell(cell: nbformat.NotebookNode) -> bool:
    return bool(COURSE_TAGS & set(cell.get("metadata", {}).get("tags", [])))


def without_course_cells(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook as the report shows it: its exercises replaced by one line that points
    to them, its teacher's notes gone."""
    cells: list[nbformat.NotebookNode] = []
    pointed = False
    for course, run in itertools.groupby(nb.cells, key=is_course_cell):
        block = list(run)
        if not course:
            cells += [_without_exercise_parameters(c) for c in block]
        elif not pointed and any("exercise" in c.metadata.get("tags", []) for c in block):
            pointed = True
            cells.append(
                nbformat.v4.new_raw_cell(
                    '<p class="details-link">This report leaves out the lesson\'s '
                    "predict-then-measure exercises: they are in the notebook itself "
                    f"(<code>notebooks/</code>), with the course map in <code>{COURSE_MAP}</code>."
                    "</p>",
                    # in the appendix with the notebook's "Try it yourself", not the body
                    metadata={"raw_mimetype": "text/html", "tags": [APPENDIX_TAG]},
                )
            )
    shown = copy.copy(nb)
    shown.cells = cells
    return shown


def _without_exercise_parameters(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A parameters cell as the report shows it: the exercises' parameters left out."""
    if not PARAMETER_CELLS & set(cell.get("metadata", {}).get("tags", [])):
        return cell
    shown = copy.deepcopy(cell)
    shown.source = EXERCISE_PARAMETER.sub("", cell.source)
    return shown
