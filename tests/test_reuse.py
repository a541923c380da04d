"""Re-rendering reuses a stored run only when nothing its experiment touches changed: each
experiment's key holds its parameters, the machine and the code its plan goes through
(benchbook.measure.reuse), so an edit re-measures only the experiments that use it."""

import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure import orchestration, reuse
from benchbook.measure.experiment_plan import ExperimentPlan
from benchbook.measure.planning import plan_experiment
from benchbook.measure.registry import Registry
from benchbook.measure.run_store import Run
from benchbook.measure.tools.base import LoadToolError
from benchbook.runs.calibration import Ceilings
from benchbook.runs.experiment import Experiment
from benchbook.runs.layout import REPO_ROOT

# What a key reads, copied for a test to edit: the repository's files are never edited.
KEYED = ("src/benchbook/measure", "src/benchbook/runs", "servers", "requirements.txt")
LOADS = {
    "wrk": {"connections": 1, "duration": "1s"},
    "locust": {"users": 1, "spawn_rate": 1, "wait": "0-0ms", "duration": "1s"},
}
ARGUMENTS = dict(
    variants=None, paths=None, requests=None, mix=None, warmup="0s", repetitions=1,
    server_params=None, records=1, pin_cpus=True, verify=True, restart=True, control=None,
    hosts=measure.hosts(),
)  # fmt: skip


def reuse_run(connections: int = 2) -> Run:
    wrk = measure.tool("wrk", connections=connections, threads=1, duration="1s")
    return measure.run(
        measure.Experiment("reuse_test", ["go-hello"], wrk, warmup="0s", repetitions=1)
    )


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


def plan(servers: list[str], tool: str = "wrk", **changes: object) -> ExperimentPlan:
    loads = measure.tool(tool, **LOADS[tool])
    registry = cast(Registry | None, changes.pop("registry", None))  # a copied tree's
    return plan_experiment(Experiment("key_test", servers, loads, **ARGUMENTS | changes), registry)


Plans = Callable[[Registry], dict[str, ExperimentPlan]]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of what keys read (not a git checkout: every file there counts)."""
    for name in KEYED:
        source, copy = REPO_ROOT / name, tmp_path / name
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, copy)
    return tmp_path


def keys(tree: Path, plans: Plans) -> dict[str, str]:
    """The key of each plan, planned with the copy's registry, of the code in the copy."""
    registry = Registry.load(tree / "servers" / "servers.toml")
    return {name: reuse.fingerprint(p, tree) for name, p in plans(registry).items()}


def changed_by(tree: Path, plans: Plans, path: str, *edit: str) -> set[str]:
    """The plans whose key an edit of ``path`` in ``tree`` changes: ``edit`` is text to
    append, or the text to replace and its replacement."""
    before = keys(tree, plans)
    file = tree / path
    text = file.read_text()
    if len(edit) == 1:
        file.write_text(text + edit[0])
    else:
        assert edit[0] in text
        file.write_text(text.replace(*edit, 1))
    after = keys(tree, plans)
    return {name for name in before if after[name] != before[name]}


def go_and_python(registry: Registry) -> dict[str, ExperimentPlan]:
    return {
        "go": plan(["go-hello"], registry=registry),
        "python": plan(["python-hello"], registry=registry),
    }


def two_tools(registry: Registry) -> dict[str, ExperimentPlan]:
    return {
        "wrk": plan(["go-hello"], registry=registry),
        "locust": plan(["python-hello"], "locust", registry=registry),
    }


def test_editing_a_server_remeasures_the_experiments_that_run_it(tree) -> None:
    plans = go_and_python
    assert changed_by(tree, plans, "servers/python/hello.py", "X = 1\n") == {"python"}
    assert changed_by(tree, plans, "servers/go/cmd/hello/main.go", "var _ = 1\n") == {"go"}


def test_a_go_server_is_the_packages_its_build_compiles(tree) -> None:
    def go(registry: Registry) -> dict[str, ExperimentPlan]:
        return {name: plan([name], registry=registry) for name in ("go-hello", "go-fanout")}

    cmd = "servers/go/cmd"
    assert changed_by(tree, go, f"{cmd}/fanout/main.go", "var _ = 1\n") == {"go-fanout"}
    assert changed_by(tree, go, f"{cmd}/hello/main_test.go", "var _ = 1\n") == set()
    shared = "servers/go/internal/profiling/profiling.go"  # both import it
    assert changed_by(tree, go, shared, "var _ = 1\n") == {"go-hello", "go-fanout"}
    assert changed_by(tree, go, "servers/go/go.sum", "x v1 h1:x\n") == {"go-hello", "go-fanout"}
    # A package neither imports, and the load tools' pins (a Go module of their own).
    assert changed_by(tree, go, "servers/go/governance/engine.go", "var _ = 1\n") == set()
    assert changed_by(tree, go, "servers/go/tools/go.mod", "require x v1\n") == set()


