"""Re-rendering reuses a stored run only when nothing that shapes a measurement changed."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure import reuse
from benchbook.measure.layout import REPO_ROOT
from benchbook.measure.run_store import Run


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


@pytest.mark.slow
def test_a_changed_sentence_in_the_analysis_reuses_the_stored_run(runs_dir, monkeypatch) -> None:
    # What make report relies on: rewording a flag's explanation (analyse/) re-renders
    # from the stored run; the same edit in measure/ measures again.
    first = reuse_run()
    monkeypatch.setenv("BENCHBOOK_REUSE_RUNS", "1")
    wording = REPO_ROOT / "src/benchbook/analyse/flag_wording.py"
    original = wording.read_text()
    try:
        wording.write_text(original.replace("failed or broke", "failed, or broke"))
        assert wording.read_text() != original
        assert reuse_run().run_id == first.run_id
    finally:
        wording.write_text(original)
    flags_rules = REPO_ROOT / "src/benchbook/measure/flags.py"
    rules = flags_rules.read_text()
    try:
        flags_rules.write_text(rules + "# an edit in measure/\n")
        assert reuse_run().run_id != first.run_id
    finally:
        flags_rules.write_text(rules)
    assert descendants() == []
