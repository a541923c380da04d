"""The two editions a class works from, made from the lesson notebooks with nbgrader's own
preprocessors (its solution markers, ``### BEGIN SOLUTION`` … ``### END SOLUTION``, and its
solution cells):

- the **student edition**: no solution (each prediction and explanation left for the
  student), no generated conclusion (the notebook's Conclusion section, which does the
  reasoning a student should do), no teacher's note, no output;
- the **teacher key**: every cell, with the solutions and the teacher's notes (cells
  tagged ``teacher``), no output.

Both hold the classroom profile's values as their parameters' defaults, so a *Run All* in
JupyterLab measures the exercises. The source notebooks stay valid nbgrader source
notebooks: a teacher who grades with nbgrader can put them in a course directory as they are.
"""

import ast
import copy
import json
from pathlib import Path

import nbformat
from nbgrader.preprocessors import ClearOutput, ClearSolutions

from benchbook.render.execute import load_profile
from benchbook.render.notebook_parameters import PARAMETERS_TAG

TEACHER_TAG = "teacher"
CONCLUSION_HEADING = "## Conclusion"
# What replaces a solution: the prediction cell keeps its `<variable> = None` line above it.
CODE_STUB = "# your reasoning, then your number in the variable above"
TEXT_STUB = "**Your explanation of the gap:** …"


def conclusion_section(cells: list[nbformat.NotebookNode]) -> set[int]:
    """The indices of the Conclusion section: from its heading to the next heading of the
    same level (the generated answer, its verdicts and the comparisons behind it)."""
    inside, found = False, set()
    for i, cell in enumerate(cells):
        heading = cell.cell_type == "markdown" and cell.source.startswith("## ")
        if heading:
            inside = cell.source.startswith(CONCLUSION_HEADING)
        if inside:
            found.add(i)
    return found


def literal(value: object) -> str:
    """A profile value as the parameters cell writes it: True, 3, "5s", [1, 2]."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return repr(value)


def with_defaults(source: str, values: dict[str, object]) -> str:
    """The parameters cell ``source`` with the defaults of ``values`` replaced in place
    (each name's own line, its comment kept); a name the cell lacks is an error."""
    lines = source.split("\n")
    assigned = {
        node.targets[0].id: node.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    missing = sorted(set(values) - set(assigned))
    if missing:
        raise ValueError(f"the parameters cell has no {', '.join(missing)}")
    # Right to left within a line and bottom to top, so earlier offsets stay valid.
    for name in sorted(values, key=lambda n: (assigned[n].lineno, assigned[n].col_offset))[::-1]:
        node = assigned[name]
        if node.lineno != node.end_lineno:
            raise ValueError(f"{name}: a default over several lines cannot be replaced")
        line = lines[node.lineno - 1]
        lines[node.lineno - 1] = (
            line[: node.col_offset] + literal(values[name]) + line[node.end_col_offset :]
        )
    return "\n".join(lines)


def edition(notebook: Path, profile: Path, student: bool) -> nbformat.NotebookNode:
    """One lesson's edition (see the module's docstring)."""
    nb = nbformat.read(notebook, as_version=4)
    values = load_profile(profile, notebook)
    for cell in nb.cells:
        if PARAMETERS_TAG in cell.metadata.get("tags", []):
            cell.source = with_defaults(cell.source, values)
    if student:
        dropped = conclusion_section(nb.cells)
        nb.cells = [
            c
            for i, c in enumerate(nb.cells)
            if i not in dropped and TEACHER_TAG not in c.metadata.get("tags", [])
        ]
        clear = ClearSolutions(code_stub={"python": CODE_STUB}, text_stub=TEXT_STUB)
        nb, _ = clear.preprocess(nb, {})
    nb, _ = ClearOutput().preprocess(copy.deepcopy(nb), {})
    return nb


def build(notebooks: list[Path], profile: Path, out: Path) -> dict[str, list[Path]]:
    """Both editions of every notebook, under ``out``/student and ``out``/teacher."""
    written: dict[str, list[Path]] = {"student": [], "teacher": []}
    for kind in written:
        (out / kind).mkdir(parents=True, exist_ok=True)
        for notebook in notebooks:
            path = out / kind / notebook.name
            nbformat.write(edition(notebook, profile, student=kind == "student"), path)
            written[kind].append(path)
    return written