def test_a_registry_entry_counts_for_its_server_and_a_service_for_who_needs_it(tree) -> None:
    toml = "servers/servers.toml"
    assert changed_by(tree, go_and_python, toml, 'body = "Go-Server"', 'body = "Go"') == {"go"}
    edit = ('description = "FastAPI under one uvicorn', 'description = "FastAPI in one uvicorn')
    assert changed_by(tree, go_and_python, toml, *edit) == {"python"}

    def storages(registry: Registry) -> dict[str, ExperimentPlan]:
        return {
            storage: plan(
                ["go-shortener"], variants={"go-shortener": [storage]}, registry=registry
            )  # fmt: skip
            for storage in ("bolt", "redis")
        }

    edit = ('appendonly = "no", appendfsync = "everysec"', 'appendonly = "no", appendfsync = "no"')
    assert changed_by(tree, storages, toml, *edit) == {"redis"}


def test_editing_a_tool_remeasures_only_the_experiments_that_use_it(tree) -> None:
    tools = "src/benchbook/measure/tools"
    assert changed_by(tree, two_tools, f"{tools}/locust.py", "X = 1\n") == {"locust"}
    assert changed_by(tree, two_tools, f"{tools}/_locustfile.py", "X = 1\n") == {"locust"}
    assert changed_by(tree, two_tools, f"{tools}/wrk_report.lua", "-- x\n") == {"wrk"}
    assert changed_by(tree, two_tools, "src/benchbook/runs/wrk_output.py", "X = 1\n") == {"wrk"}
    pin = ("locust==2.47.0", "locust==2.48.0")
    assert changed_by(tree, two_tools, "requirements.txt", *pin) == {"locust"}
    assert changed_by(tree, two_tools, f"{tools}/vegeta.py", "X = 1\n") == set()


def test_the_harness_core_counts_for_every_experiment(tree) -> None:
    for path in ("src/benchbook/measure/rounds.py", "src/benchbook/runs/columns.py"):
        assert changed_by(tree, two_tools, path, "X = 1\n") == {"wrk", "locust"}, path


def test_a_comment_or_a_docstring_changes_no_key(tree) -> None:
    for path, *edit in [
        ("src/benchbook/measure/rounds.py", "# a comment\n"),
        ("src/benchbook/measure/tools/locust.py", "# a comment\n"),
        ("servers/python/hello.py", "# a comment\n"),
        ("servers/go/cmd/hello/main.go", "// a comment\n"),
        ("servers/servers.toml", "# a comment\n"),
        ("src/benchbook/measure/rounds.py", "Repetitions as rounds", "Repetitions in rounds"),
        ("servers/python/hello.py", "Seed 002's Python server", "Seed 002's server"),
    ]:
        assert changed_by(tree, two_tools, path, *edit) == set(), path


def test_profilers_count_only_for_a_profiled_experiment_of_their_language(tree) -> None:
    def profiled(registry: Registry) -> dict[str, ExperimentPlan]:
        return {
            "go": plan(["go-hello"], registry=registry),
            "go profiled": plan(["go-hello"], registry=registry, profiled=True),
            "python profiled": plan(["python-hello"], registry=registry, profiled=True),
        }

    profilers = "src/benchbook/measure/profilers"
    assert changed_by(tree, profiled, f"{profilers}/go.py", "X = 1\n") == {"go profiled"}
    both = {"go profiled", "python profiled"}
    assert changed_by(tree, profiled, "src/benchbook/measure/profiling.py", "X = 1\n") == both


def test_a_new_calibration_changes_no_key_and_is_recorded_beside_it() -> None:
    measured = plan(["go-hello"])
    old = replace(measured, ceilings=Ceilings("20261127T032422Z-00_load_generators-07bb"))
    new = replace(measured, ceilings=Ceilings("20261128T000000Z-00_load_generators-0001"))
    assert reuse.fingerprint(old) == reuse.fingerprint(new) == reuse.fingerprint(measured)
    assert old.worked_out().calibration != new.worked_out().calibration


