"""Repetitions as rounds: servers started afresh for each round, targets in a random
order that the manifest records, an A/A control, and what a request costs the server."""

import json

import pytest
from conftest import descendants

from benchbook import measure


def wrk() -> list:
    return measure.tool("wrk", connections=4, threads=1, duration="1s")


@pytest.mark.slow
def test_each_round_starts_the_servers_afresh_and_records_its_order(runs_dir, monkeypatch) -> None:
    monkeypatch.setenv("BENCHBOOK_SPEED_REFERENCE", "1")
    run = measure.run(measure.Experiment(
        "rounds_test", ["go-hello", "go-iodelay"], wrk(), warmup="0s", repetitions=2,
        control="go-hello",
    ))  # fmt: skip
    manifest = run.manifest()
    assert run.description().restart is True
    speed = manifest["machine_speed"]  # the reference workloads, before and after
    assert speed["before"]["go_s"] > 0 and speed["after"]["python_s"] > 0
    assert speed["go_time_change"] == pytest.approx(
        speed["after"]["go_s"] / speed["before"]["go_s"] - 1
    )
    orders = manifest["round_orders"]
    labels = {"go-hello", "go-hello (A/A copy)", "go-iodelay"}
    assert len(orders) == 2
    assert all({entry.split(" | ")[0] for entry in order} == labels for order in orders)
    # One server folder per round: each round's processes were new ones.
    rounds = sorted(p.name for p in (run.path / "servers").iterdir())
    assert rounds == ["round01", "round02"]
    results = run.results()
    assert sorted(results["target"].unique()) == sorted(labels)
    assert results.groupby("target")["repetition"].apply(sorted).map(list).tolist() == [[1, 2]] * 3
    cost = results["server_cpu_ms_per_request"]
    assert (cost > 0).all()
    # CPU time per request and req/s agree: a server at c % of a core serving r req/s
    # spends c / 100 / r seconds on each request.
    expected = results["server_cpu_pct"] / 100 / results["rps"] * 1000
    assert cost.to_numpy() == pytest.approx(expected.to_numpy(), rel=0.15)
    assert descendants() == []


@pytest.mark.slow
def test_without_restart_one_process_serves_every_round(runs_dir) -> None:
    experiment = measure.Experiment("rounds_test", ["go-hello"], wrk(), warmup="0s",
                                    repetitions=2, restart=False)  # fmt: skip
    run = measure.run(experiment)
    servers = json.loads((run.path / "manifest.json").read_text())["servers"]
    assert list(servers) == ["go-hello"]
    assert not (run.path / "servers" / "round01").exists()
    assert run.manifest()["machine_speed"] is None  # off in the tests (conftest)
    assert descendants() == []


def test_a_control_that_is_not_a_target_is_refused_with_the_choices(runs_dir) -> None:
    with pytest.raises(ValueError, match="control: 'go-helo' is not a target; valid choices: go"):
        measure.run(measure.Experiment("rounds_test", ["go-hello"], wrk(), control="go-helo"))
    assert not runs_dir.exists()
