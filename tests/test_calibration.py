"""Load-tool ceilings: which calibration run applies, and what it says about a row."""

import json
from pathlib import Path

import pandas as pd
import pytest

from benchbook.analyse.display.ceilings import (
    ceiling_table,
    ceilings_sentence,
    limits_sentence,
    server_bound_reason,
)
from benchbook.measure import provenance
from benchbook.measure.calibration import ceilings_from, latest_ceilings
from benchbook.runs.calibration import CALIBRATION_EXPERIMENT, NOT_CALIBRATED, Ceilings
from benchbook.runs.limits import judged

# Two settings, three runs each: Locust saturated its core, wrk did not (the server did).
RESULTS = judged(
    pd.DataFrame(
        {
            "target": ["go-hello"] * 6,
            "tool_setting": ["wrk"] * 3 + ["locust HttpUser x1"] * 3,
            "rps": [20_000.0, 22_000.0, 21_000.0, 700.0, 650.0, 720.0],
            "client_cpu_pct": [60.0, 62.0, 58.0, 99.0, 98.5, 99.2],
            "server_cpu_pct": [97.0, 98.0, 96.0, 8.0, 7.0, 9.0],
            "host_steal_pct": [0.0] * 6,
            "flags": ["", "", "short_run", "client_bound", "client_bound", "client_bound"],
        }
        | {
            column: [1.0] * 6
            for column in ("lat_mean_ms", "lat_p50_ms", "lat_p99_ms", "lat_max_ms", "requests")
        }
        | {
            column: [0] * 6
            for column in ("server_rss_mb", "headroom", "err_connect", "err_read", "err_write")
        }
        | {
            "err_timeout": [0] * 6,
            "non_2xx": [0] * 6,
            "server_cores": [1] * 6,
            "client_cores": [1] * 6,
        }
    )
)


def test_ceilings_are_medians_and_know_whose_limit_they_were() -> None:
    ceilings = ceilings_from(RESULTS, "run-1", "go-hello")
    assert ceilings.by_setting == {"wrk": 21_000.0, "locust HttpUser x1": 700.0}
    assert ceilings.tool_bound == {"locust HttpUser x1"}
    assert ceilings.headroom("locust HttpUser x1", 630.0) == 0.9
    assert ceilings.headroom("locust FastHttpUser x1", 630.0) is None  # not calibrated
    assert ceilings.headroom("wrk", 25_000.0) is None  # the server's limit, not wrk's


def test_wrk_held_back_by_the_server_is_a_bound_and_says_why() -> None:
    results = RESULTS.assign(tool=["wrk"] * 3 + ["locust"] * 3)
    held_back = ceilings_from(results, "run-1", "go-hello")
    assert server_bound_reason(results, "wrk", held_back) == (
        "the server, not wrk, set wrk's rate (the server used 97 % of a core, wrk 60 %), so "
        "wrk can do more"
    )
    at_its_limit = Ceilings("run-1", held_back.by_setting, "go-hello", frozenset({"wrk"}))
    assert server_bound_reason(results, "wrk", at_its_limit) == ""


def test_ceiling_table_says_which_side_set_the_limit() -> None:
    table = ceiling_table(RESULTS)
    assert table.loc["wrk", "limited by"] == "server"
    assert table.loc["locust HttpUser x1", "limited by"] == "load tool"
    assert table.loc["locust HttpUser x1", "req/s"] == 700.0
    assert limits_sentence(table) == (
        "Limited by the server (the tool's own ceiling is higher): wrk; "
        "by the load tool itself: locust HttpUser x1."
    )


def test_sentence_ranks_the_settings_or_asks_for_a_calibration() -> None:
    sentence = ceilings_sentence(ceilings_from(RESULTS, "run-1", "go-hello"))
    # wrk was held back by the server: its number is only a lower bound of wrk's ceiling,
    # and no setting is ranked against it.
    assert sentence.endswith(
        "wrk: at least 21,000 req/s (held back by the server); locust HttpUser x1: 700 req/s."
    )
    vegeta = Ceilings("run-1", {"vegeta": 7_000.0, "locust HttpUser x1": 700.0}, "go-hello",
                      frozenset({"vegeta", "locust HttpUser x1"}))  # fmt: skip
    # listed, not ranked: settings against different servers make no ratio of tools
    assert "vegeta: 7,000 req/s; locust HttpUser x1: 700 req/s." in ceilings_sentence(vegeta)
    assert "run-1" in sentence and "against Go net/http," in sentence
    assert "run `notebooks/00_load_generators.ipynb` with the quick or full profile first" in (
        ceilings_sentence(NOT_CALIBRATED)
    )


