"""`make plan` (render.plan_table): the planner's table for the committed report's
headlines, from their stored sessions and runs, and a target refused when it is no width."""

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from benchbook.render.plan_table import COLUMNS, parse_target, table
from benchbook.runs.layout import REPO_ROOT

# Findings of a report whose class held 4 sessions (the Intel family-6 model-167 class's,
# commit 34e08e33, outputs other than the findings dropped): the committed report may be
# a class's first session, which has no spread of its own to plan from.
EXECUTED = Path(__file__).parent / "samples" / "executed_four_sessions"


def test_a_target_is_a_half_width_in_percent() -> None:
    assert parse_target("10%") == pytest.approx(0.10) and parse_target("2.5") == 0.025
    for bad in ("0%", "100%", "-5"):
        with pytest.raises(argparse.ArgumentTypeError, match="give a half-width in %"):
            parse_target(bad)


def test_every_headline_with_two_sessions_gets_a_design_or_its_floor(monkeypatch) -> None:
    monkeypatch.setenv("BENCHBOOK_RUNS_DIR", str(REPO_ROOT / "data" / "runs"))
    lines = table([EXECUTED / "01_io_concurrency.ipynb"], 0.10).splitlines()
    assert lines[0] == "| " + " | ".join(COLUMNS) + " |"
    rows = [line.split(" | ") for line in lines[2:] if line.startswith("| ")]
    assert rows, "no headline of notebook 01 was planned"
    for row in rows:
        assert len(row) == len(COLUMNS)
        for design in row[-2:]:
            assert " min" in design or "below the floor" in design, design


def test_make_plan_refuses_a_notebook_that_was_not_executed() -> None:
    done = subprocess.run([sys.executable, "-m", "benchbook.render.plan_table", "nope.ipynb"],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and "no executed notebook nope.ipynb" in done.stderr
