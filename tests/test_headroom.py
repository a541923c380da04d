"""A real row's load-tool headroom: its req/s over the ceiling a calibration run of this
machine measured for its tool setting, and ``near_tool_ceiling`` when it comes within
90 % of a ceiling that was the tool's own.

A calibration run is written into the test's runs folder in the shape notebook 00 leaves
it (manifest with this machine's provenance, results.csv), read back by the real reader
(calibration.latest_ceilings), and a real 1 s wrk run against go-hello is measured by
measured_run.measure_run, the lowest function that computes a row's headroom and flags
(the experiment front door, orchestration.run, only loops over it). The ceilings are set
far above or far below anything wrk -c2 reaches on loopback, so the outcome does not
depend on this machine's speed; the 90 % threshold itself is tested on constructed rows
in tests/test_checks.py.
"""

import json
from contextlib import ExitStack
from pathlib import Path

import pandas as pd
import pytest
from conftest import descendants

from benchbook.measure import provenance
from benchbook.measure.calibration import latest_ceilings
from benchbook.measure.experiment_plan import Config, ExperimentPlan
from benchbook.measure.instances import start_instance
from benchbook.measure.measured_run import measure_run
from benchbook.measure.pinning import Pinning
from benchbook.measure.registry import Registry, Target
from benchbook.measure.run_store import Run
from benchbook.measure.servers import build_server
from benchbook.measure.tools.wrk import ClosedLoopLoad, Wrk
from benchbook.runs.calibration import CALIBRATION_EXPERIMENT
from benchbook.runs.experiment import Experiment, Load
from benchbook.runs.flags import NEAR_CEILING_HEADROOM

WRK = Wrk(ClosedLoopLoad.from_params(2, 1, "1s", "1s"))
FAR_BELOW = 100.0  # req/s: wrk -c2 against go-hello sends far more, even on a slow machine
FAR_ABOVE = 10_000_000.0  # req/s: far more than any loopback run of wrk -c2 reaches


def write_calibration(runs: Path, ceiling_rps: float, tool_bound: bool, machine: dict) -> str:
    """A finished calibration run of wrk (3 runs of 10 s against go-hello, their median
    ``ceiling_rps``): flagged client_bound when wrk, not the server, was the limit."""
    run_id = f"20261123T120000Z-{CALIBRATION_EXPERIMENT}-abcd"
    path = runs / run_id
    path.mkdir(parents=True)
    manifest = {
        "run_id": run_id,
        "experiment": CALIBRATION_EXPERIMENT,
        "params": {
            "targets": ["go-hello"],
            "tools": [WRK.setting],
            "loads": [{"connections": 50, "threads": 1, "duration_s": 10.0, "timeout_s": 2.0}],
            "repetitions": 3,
            "runs_planned": 3,
        },
        "provenance": {"machine": machine},
        "completed_utc": "2026-11-23T12:01:00+00:00",
    }
    (path / "manifest.json").write_text(json.dumps(manifest))
    flags = "client_bound" if tool_bound else ""
    pd.DataFrame(
        {
            "run_id": [run_id] * 3,
            "experiment": [CALIBRATION_EXPERIMENT] * 3,
            "repetition": [1, 2, 3],
            "target": ["go-hello"] * 3,
            "tool": [WRK.name] * 3,
            "tool_setting": [WRK.setting] * 3,
            "rps": [ceiling_rps * 0.98, ceiling_rps, ceiling_rps * 1.03],
            "flags": [flags] * 3,
        }
    ).to_csv(path / "results.csv", index=False)
    return run_id


def measured_row(runs_dir: Path, tmp_path: Path) -> dict[str, object]:
    """One real repetition of wrk against go-hello, as an experiment measures it, with the
    ceilings of the newest usable calibration in the runs folder."""
    registry = Registry.load()
    spec = registry.get("go-hello")
    build_server(spec)
    target = Target("go-hello")
    config = Config(target, WRK)
    described = Experiment("headroom_test", ["go-hello"], Load("wrk"), repetitions=1)
    plan = ExperimentPlan(described, registry, (config,), {}, warmup_s=0,
                          pinning=Pinning(None, None), ceilings=latest_ceilings())  # fmt: skip
    run = Run.create(plan.experiment, plan.worked_out())
    with ExitStack() as stack:
        instance = start_instance(
            stack, registry, spec, target, spec.resolve_params({}), tmp_path / "logs", None
        )
        row = measure_run(run, plan, instance, config, 1)
    assert descendants() == []
    assert row["tool_setting"] == WRK.setting and float(row["rps"]) > FAR_BELOW
    return row


@pytest.mark.slow
@pytest.mark.parametrize(("ceiling", "near"), [(FAR_BELOW, True), (FAR_ABOVE, False)])
def test_headroom_is_req_s_over_the_tools_own_ceiling(runs_dir, tmp_path, ceiling, near) -> None:
    write_calibration(runs_dir, ceiling, True, provenance.machine())
    row = measured_row(runs_dir, tmp_path)
    assert isinstance(row["headroom"], float)
    assert row["headroom"] == round(float(row["rps"]) / ceiling, 3)
    assert (row["headroom"] >= NEAR_CEILING_HEADROOM) is near
    flags = row["flags"].split(";")
    assert ("near_tool_ceiling" in flags) is near
    assert "short_run" in flags  # 1 s: the other flags still apply


@pytest.mark.slow
def test_a_ceiling_the_server_set_gives_no_headroom(runs_dir, tmp_path) -> None:
    # wrk's calibration runs were not client_bound: go-hello, not wrk, was the limit, so
    # the ceiling is only a lower bound of wrk's, and a share of it says nothing.
    write_calibration(runs_dir, FAR_BELOW, False, provenance.machine())
    row = measured_row(runs_dir, tmp_path)
    assert row["headroom"] is None and "near_tool_ceiling" not in row["flags"]


@pytest.mark.slow
def test_a_calibration_from_another_machine_gives_no_headroom(runs_dir, tmp_path) -> None:
    elsewhere = provenance.machine() | {"hostname": "another-host"}
    run_id = write_calibration(runs_dir, FAR_BELOW, True, elsewhere)
    assert latest_ceilings().skipped == (f"{run_id}: measured on another machine",)
    row = measured_row(runs_dir, tmp_path)
    assert row["headroom"] is None and "near_tool_ceiling" not in row["flags"]