def write_run(
    runs: Path,
    run_id: str,
    machine: dict,
    with_results: bool = True,
    completed: bool = True,
    repetitions: int = 3,
    duration_s: float = 10.0,
    results: pd.DataFrame = RESULTS,
    planned: int | None = None,
) -> None:
    path = runs / run_id
    path.mkdir(parents=True)
    manifest = {
        "run_id": run_id,
        "experiment": CALIBRATION_EXPERIMENT,
        "params": {
            "targets": ["go-hello"],
            "tools": ["locust HttpUser x1", "wrk"],
            "loads": [{"duration_s": duration_s}, {"duration_s": duration_s}],
            "repetitions": repetitions,
            "runs_planned": planned or len(results),
        },
        "provenance": {"machine": machine},
    } | ({"completed_utc": "2026-11-01T00:10:00+00:00"} if completed else {})
    (path / "manifest.json").write_text(json.dumps(manifest))
    if with_results:
        results.to_csv(path / "results.csv", index=False)


OLDER = "20261101T000000Z-00_load_generators-aaaa"
NEWER = "20261201T000000Z-00_load_generators-ffff"


@pytest.mark.parametrize(
    ("newer_run", "applies", "reason"),
    [
        ({}, NEWER, None),
        ({"machine": {"hostname": "elsewhere"}}, OLDER, "measured on another machine"),
        ({"with_results": False}, OLDER, "it did not finish"),  # stopped before its first row
        ({"completed": False}, OLDER, "it did not finish"),  # stopped later
        ({"planned": 6, "results": RESULTS.iloc[:4]}, OLDER, "it holds 4 of its 6 runs"),
        ({"duration_s": 1.0}, OLDER, "runs of 1 s (the smoke profile?), shorter than 5 s"),
        ({"repetitions": 2, "results": RESULTS.iloc[[0, 1, 3, 4]]}, OLDER, "2 repetitions"),
    ],
)
def test_latest_complete_calibration_of_this_machine_applies(
    tmp_path: Path, newer_run, applies, reason
) -> None:
    here = provenance.machine()
    write_run(tmp_path, OLDER, here)
    write_run(tmp_path, NEWER, here | newer_run.pop("machine", {}), **newer_run)
    ceilings = latest_ceilings(tmp_path)
    assert ceilings.run_id == applies
    if reason:
        (skipped,) = ceilings.skipped
        assert skipped.startswith(f"{NEWER}: {reason}")
        assert reason in ceilings_sentence(ceilings)


def test_only_unusable_calibrations_say_why_there_are_no_ceilings(tmp_path: Path) -> None:
    write_run(tmp_path, NEWER, provenance.machine(), duration_s=1.0)
    ceilings = latest_ceilings(tmp_path)
    assert ceilings.run_id is None and ceilings.by_setting == {}
    sentence = ceilings_sentence(ceilings)
    assert "No usable load-tool calibration" in sentence and "smoke profile" in sentence


def test_no_calibration_gives_no_ceilings(tmp_path: Path) -> None:
    assert latest_ceilings(tmp_path) == NOT_CALIBRATED


def test_the_ceiling_table_gives_the_ceiling_the_sentences_cite() -> None:
    """A run a busy machine set measures neither side: notebook 00's table printed 3,096
    req/s for a setting whose ceiling, over the runs that count, was 4,721."""
    busy = RESULTS.copy()
    busy.loc[0, ["rps", "limit"]] = [5_000.0, "machine"]
    table = ceiling_table(busy)
    assert table.loc["wrk", "runs"] == 3 and table.loc["wrk", "runs counted"] == 2
    assert table.loc["wrk", "req/s"] == ceilings_from(busy, "run-1", "go-hello").by_setting["wrk"]
    assert table.loc["wrk", "req/s"] == 21_500.0
