"""The experiment plan: built once from measure.run's arguments, before anything starts,
and the one description of an experiment the measuring code passes on."""

import dataclasses

import pytest

from benchbook import measure
from benchbook.measure import profiling
from benchbook.measure.planning import plan_experiment
from benchbook.measure.run_store import Run

ARGUMENTS = dict(
    variants={"python-iodelay": ["asyncio+h11"]},
    paths=None,
    requests=None,
    mix=None,
    warmup="1s",
    repetitions=3,
    server_params={"delay_ms": 1},
    records=1,
    pin_cpus=True,
    verify=True,
    restart=True,
    control="go-iodelay",
    hosts=measure.hosts(),
    registry=None,
)


def plan(**changes):
    return plan_experiment(
        "plan_test",
        ["go-iodelay", "python-iodelay"],
        measure.tool("wrk", connections=[10, 100], duration="1s"),
        **ARGUMENTS | changes,
    )


def test_the_plan_holds_every_configuration_and_what_each_target_sends() -> None:
    built = plan()
    labels = [t.label for t in built.targets]
    assert labels == ["go-iodelay", "go-iodelay (A/A copy)", "python-iodelay asyncio+h11"]
    assert len(built.configs) == 3 * 2  # three targets, two loads each
    assert set(built.sends) == set(built.targets)
    assert all(len(sends) == 1 for sends in built.sends.values())
    params = built.parameters()
    assert params["runs_planned"] == 3 * 6
    assert params["targets"] == labels
    assert params["server_params"]["python-iodelay"]["delay_ms"] == 1
    assert params["restart"] is True and "hosts" not in params  # loopback: as always


def test_the_plan_cannot_be_changed_once_built() -> None:
    built = plan()
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.repetitions = 10  # type: ignore[misc]


def test_the_same_arguments_give_the_same_parameters_and_others_differ() -> None:
    assert plan().parameters() == plan().parameters()
    assert plan(repetitions=4).parameters() != plan().parameters()


def test_a_phase_after_the_rounds_needs_the_plan_the_run_was_measured_with(
    runs_dir, monkeypatch
) -> None:
    monkeypatch.setenv(profiling.SWITCH, "1")
    stored = Run.create("plan_test", params={})  # a run folder, but no plan in this session
    with pytest.raises(ValueError, match=r"not measured with measure\.run in this session"):
        profiling.profile(stored)
