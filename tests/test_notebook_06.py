"""Notebook 06 (open-loop latency) executed for real with the smoke profile."""

import re

import pytest
from conftest import descendants, smoke_run


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    return smoke_run("06_open_loop", tmp_path_factory.mktemp("executed"))


@pytest.mark.slow
def test_the_freeze_server_is_measured_both_ways_and_what_wrk_missed_is_said(executed) -> None:
    text, found = executed
    assert descendants() == []
    for source in ("open loop (vegeta)", "wrk as reported (corrected)",
                   "wrk as timed (uncorrected)", "pause model"):  # fmt: skip
        assert source in text, source
    assert "**wrk's p90 as timed (uncorrected) missed" in text and "ms of stall" in text
    assert "of wrk's requests met a pause" in found["answer"]
    freeze = found["headlines"][0]
    assert freeze["label"] == (
        "Freeze server, p90 latency: what wrk timed (before its correction) vs the open loop"
    )
    assert "**wrk (as timed)** from **vegeta** in p90 latency" in freeze["verdict"]  # 2+2 runs
    assert freeze["ratio"] < 0.1  # what wrk timed at p90: the fast path, not the stall
    # Both tools in one run, so the run-to-run spread has this run's comparison.
    (current,) = [run for run in freeze["spread"] if run["current"]]
    assert current["ratio"] == pytest.approx(freeze["ratio"])
    assert freeze["article_ratio"] is None and freeze["n"] == "2+2"


@pytest.mark.slow
def test_capacities_at_the_slo_are_compared_go_vs_python_for_both_seeds(executed) -> None:
    text, found = executed
    assert found["experiment"] == "06_open_loop" and found["source"] is None
    _, iodelay, hello = found["headlines"]
    assert iodelay["label"].startswith(
        "go-iodelay vs python-iodelay uvloop+httptools: requests per second within the SLO"
    )
    assert hello["label"].startswith("go-hello vs python-hello: requests per second within")
    for headline in (iodelay, hello):
        # Two rounds are too few to pair: two samples of two runs.
        assert headline["n"] == "2+2" and headline["reproduced"] == "no article figure"
    # The comparison in words, each side's capacity, and the hockey-stick table.
    assert len(re.findall(r"within (its|the) SLO|capacity at their SLO", found["answer"])) == 2
    assert "(SLO: p99 ≤" in text and "capacity req/s" in text and "met SLO" in text
    # Validity over every run: the smoke profile's runs last 1 s, so each run of each
    # target, in all three experiments, is flagged short_run, and the note counts them all.
    (runs,) = re.findall(r"^- `short_run` — .*? Runs: (.*)\.$", text, re.MULTILINE)
    counted = re.findall(r"(.+?) \((\d+)/(\d+)\)(?:, |$)", runs)
    assert {target for target, _, _ in counted} == {
        "open loop (vegeta)", "wrk as reported (corrected)", "go-iodelay",
        "python-iodelay uvloop+httptools", "go-hello", "python-hello",
    }  # fmt: skip
    assert all(flagged == total for _, flagged, total in counted), counted
