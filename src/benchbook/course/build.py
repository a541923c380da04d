"""`make course`: everything a class needs, offline, from the repository as it is —

- build/course/student/ and build/course/teacher/: both editions of every lesson
  notebook (editions);
- notebooks/COURSE.md: the course map (course_map);
- build/course/benchbook-course.tar.gz: the bundle students unpack on their laptops —
  the repository's tracked files without the stored runs (data/runs/, most of a clone's
  size), the report and the tests, with the student edition in place of notebooks/.
"""

import io
import subprocess
import tarfile
from pathlib import Path

import nbformat

from benchbook.course import course_map, editions
from benchbook.runs.layout import REPO_ROOT

OUT = REPO_ROOT / "build" / "course"
CLASSROOM = REPO_ROOT / "notebooks" / "profiles" / "classroom.yaml"
BUNDLE_ROOT = "benchbook-course"
# Left out of the bundle: the stored runs and the report built from them (a student
# measures their own), and the tests (the course runs notebooks, not the test suite).
LEFT_OUT = ("data/runs/", "report/", "tests/")


def lesson_notebooks() -> list[Path]:
    return sorted((REPO_ROOT / "notebooks").glob("[0-9]*.ipynb"))


def tracked_files() -> list[str]:
    """The repository's tracked files, as git lists them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    return [name for name in listed.stdout.split("\0") if name]


def bundle(student: list[Path], out: Path) -> Path:
    """The students' bundle (see the module's docstring) at ``out``."""
    editions_by_name = {f"notebooks/{path.name}": path for path in student}
    with tarfile.open(out, "w:gz") as tar:
        for name in tracked_files():
            if name.startswith(LEFT_OUT) or not (REPO_ROOT / name).exists():
                continue
            source = editions_by_name.get(name, REPO_ROOT / name)
            tar.add(source, arcname=f"{BUNDLE_ROOT}/{name}", recursive=False)
        # An empty data/runs/ with its README, so the layout stays what the docs describe.
        note = b"Your own runs land here: make lab, make run, make report.\n"
        info = tarfile.TarInfo(f"{BUNDLE_ROOT}/data/runs/README.md")
        info.size = len(note)
        tar.addfile(info, io.BytesIO(note))
    return out


def build(out: Path = OUT) -> list[str]:
    """Build the editions, the course map and the bundle; what was written, in lines."""
    written = editions.build(lesson_notebooks(), CLASSROOM, out)
    course = course_map.write()
    student_map = out / "student" / "COURSE.md"
    student_map.write_text(  # beside the student edition, linking its notebooks
        course_map.course_map(
            course_map.lessons(), course_map.measured_minutes(), student_map, student_map.parent
        )
    )
    for path in written["student"]:
        nbformat.validate(nbformat.read(path, as_version=4))
    archive = bundle(written["student"], out / f"{BUNDLE_ROOT}.tar.gz")
    return [
        f"student edition: {len(written['student'])} notebooks in {out / 'student'}",
        f"teacher key: {len(written['teacher'])} notebooks in {out / 'teacher'}",
        f"course map: {course}",
        f"bundle for students: {archive} ({archive.stat().st_size / 1e6:.1f} MB)",
    ]
