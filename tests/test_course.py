"""The course's editions, its map and its bundle (make course), built for real from the
repository's notebooks."""

import re
import subprocess
import tarfile
from pathlib import Path

import nbformat
import pytest

from benchbook.course import build, course_map, editions
from benchbook.course.exercises import EXERCISES
from benchbook.render.course_cells import COURSE_MAP
from benchbook.render.execute import load_profile
from benchbook.runs.layout import REPO_ROOT

SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, nbformat.NotebookNode]]:
    out = tmp_path_factory.mktemp("course")
    written = editions.build(build.lesson_notebooks(), build.CLASSROOM, out)
    return {
        kind: {p.stem: nbformat.read(p, as_version=4) for p in paths}
        for kind, paths in written.items()
    }


def sources() -> dict[str, nbformat.NotebookNode]:
    return {p.stem: nbformat.read(p, as_version=4) for p in build.lesson_notebooks()}


def solutions(nb: nbformat.NotebookNode) -> list[str]:
    """Every solution of a source notebook: code regions and whole solution cells."""
    found = []
    for cell in nb.cells:
        if not (cell.metadata.get("nbgrader") or {}).get("solution"):
            continue
        regions = SOLUTION.findall(cell.source)
        found += [r.strip() for r in regions] if regions else [cell.source.strip()]
    return found


def tagged(nb: nbformat.NotebookNode, tag: str) -> list[nbformat.NotebookNode]:
    return [c for c in nb.cells if tag in c.metadata.get("tags", [])]


def test_the_student_edition_holds_no_solution_no_conclusion_and_no_teachers_note(
    built: dict,
) -> None:
    for stem, source in sources().items():
        student = built["student"][stem]
        text = "\n".join(c.source for c in student.cells)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        for solution in solutions(source):
            assert solution not in text, f"{stem}: a solution survived: {solution[:80]!r}"
        assert not tagged(student, editions.TEACHER_TAG), stem
        # the generated answer and conclusion: the Conclusion section, its findings call
        assert not any(c.source.startswith(editions.CONCLUSION_HEADING) for c in student.cells)
        assert "conclusion.findings(" not in text, stem
        assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")


def test_the_teacher_key_holds_every_solution_and_note(built: dict) -> None:
    for stem, source in sources().items():
        key = built["teacher"][stem]
        text = "\n".join(c.source for c in key.cells)
        for solution in solutions(source):
            assert solution in text, stem
        assert len(tagged(key, editions.TEACHER_TAG)) == len(tagged(source, editions.TEACHER_TAG))
        assert len(key.cells) == len(source.cells)


def test_every_exercise_is_in_both_editions_with_its_prediction_left_blank_for_students(
    built: dict,
) -> None:
    for exercise in EXERCISES.values():
        student = "\n".join(c.source for c in built["student"][exercise.notebook].cells)
        assert f"{exercise.variable} = None  # your prediction, in {exercise.unit}\n" in student
        assert editions.CODE_STUB in student and f'course.check("{exercise.key}"' in student


def test_both_editions_run_the_classroom_profile_by_default(built: dict) -> None:
    for kind in ("student", "teacher"):
        for stem, nb in built[kind].items():
            (parameters,) = tagged(nb, "parameters")
            values = load_profile(build.CLASSROOM, REPO_ROOT / "notebooks" / f"{stem}.ipynb")
            assert values["exercises"] is True
            for name, value in values.items():
                assert f"\n{name} = {editions.literal(value)}  #" in f"\n{parameters.source}"


def test_a_default_is_replaced_in_place_and_a_missing_name_refused() -> None:
    source = 'a = 1  # one\nb = "x"  # two\nc = [1, 2]\n'
    assert editions.with_defaults(source, {"b": "5s", "c": [3]}) == (
        'a = 1  # one\nb = "5s"  # two\nc = [3]\n'
    )
    with pytest.raises(ValueError, match="the parameters cell has no d"):
        editions.with_defaults(source, {"d": 1})


