"""The course map (notebooks/COURSE.md): the lessons in teaching order, each with its
goals, prerequisites, the concepts it introduces, its exercises and its minutes on two
cores. Written from notebooks/course.yaml (what a teacher edits), the exercises as
benchbook.course holds them and the minutes measured by benchmarks/course_minutes.py
(data/course/minutes.json): nothing in it is typed twice."""

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from benchbook.course.exercise import Exercise
from benchbook.course.exercises import EXERCISES
from benchbook.runs.layout import REPO_ROOT

LESSONS = REPO_ROOT / "notebooks" / "course.yaml"
MINUTES = REPO_ROOT / "data" / "course" / "minutes.json"
COURSE_MAP = REPO_ROOT / "notebooks" / "COURSE.md"


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    notebook: str
    goals: list[str]
    prerequisites: list[str]
    concepts: list[str]
    section: str | None = None  # a part of the notebook read on its own: nothing measured
    needs: str | None = None  # what the lesson needs beyond a laptop
    exercises: list[Exercise] = field(default_factory=list)


def lessons(path: Path = LESSONS) -> list[Lesson]:
    """The lessons of ``path`` in order, each checked against the notebooks it names."""
    found = []
    for number, entry in enumerate(yaml.safe_load(path.read_text())):
        notebook = path.parent / f"{entry['notebook']}.ipynb"
        if not notebook.exists():
            raise ValueError(f"{path}: lesson {number} names no notebook {notebook.name}")
        section = entry.get("section")
        if section and not _has_heading(notebook, section):
            raise ValueError(f"{path}: {notebook.name} has no section {section!r}")
        asked = [] if section else [e for e in EXERCISES.values() if e.notebook == notebook.stem]
        found.append(Lesson(number, exercises=asked, **entry))
    return found


def _has_heading(notebook: Path, heading: str) -> bool:
    cells = nbformat.read(notebook, as_version=4).cells
    return any(
        line.lstrip("#").strip() == heading
        for cell in cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("#")
    )


def minutes_text(seconds: float) -> str:
    """'4 min 10 s'."""
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60:02d} s"


def _intro(count: int) -> list[str]:
    """The map's opening: what the course is, how to run it, and its noise."""
    return [
        "# The benchbook course",
        "",
        f"{count} lessons on web-server performance, each a notebook that measures",
        "real servers on your machine. Every notebook asks before it measures: write a",
        "prediction into a named variable, run the next cell, and it sets your number",
        "beside the model's and the measurement; then explain the gap.",
        "",
        "**Run it.** `make course` builds, offline, a student edition (no solutions, no",
        "generated conclusions) and a teacher key (solutions and teacher's notes) of every",
        "notebook under `build/course/`, and a bundle for students without the stored runs",
        "(`build/course/benchbook-course.tar.gz`). `make lab` installs only what the notebooks",
        "need and opens JupyterLab; `make lab LAB_DIR=build/course/student` opens the student",
        'edition. `make run NB=… P="…" RENDER=no` re-runs one notebook with a changed',
        "parameter without rendering the report. After class, each student runs",
        '`make export-session`, and `make class FILES="alice.session.tar bob.session.tar"`',
        "shows the class's results side by side, one laptop per column.",
        "",
        "**Noise.** JupyterLab and the browser share the laptop's cores with the server and the",
        "load tool. Lesson 3's A/A control (one server measured twice in every round) shows",
        "how many percent that noise moves a result: read it before trusting a small gap.",
        "",
    ]


def course_map(
    found: list[Lesson],
    measured: dict | None,
    map_path: Path = COURSE_MAP,
    notebooks: Path = REPO_ROOT / "notebooks",
) -> str:
    """The course map as Markdown (see the module's docstring); ``measured``: the minutes
    file's content, None before any were measured. ``map_path``: where the map is
    written, to link the ``notebooks`` (an edition's folder, or the lessons') from it."""
    timed = (measured or {}).get("lessons", {})
    lines = [
        *_intro(len(found)),
        _minutes_note(measured),
        "",
        "| Lesson | Notebook | Exercises | Minutes on 2 cores |",
        "| --- | --- | --- | --- |",
    ]
    for lesson in found:
        link = _link(lesson, map_path, notebooks)
        lines.append(
            f"| {lesson.number}. {lesson.title} | {link} | {len(lesson.exercises) or '–'} | "
            f"{_minutes_cell(lesson, timed)} |"
        )
    for lesson in found:
        lines += ["", f"## Lesson {lesson.number}: {lesson.title}", ""]
        where = f"the section “{lesson.section}” of " if lesson.section else ""
        lines.append(f"Notebook: {where}{_link(lesson, map_path, notebooks)}.")
        if lesson.needs:
            lines += ["", f"**Needs** {lesson.needs}."]
        lines += ["", "**Goals**", ""] + [f"- {goal}" for goal in lesson.goals]
        lines += [
            "",
            f"**Prerequisites:** {', '.join(lesson.prerequisites)}.",
            "",
            f"**Concepts introduced:** {', '.join(lesson.concepts)}.",
        ]
        if lesson.exercises:
            lines += ["", "**Exercises** (predict, then measure)", ""]
            lines += [
                f"{i}. {e.title} — predict `{e.variable}` in {e.unit}, close within "
                f"±{round(100 * e.tolerance)} %{_exercise_time(e, timed)}"
                for i, e in enumerate(lesson.exercises, 1)
            ]
        lines += ["", f"**Minutes on 2 cores:** {_minutes_cell(lesson, timed)}."]
    return "\n".join(lines) + "\n"


def _link(lesson: Lesson, map_path: Path, notebooks: Path) -> str:
    notebook = notebooks / f"{lesson.notebook}.ipynb"
    return f"[{lesson.notebook}]({Path(os.path.relpath(notebook, map_path.parent)).as_posix()})"


def _minutes_note(measured: dict | None) -> str:
    if not measured:
        return "Minutes: not measured yet (`make course-minutes` measures them)."
    machine = measured["machine"]
    return (
        f"Minutes were measured by `make course-minutes` on {measured['measured_utc'][:10]}: "
        f"each teacher key run top to bottom with the classroom profile (the notebook's "
        f"experiments as `make report` runs them, then every exercise with the key's "
        f"predictions), on a fresh runs folder as a student's laptop has, on "
        f"{machine['cpu']} with {machine['cores']} cores."
    )


def _minutes_cell(lesson: Lesson, timed: dict) -> str:
    if lesson.section:
        return "reading; nothing runs"
    entry = timed.get(lesson.notebook)
    if entry is None:
        return "not measured"
    exercises = sum(entry["exercises"].values())
    return f"{minutes_text(entry['seconds'])}, exercises {minutes_text(exercises)} of them"


def _exercise_time(exercise: Exercise, timed: dict) -> str:
    seconds = timed.get(exercise.notebook, {}).get("exercises", {}).get(exercise.key)
    return "" if seconds is None else f" ({minutes_text(seconds)} to measure)"


def measured_minutes(path: Path = MINUTES) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


def write(path: Path = COURSE_MAP) -> Path:
    path.write_text(course_map(lessons(), measured_minutes(), path))
    return path
