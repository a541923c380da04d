"""Re-rendering reuses a stored run only when nothing that shapes a measurement changed."""

import ast
import subprocess
from pathlib import Path

import pytest
from conftest import descendants

from benchbook import reuse
from benchbook.experiment import run_wrk_experiment
from benchbook.layout import REPO_ROOT

LOAD = dict(connections=2, threads=1, duration="1s", warmup="0s", repetitions=1)


@pytest.mark.slow
def test_a_stored_run_stands_in_only_for_the_same_parameters(runs_dir, monkeypatch) -> None:
    first = run_wrk_experiment("reuse_test", ["go-hello"], **LOAD)
    monkeypatch.setenv("BENCHBOOK_REUSE_RUNS", "1")
    again = run_wrk_experiment("reuse_test", ["go-hello"], **LOAD)
    assert again.run_id == first.run_id
    other = run_wrk_experiment("reuse_test", ["go-hello"], **(LOAD | {"connections": 3}))
    assert other.run_id != first.run_id
    monkeypatch.delenv("BENCHBOOK_REUSE_RUNS")
    assert run_wrk_experiment("reuse_test", ["go-hello"], **LOAD).run_id != first.run_id
    assert descendants() == []


def test_measuring_code_is_part_of_the_fingerprint(tmp_path, monkeypatch) -> None:
    measured = tmp_path / "measured.py"
    measured.write_text("A = 1\n")
    listing = tmp_path / "measuring-code.txt"
    listing.write_text(f"# comment\n{measured.name}\n")
    monkeypatch.setattr(reuse, "MEASURING_CODE", listing)
    monkeypatch.setattr(reuse, "REPO_ROOT", tmp_path)
    before = reuse.fingerprint("x", {"connections": 2})
    assert reuse.fingerprint("x", {"connections": 2}) == before
    measured.write_text("A = 2\n")
    assert reuse.fingerprint("x", {"connections": 2}) != before


# Modules the experiment runner imports that do not shape a row: paths, number
# formatting, the run-reuse lookup, the machine description, and the statistics the
# calibration summary reads.
RUNNER_HELPERS = {"layout", "formatting", "reuse", "provenance", "stats", "tables"}


def benchbook_imports(module: str, seen: set[str]) -> set[str]:
    """Every benchbook module ``module`` imports, directly or not (by reading its source)."""
    name = module.removeprefix("benchbook.").replace(".", "/")
    source = REPO_ROOT / "src" / "benchbook" / f"{name}.py"
    if not source.exists():
        source = REPO_ROOT / "src" / "benchbook" / name / "__init__.py"
    if module in seen or not source.exists():
        return seen
    seen.add(module)
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchbook"):
            if node.module == "benchbook":
                for alias in node.names:
                    benchbook_imports(f"benchbook.{alias.name}", seen)
            else:
                benchbook_imports(node.module, seen)
    return seen


def test_the_repository_lists_its_measuring_code() -> None:
    names = {path.name for path in reuse.measuring_files()}
    assert {"experiment.py", "servers.toml", "wrk.py", "wrk_report.lua"} <= names
    assert "conclude.py" not in names and "report.py" not in names
    # Whatever the runner uses to make a row is listed, or a stored run measured before
    # a change to it would be reused after it.
    listed = {path.relative_to(REPO_ROOT) for path in reuse.measuring_files()}
    for module in benchbook_imports("benchbook.experiment", set()):
        name = module.removeprefix("benchbook.")
        if name.split(".")[0] in RUNNER_HELPERS:
            continue
        path = Path("src/benchbook", *name.split("."))
        assert path.with_suffix(".py") in listed or path / "__init__.py" in listed, module


@pytest.mark.parametrize("notebook", ["05_grpc_vs_http", "06_open_loop"])
def test_make_report_builds_the_go_tools_before_a_notebook(notebook: str) -> None:
    # -W: as if the tools' go.mod had just changed; -n: print the recipes, run none
    plan = subprocess.run(
        ["make", "-n", "-W", "servers/go/tools/go.mod", f"report/executed/{notebook}.ipynb"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert plan.index("go -C servers/go/tools install tool") < plan.index("benchbook.execute")
