"""Re-rendering reuses a stored run only when nothing that shapes a measurement changed."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure import reuse
from benchbook.measure.run_store import Run
from benchbook.runs.layout import REPO_ROOT


def reuse_run(connections: int = 2) -> Run:
    wrk = measure.tool("wrk", connections=connections, threads=1, duration="1s")
    return measure.run("reuse_test", ["go-hello"], wrk, warmup="0s", repetitions=1)


@pytest.mark.slow
def test_a_stored_run_stands_in_only_for_the_same_parameters(runs_dir, monkeypatch) -> None:
    first = reuse_run()
    monkeypatch.setenv("BENCHBOOK_REUSE_RUNS", "1")
    again = reuse_run()
    assert again.run_id == first.run_id
    other = reuse_run(connections=3)
    assert other.run_id != first.run_id
    monkeypatch.delenv("BENCHBOOK_REUSE_RUNS")
    assert reuse_run().run_id != first.run_id
    assert descendants() == []


def test_measuring_code_is_part_of_the_fingerprint(tmp_path, monkeypatch) -> None:
    measured = tmp_path / "measure" / "measured.py"
    measured.parent.mkdir()
    measured.write_text("A = 1\n")
    monkeypatch.setattr(reuse, "MEASURING_DIRS", (measured.parent,))
    monkeypatch.setattr(reuse, "REPO_ROOT", tmp_path)
    before = reuse.fingerprint("x", {"connections": 2})
    assert reuse.fingerprint("x", {"connections": 2}) == before
    measured.write_text("A = 2\n")
    assert reuse.fingerprint("x", {"connections": 2}) != before


def test_the_measuring_code_is_the_measure_package_and_the_servers() -> None:
    files = {path.relative_to(REPO_ROOT).as_posix() for path in reuse.measuring_files()}
    assert {
        "src/benchbook/measure/orchestration.py",
        "src/benchbook/measure/tools/wrk.py",
        "src/benchbook/measure/tools/wrk_report.lua",
        "servers/servers.toml",
    } <= files
    assert not any(f.startswith(("src/benchbook/analyse/", "src/benchbook/render/")) for f in files)


def test_measure_imports_nothing_from_analysis_or_rendering() -> None:
    # What makes the folder boundary safe for reuse: lint-imports checks the contracts
    # in pyproject.toml, and fails the build when measure reaches above itself.
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports"))],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "measure imports nothing above it KEPT" in done.stdout


@pytest.mark.parametrize("notebook", ["05_grpc_vs_http", "06_open_loop"])
def test_make_report_builds_the_go_tools_before_a_notebook(notebook: str) -> None:
    # -W: as if the tools' go.mod had just changed; -n: print the recipes, run none
    plan = subprocess.run(
        ["make", "-n", "-W", "servers/go/tools/go.mod", f"report/executed/{notebook}.ipynb"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert plan.index("go -C servers/go/tools install tool") < plan.index(
        "benchbook.render.execute"
    )


MEASURED_PY = '''"""A module that measures."""

LIMIT = 0.15  # a share


def flag(gap: float) -> bool:
    """Whether the gap is too large."""
    return abs(gap) > LIMIT
'''
MEASURED_GO = """package main

// Serve answers.
func Serve() string {
	return "a // not a comment" /* inline */
}
"""


@pytest.mark.parametrize(
    ("name", "source", "edit", "remeasures"),
    [
        ("flags.py", MEASURED_PY, ("# a share", "# the share allowed"), False),
        ("flags.py", MEASURED_PY, ("Whether the gap", "If the gap"), False),
        ("flags.py", MEASURED_PY, ('"""A module that measures."""', '"""Measures."""'), False),
        ("flags.py", MEASURED_PY, ("0.15", "0.2"), True),
        ("flags.py", MEASURED_PY, ("abs(gap) >", "abs(gap) >="), True),
        ("main.go", MEASURED_GO, ("// Serve answers.", "// Serve answers requests."), False),
        ("main.go", MEASURED_GO, ("/* inline */", ""), False),
        ("main.go", MEASURED_GO, ("not a comment", "still not a comment"), True),
        ("main.go", MEASURED_GO, ("return", "return /* x */"), False),
    ],
)
def test_a_comment_keeps_the_fingerprint_and_code_changes_it(
    tmp_path, monkeypatch, name: str, source: str, edit: tuple[str, str], remeasures: bool
) -> None:
    # On a copy: the repository's own files are never edited by a test.
    measured = tmp_path / "measure" / name
    measured.parent.mkdir()
    measured.write_text(source)
    monkeypatch.setattr(reuse, "MEASURING_DIRS", (measured.parent,))
    monkeypatch.setattr(reuse, "REPO_ROOT", tmp_path)
    before = reuse.fingerprint("x", {"connections": 2})
    assert edit[0] in source
    measured.write_text(source.replace(*edit))
    assert (reuse.fingerprint("x", {"connections": 2}) != before) is remeasures
