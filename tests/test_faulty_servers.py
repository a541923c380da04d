"""Servers that pass verification and then misbehave under load, measured for real."""

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.analyse.display.tables import comparison_table, summary_table
from benchbook.analyse.words import conclusions
from benchbook.measure.registry import Registry


@pytest.fixture(scope="module")
def both(registry: Registry, test_registry: Registry) -> Registry:
    """The real registry's go-hello beside the test registry's faulty servers."""
    return registry.merged(test_registry)


@pytest.mark.slow
def test_wrong_bodies_under_load_flag_bad_response_and_are_never_ranked(both) -> None:
    run = measure.run(
        measure.Experiment(
            "bad_response_test",
            ["wrong-body-under-load", "go-hello"],
            measure.tool("wrk", connections=4, threads=1, duration="2s"),
            warmup="0s",
            repetitions=1,
        ),
        registry=both,
    )
    results = run.results().set_index("target")
    bad = results.loc["wrong-body-under-load"]
    assert "bad_response" in bad["flags"].split(";")
    assert "ERROR: cache miss" in bad["incident"] and "repetition 1" in bad["incident"]
    assert "bad_response" not in results.loc["go-hello", "flags"]
    sentence = conclusions.compare_targets(run.results(), "go-hello", "wrong-body-under-load")
    assert "cannot be ranked" in sentence and "bad_response 1/1" in sentence
    table = comparison_table(run.results(), "target", "go-hello", "wrong-body-under-load")
    verdict = table.loc["pooled", "verdict"]  # (go-hello's run may count or not: its limit)
    assert (
        verdict.startswith("not ranked: ") and "no valid runs of wrong-body-under-load" in verdict
    )
    assert summary_table(run.results()).loc["wrong-body-under-load", "runs"] == 0
    assert descendants() == []


@pytest.mark.slow
def test_a_server_that_dies_is_reported_and_the_others_still_measured(both, capsys) -> None:
    run = measure.run(
        measure.Experiment(
            "server_died_test",
            ["dies-under-load", "go-hello"],
            measure.tool("wrk", connections=4, threads=1, duration="2s"),
            warmup="0s",
            repetitions=2,
        ),
        registry=both,
    )
    results = run.results()
    died = results[results["target"] == "dies-under-load"]
    assert len(died) == 1  # its second repetition was skipped, not measured
    (incident,) = died["incident"]
    assert incident.startswith(
        "server dies-under-load exited with code 3 during repetition 1; last lines of its log"
    )
    assert "exiting with code 3 on purpose" in incident
    assert died["flags"].iloc[0].split(";")[-1] == "server_died"
    alive = results[results["target"] == "go-hello"]
    assert list(alive["repetition"]) == [1, 2] and alive["rps"].gt(0).all()
    assert "skipped, its server died" in capsys.readouterr().out
    assert any("exited with code 3" in note for note in conclusions.validity_notes(results))
    assert descendants() == []