def test_the_course_map_is_current_and_names_every_lesson_and_exercise() -> None:
    found = course_map.lessons()
    written = course_map.COURSE_MAP.read_text()
    assert written == course_map.course_map(found, course_map.measured_minutes()), (
        "notebooks/COURSE.md is stale: make course"
    )
    assert [lesson.notebook for lesson in found[1:]] == [
        "00_load_generators", "02_hello_world_locust", "01_io_concurrency",
        "03_goroutine_fanout", "04_url_shortener", "05_grpc_vs_http", "06_open_loop",
        "07_network",
    ]  # fmt: skip
    assert found[0].section and found[0].notebook == "06_open_loop"
    for exercise in EXERCISES.values():
        assert exercise.title in written
    for link in re.findall(r"\]\(([^)]+\.ipynb)\)", written):
        assert (course_map.COURSE_MAP.parent / link).exists(), link


def test_the_student_editions_map_links_its_own_notebooks(tmp_path: Path) -> None:
    student = editions.build(build.lesson_notebooks(), build.CLASSROOM, tmp_path)["student"]
    beside = tmp_path / "student" / "COURSE.md"
    written = course_map.course_map(course_map.lessons(), None, beside, beside.parent)
    links = re.findall(r"\]\(([^)]+\.ipynb)\)", written)
    assert links and all((beside.parent / link).resolve() in student for link in links)


def test_a_lesson_naming_a_missing_section_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "course.yaml"
    bad.write_text(
        "- {title: t, notebook: 06_open_loop, section: Nowhere, goals: [], "
        "prerequisites: [], concepts: []}\n"
    )
    (tmp_path / "06_open_loop.ipynb").write_text(
        (REPO_ROOT / "notebooks" / "06_open_loop.ipynb").read_text()
    )
    with pytest.raises(ValueError, match="has no section 'Nowhere'"):
        course_map.lessons(bad)


def test_the_bundle_leaves_out_the_stored_runs_and_holds_the_student_edition(
    tmp_path: Path, built: dict
) -> None:
    student = editions.build(build.lesson_notebooks(), build.CLASSROOM, tmp_path)["student"]
    archive = build.bundle(student, tmp_path / "bundle.tar.gz")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        notebook = tar.extractfile(f"{build.BUNDLE_ROOT}/notebooks/01_io_concurrency.ipynb")
        assert notebook is not None
        bundled = nbformat.reads(notebook.read().decode(), as_version=4)
    inside = [n.removeprefix(f"{build.BUNDLE_ROOT}/") for n in names]
    assert [n for n in inside if n.startswith("data/runs/")] == ["data/runs/README.md"]
    assert not [n for n in inside if n.startswith(("report/", "tests/"))]
    for needed in ("Makefile", "requirements.txt", "notebooks/profiles/classroom.yaml",
                   "notebooks/COURSE.md", "servers/servers.toml"):  # fmt: skip
        assert needed in inside, needed
    assert "BEGIN SOLUTION" not in "\n".join(c.source for c in bundled.cells)
    assert archive.stat().st_size < 1e6  # the README: "under a megabyte"


def test_the_report_links_the_course_map() -> None:
    template = (REPO_ROOT / "src/benchbook/render/report_template/page.html.j2").read_text()
    assert f'href="../{COURSE_MAP}"' in template
    assert REPO_ROOT / COURSE_MAP == course_map.COURSE_MAP


def recipe(target: str, *variables: str) -> str:
    return subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", target, *variables],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def test_lab_and_course_install_no_test_tool() -> None:
    """`make lab` checks the notebooks' system tools alone (no chromium, no sshd), and
    neither it nor `make course` installs the test requirements."""
    lab, course = recipe("lab"), recipe("course")
    assert ".ci/system-tools notebooks" in lab
    for made in (lab, course):
        assert "requirements-test.txt" not in made and ".ci/system-tools tests" not in made
    assert "requirements-test.txt" in recipe("test-fast")
    assert ".ci/system-tools tests" in recipe("test")
