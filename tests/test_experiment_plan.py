"""An experiment's description and its plan: the notebook builds a frozen ``Experiment``,
``measure.run`` plans it before anything starts, the manifest stores it as written and
reads it back equal, and the plan worked out from it is stored beside it, typed."""

import dataclasses
import json

import pytest

from benchbook import measure
from benchbook.measure import profiling
from benchbook.measure.planning import plan_experiment
from benchbook.measure.run_store import Run
from benchbook.runs.experiment import Experiment, Load, RunPlan
from benchbook.runs.manifest import SCHEMA_VERSION, description_of, plan_of


def described(**changes) -> Experiment:
    return Experiment(
        **{
            "name": "plan_test",
            "servers": ["go-iodelay", "python-iodelay"],
            "loads": measure.tool("wrk", connections=[10, 100], duration="1s"),
            "variants": {"python-iodelay": ["asyncio+h11"]},
            "warmup": "1s",
            "repetitions": 3,
            "server_params": {"delay_ms": 1},
            "control": "go-iodelay",
        }
        | changes,
    )


def test_the_plan_holds_every_configuration_and_what_each_target_sends() -> None:
    built = plan_experiment(described())
    labels = [t.label for t in built.targets]
    assert labels == ["go-iodelay", "go-iodelay (A/A copy)", "python-iodelay asyncio+h11"]
    assert len(built.configs) == 3 * 2  # three targets, two loads each
    assert set(built.sends) == set(built.targets)
    assert all(len(sends) == 1 for sends in built.sends.values())
    worked_out = built.worked_out()
    assert worked_out.runs_planned == 3 * 6
    assert list(worked_out.targets) == labels
    assert worked_out.server_params["python-iodelay"]["delay_ms"] == 1
    assert worked_out.hosts is None  # loopback
    assert [load["connections"] for load in worked_out.loads] == [10, 100]


def test_the_description_cannot_be_changed_once_built() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        described().repetitions = 10  # type: ignore[misc]


def test_a_description_is_stored_as_written_and_read_back_equal() -> None:
    written = described(
        paths={"go-iodelay": ["/"]},
        mix={"get": 1.0},
        server_params={"workers": [1, 2]},
        hosts=measure.hosts(),
        profiled=True,
    )
    stored = json.loads(json.dumps(written.stored()))  # what manifest.json holds
    assert Experiment.from_stored(stored) == written
    assert stored["loads"] == [
        {"tool": "wrk", "settings": {"connections": [10, 100], "duration": "1s"}, "server": None}
    ]
    assert stored["warmup"] == "1s"  # as written, not converted
    assert stored["server_params"] == {"workers": [1, 2]}


def test_loads_given_per_server_keep_their_server() -> None:
    loads = {"go-iodelay": measure.tool("wrk", connections=10, duration="1s"),
             "python-iodelay": [measure.tool("wrk", connections=20, duration="1s")]}  # fmt: skip
    written = described(loads=loads, control=None)
    assert written.loads == (
        Load("wrk", {"connections": 10, "duration": "1s"}, "go-iodelay"),
        Load("wrk", {"connections": 20, "duration": "1s"}, "python-iodelay"),
    )
    built = plan_experiment(written)
    assert [(c.target.server, c.tool.load.connections) for c in built.configs] == [
        ("go-iodelay", 10), ("python-iodelay", 20)
    ]  # fmt: skip


def test_a_refusal_names_the_experiment_the_setting_and_the_value() -> None:
    with pytest.raises(ValueError, match=r"^plan_test: repetitions: 0 is below the minimum of 1"):
        plan_experiment(described(repetitions=0))
    with pytest.raises(ValueError, match=r"^plan_test: control: 'nope' is not a target"):
        plan_experiment(described(control="nope"))


def test_a_new_run_stores_the_description_and_the_plan(runs_dir) -> None:
    built = plan_experiment(described())
    run = Run.create(built.experiment, built.worked_out())
    stored = run.stored_manifest()
    assert stored["schema_version"] == SCHEMA_VERSION
    assert "params" not in stored
    assert description_of(run.manifest()) == built.experiment
    assert plan_of(run.manifest()) == built.worked_out()
    assert run.description() == built.experiment and isinstance(run.plan(), RunPlan)


def test_a_phase_after_the_rounds_needs_the_plan_the_run_was_measured_with(
    runs_dir, monkeypatch
) -> None:
    monkeypatch.setenv(profiling.SWITCH, "1")
    built = plan_experiment(described())
    stored = Run.create(built.experiment, built.worked_out())  # no plan in this session
    with pytest.raises(ValueError, match=r"not measured with measure\.run in this session"):
        profiling.profile(stored)
