"""Every script in benchmarks/ still runs against today's package (each was once left
behind by a redesign and crashed at its first call): a small run of each, real servers
and wrk for the harness's, a few stored sessions for the store's. Their figures are the
benchmarks' business (make bench-harness, make bench-store), not a test's."""

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchbook.runs.layout import REPO_ROOT

BENCHMARKS = REPO_ROOT / "benchmarks"


def run_script(name: str, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, str(BENCHMARKS / name), *args], env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_every_benchmark_script_has_a_smoke_test() -> None:
    scripts = {p.name for p in BENCHMARKS.glob("*.py")}
    expected = {"course_minutes.py", "edit_remeasures.py", "first_sittings.py",
                "harness_overhead.py", "planner_check.py", "sentence_modules.py",
                "store_scale.py", "time_budget.py"}  # fmt: skip
    assert scripts == expected, "add the new one below"


@pytest.mark.slow
def test_harness_overhead_measures_pairs_by_hand_and_through_the_harness() -> None:
    out = run_script("harness_overhead.py", "--pairs", "2", "--duration", "1s")
    pairs = re.findall(r"pair \d: by hand ([\d,]+) req/s, harness ([\d,]+) req/s", out)
    assert len(pairs) == 2
    assert all(float(a.replace(",", "")) > 0 and float(b.replace(",", "")) > 0 for a, b in pairs)
    assert re.search(r"median ratio harness/by hand: \d+\.\d{3} over 2 pairs", out)


@pytest.mark.slow
def test_store_scale_times_folders_and_store() -> None:
    # it only reads the stored runs (copies go to a temporary folder): the committed ones,
    # not the tests' empty runs folder
    committed = os.environ | {"BENCHBOOK_RUNS_DIR": str(REPO_ROOT / "data" / "runs")}
    out = run_script("store_scale.py", "--first", "3", "--target", "5", env=committed)
    rows = [line.split() for line in out.splitlines()[1:]]
    assert [int(row[0]) for row in rows] == [3, 5]
    assert all(float(value) >= 0 for row in rows for value in row[1:])


def test_course_minutes_refuses_a_notebook_no_lesson_runs_and_times_each_exercise_cell() -> None:
    # The whole run takes the course's hour (make course-minutes); here its refusal of a
    # wrong name, before anything runs, and its reading of papermill's times on the
    # committed report's notebook 05, whose exercise cells ran (measuring nothing).
    done = subprocess.run([sys.executable, str(BENCHMARKS / "course_minutes.py"), "--only",
                           "05_grpc"], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and "--only 05_grpc: no lesson's notebook; choose from" in (
        done.stderr
    )
    script_path = BENCHMARKS / "course_minutes.py"
    spec = importlib.util.spec_from_file_location("course_minutes", script_path)
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    timed = script.timed(REPO_ROOT / "report" / "executed" / "05_grpc_vs_http.ipynb")
    assert set(timed["exercises"]) == {"05.delayed_ack", "05.core_bound"}
    assert timed["seconds"] > sum(timed["exercises"].values()) >= 0


def test_edit_remeasures_prints_the_readmes_table() -> None:
    # The README's "What an edit re-measures" is this script's output on the committed runs.
    committed = os.environ | {"BENCHBOOK_RUNS_DIR": str(REPO_ROOT / "data" / "runs")}
    table = run_script("edit_remeasures.py", env=committed).strip()
    assert table.startswith("| Edit | Notebooks measured again | Experiments | Their measuring")
    assert table in (REPO_ROOT / "README.md").read_text(), (
        "run `python benchmarks/edit_remeasures.py` and put its table in the README"
    )


def test_time_budget_splits_each_committed_notebook_into_its_parts() -> None:
    # The committed report's notebooks were executed on stored runs: the parts still add up.
    executed = sorted((REPO_ROOT / "report" / "executed").glob("*.ipynb"))
    committed = os.environ | {"BENCHBOOK_RUNS_DIR": str(REPO_ROOT / "data" / "runs")}
    out = run_script("time_budget.py", *map(str, executed), env=committed)
    rows = [line.split(" | ") for line in out.splitlines()[2:]]
    assert [row[0].strip("| ") for row in rows] == [p.stem for p in executed] + ["all"]

    def seconds(text: str) -> int:
        minutes, secs = text.strip("| ").split(":")
        return 60 * int(minutes) + int(secs)

    for row in rows:
        total, parts = seconds(row[1]), [seconds(cell) for cell in row[2:]]
        assert abs(sum(parts) - total) <= len(parts)  # each part rounded to a second


def test_planner_check_predicts_a_design_unchanged_as_its_own_expected_widths() -> None:
    # Before and after the same report: the planner's prediction for the same rounds and
    # sessions is its own expected width, and the printed widths are the same twice.
    # A report whose class held 4 sessions (test_plan_table's sample): a class's first
    # session has nothing to plan from.
    executed = str(Path(__file__).parent / "samples" / "executed_four_sessions")
    committed = os.environ | {"BENCHBOOK_RUNS_DIR": str(REPO_ROOT / "data" / "runs")}
    out = run_script("planner_check.py", "--before", executed, "--after", executed, env=committed)
    rows = [line.split(" | ") for line in out.splitlines()[2:]]
    assert len(rows) >= 10
    for row in rows:
        design = row[1].split(" → ")
        assert design[0] == design[1]
        for cell in row[2:]:
            before, _, after = cell.strip(" |").replace(" → ", " / ").split(" / ")
            assert before == after


def test_first_sittings_judges_each_session_within_its_class_and_its_machine(
    tmp_path: Path,
) -> None:
    # One small experiment's sessions on the one machine with ten of them (family 26, boot
    # 869bfe…): each is judged against its class's others and its machine's others.
    runs = tmp_path / "runs"
    for manifest in sorted(
        (REPO_ROOT / "data" / "runs").glob("*-04_url_shortener_locust-*/manifest.json")
    ):
        machine = json.loads(manifest.read_text())["provenance"]["machine"]
        if str(machine.get("boot_id", "")).startswith("869bfe"):
            shutil.copytree(manifest.parent, runs / manifest.parent.name)
    out = run_script("first_sittings.py", env=os.environ | {"BENCHBOOK_RUNS_DIR": str(runs)})
    assert out.index("Within each class:") < out.index("Within each machine:")
    counted = [int(n) for n in re.findall(r"\| later sittings \| (\d+) \| 1 \|", out)]
    assert len(counted) == 2 and counted[0] == counted[1] > 0, out


def test_sentence_modules_counts_the_modules_that_word_a_value() -> None:
    out = run_script("sentence_modules.py")
    counted = dict(line.split()[::-1] for line in out.splitlines()[:-1])
    assert "words/verdicts.py" in counted and "claims/bounds.py" not in counted
    assert re.fullmatch(r"\d+ of \d+ modules compose sentences", out.splitlines()[-1])