def test_the_harness_is_measure_and_runs_without_tools_and_profilers() -> None:
    files = reuse.TrackedFiles(REPO_ROOT)
    harness = {p.as_posix() for p in reuse.harness_files(files)}
    measure_, runs = "src/benchbook/measure", "src/benchbook/runs"
    assert {f"{measure_}/orchestration.py", f"{measure_}/tools/base.py",
            f"{runs}/store.py", f"{runs}/runlock.py"} <= harness  # fmt: skip
    assert not any("profil" in f or "wrk" in f or "locust" in f for f in harness)
    wrk = {p.as_posix() for p in reuse._tool_files(files, "wrk")}
    assert wrk == {f"{measure_}/tools/wrk.py", f"{measure_}/tools/wrk_plan.lua",
                   f"{measure_}/tools/wrk_report.lua", f"{runs}/wrk_output.py"}  # fmt: skip
    locust = {p.name for p in reuse._tool_files(files, "locust")}
    assert locust == {"locust.py", "_locustfile.py", "locust_output.py"}  # both readers


def test_every_declared_profiler_has_its_module_in_the_key(registry) -> None:
    declared = {spec.declared.profiler for spec in registry.languages.values()} - {""}
    modules = {reuse.profiler_module(name) for name in declared}
    assert all((REPO_ROOT / m).is_file() and reuse.PROFILERS in m.parents for m in modules)
    assert len(modules) == len(declared)  # one module per profiler
    rust = plan(["rust-hello"], registry=registry, profiled=True)
    assert reuse.touched(rust).profiled == ("perf",)


@pytest.fixture
def only_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH with python alone on it: no wrk, go, cargo (nor git: the key then reads
    every file of its folders, as outside a checkout)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "python").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(folder))


def test_a_stored_run_comes_back_with_no_tool_build_or_calibration(
    runs_dir, only_python, monkeypatch
) -> None:
    """Re-analysis through runs alone: wrk, go and cargo are off PATH, the calibration
    cannot be read, and measure.run still returns the stored run."""
    monkeypatch.setenv("BENCHBOOK_REUSE_RUNS", "1")

    def no_calibration() -> Ceilings:
        raise AssertionError("a stored run stands in: no calibration is read")

    monkeypatch.setattr(orchestration, "latest_ceilings", no_calibration)
    wrk = measure.tool("wrk", connections=1, duration="1s")
    planned = plan_experiment(Experiment("reuse_offline", ["go-hello"], wrk, **ARGUMENTS))
    stored = Run.create(planned.experiment, planned.worked_out(),
                        fingerprint=reuse.fingerprint(planned))  # fmt: skip
    stored.update_manifest(completed_utc=datetime.now(UTC).isoformat(timespec="seconds"))
    assert all(shutil.which(tool) is None for tool in ("wrk", "go", "cargo"))

    again = measure.run(
        measure.Experiment("reuse_offline", ["go-hello"], wrk, warmup="0s", repetitions=1)
    )
    assert again.run_id == stored.run_id and again.experiment_plan.ceilings is None
    assert descendants() == []


def test_without_a_stored_run_a_missing_tool_stops_the_experiment_first(
    runs_dir, only_python
) -> None:
    wrk = measure.tool("wrk", connections=1, duration="1s")  # made without looking for wrk
    with pytest.raises(LoadToolError, match="wrk is not installed"):
        measure.run(
            measure.Experiment("missing_tool", ["go-hello"], wrk, warmup="0s", repetitions=1)
        )
    assert not runs_dir.exists() or not any(runs_dir.iterdir())  # no run was created
    assert descendants() == []


def test_measure_and_store_import_nothing_they_must_not() -> None:
    # What makes the folder boundary safe for reuse: lint-imports checks the contracts
    # in pyproject.toml, and fails the build when measure reaches above itself.
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports"))],
        cwd=REPO_ROOT, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "measure imports nothing above it KEPT" in done.stdout
    assert "store imports nothing of measure KEPT" in done.stdout


@pytest.mark.parametrize("notebook", ["05_grpc_vs_http", "06_open_loop"])
def test_make_report_builds_the_go_tools_before_a_notebook(notebook: str) -> None:
    # -W: as if the tools' go.mod had just changed; -n: print the recipes, run none
    plan_ = subprocess.run(
        ["make", "-n", "-W", "servers/go/tools/go.mod", f"report/executed/{notebook}.ipynb"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert plan_.index("go -C servers/go/tools install tool") < plan_.index(
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
def test_a_comment_keeps_what_a_file_does_and_code_changes_it(
    tmp_path, name: str, source: str, edit: tuple[str, str], remeasures: bool
) -> None:
    measured = tmp_path / name
    measured.write_text(source)
    before = reuse.what_it_does(measured)
    assert edit[0] in source
    measured.write_text(source.replace(*edit))
    assert (reuse.what_it_does(measured) != before) is remeasures
