"""Each lesson's minutes on this machine, as a student meets them (the course map prints
them; `make course-minutes`):

    python benchmarks/course_minutes.py [--only 01_io_concurrency …] [--profile P] [--work W]

Every teacher key (make course's, with the classroom profile's defaults) runs top to
bottom in the course's order: its experiments as `make report` measures them, then every
exercise with the key's own predictions, so each one measures. The runs land in a fresh
folder, build/course/minutes/runs/, as on a student's laptop with the bundle (no stored
run to reuse, the load-tool calibration measured by lesson 1); the notebooks' own runs
there are a session like any other (export them with
`BENCHBOOK_RUNS_DIR=build/course/minutes/runs make export-session SESSION=…`). Writes
data/course/minutes.json: the seconds of each notebook and of each exercise's measuring
cell (papermill's times).
"""

import argparse
import json
import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import nbformat

from benchbook.course import course_map, editions
from benchbook.course.build import CLASSROOM, lesson_notebooks
from benchbook.measure.provenance import machine
from benchbook.render.execute import execute_notebook
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.provenance import git_state

WORK = REPO_ROOT / "build" / "course" / "minutes"
CHECK = re.compile(r'^course\.check\("([^"]+)"')


def timed(executed: Path) -> dict:
    """A notebook's seconds, and each exercise's measuring cell's."""
    nb = nbformat.read(executed, as_version=4)
    seconds = {"seconds": 0.0, "exercises": {}}
    for cell in nb.cells:
        took = float((cell.metadata.get("papermill") or {}).get("duration") or 0.0)
        seconds["seconds"] += took
        found = CHECK.match(cell.source) if cell.cell_type == "code" else None
        if found:
            seconds["exercises"][found.group(1)] = round(took, 1)
    seconds["seconds"] = round(seconds["seconds"], 1)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="these notebooks (stems) alone")
    parser.add_argument("--out", type=Path, default=course_map.MINUTES)
    parser.add_argument(
        "--profile", type=Path, default=CLASSROOM, help="the editions' defaults (tests: smoke)"
    )
    parser.add_argument("--work", type=Path, default=WORK, help="emptied first")
    args = parser.parse_args()
    # The lessons that run a notebook, in the course's order (lesson 0 reads a section).
    order = [lesson.notebook for lesson in course_map.lessons() if not lesson.section]
    unknown = sorted(set(args.only or ()) - set(order))
    if unknown:
        parser.error(
            f"--only {', '.join(unknown)}: no lesson's notebook; choose from {', '.join(order)}"
        )
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    os.environ["BENCHBOOK_RUNS_DIR"] = str(work / "runs")
    os.environ.pop("BENCHBOOK_REUSE_RUNS", None)
    keys = {p.stem: p for p in editions.build(lesson_notebooks(), args.profile, work)["teacher"]}
    measured = course_map.measured_minutes(args.out) or {"lessons": {}}
    commit = git_state()["commit"]
    for stem in order:
        if args.only and stem not in args.only:
            continue
        executed = work / "executed" / f"{stem}.ipynb"
        execute_notebook(keys[stem], executed, None, {})
        # When and from which commit, per lesson: --only re-measures some and keeps the rest.
        now = datetime.now(UTC).isoformat(timespec="seconds")
        measured["lessons"][stem] = timed(executed) | {"measured_utc": now, "commit": commit}
        print(f"{stem}: {course_map.minutes_text(measured['lessons'][stem]['seconds'])}")
    here = machine()
    measured |= {
        "measured_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpu": here["cpu_model"], "cores": here["cpus_available"]},
        "commit": commit,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(measured, indent=1) + "\n")
    print(f"wrote {args.out}; the runs: {work / 'runs'}")


if __name__ == "__main__":
    main()
