"""A headline across machine classes: the speed-reference model predicts another class's
estimate only where the servers set the rate, is judged by its prediction error with each
class left out against "no change", is printed only where it beats that, and a share of a
move is printed only where the move leaves this class's own spread."""

import math
from dataclasses import asdict, replace
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from benchbook.analyse.numbers.stats import compare_paired
from benchbook.analyse.sessions.replication import UNRECORDED, OtherClass, replication, spread
from benchbook.analyse.words.across_classes import (
    ClassEstimate,
    check,
    check_over,
    classes,
    servers_limit,
    statement,
)
from benchbook.render.spread_page import machine_census
from benchbook.runs.limits import judged
from benchbook.runs.manifest import COMPLETED, migrate
from benchbook.store.sessions import StoredSession, computed_estimates

HERE = "AMD EPYC (family 25, model 17, stepping 1), 2 CPUs"
NEWER = "AMD EPYC (family 26, model 2, stepping 0), 2 CPUs"
THIRD = "Intel Xeon (family 6, model 143, stepping 8), 2 CPUs"
BASE = [1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1250.0]
JITTER = [1.00, 1.01, 0.99, 1.02, 0.98, 1.01]


def paired(ratio: float):
    return compare_paired([v * ratio * j for v, j in zip(BASE, JITTER, strict=True)], BASE)


def session(ratio: float, cls: str = HERE, go_s: float = 0.52, python_s: float = 0.54,
            current: bool = False, run_id: str = "") -> dict:  # fmt: skip
    return {"ratio": ratio, "ci_low": ratio * 0.97, "ci_high": ratio * 1.03, "ci_level": 0.95,
            "machine_class": cls, "go_s": go_s, "python_s": python_s,
            "current": current, "same_conditions": True,
            "run_id": run_id or f"{cls[:12]}-{ratio}-{go_s}"}  # fmt: skip


def newer(ratio: float, go_s: float, python_s: float) -> OtherClass:
    """A class measured twice at ``ratio``, and the speed model's prediction of it from
    this class's 7.9× at references 0.52 / 0.54 s."""
    shift = (0.52 / go_s) / (0.54 / python_s)
    return OtherClass(NEWER, 2, ratio, ratio * 0.97, ratio * 1.03, go_s, python_s, 7.9 * shift)


def test_left_out_each_class_is_predicted_from_the_others_and_by_no_change() -> None:
    # three classes whose estimates follow the speed model exactly, but for a 2 % miss
    shifts = {HERE: 1.0, NEWER: 0.8, THIRD: 1.25}
    estimates = [ClassEstimate(HERE, 7.9, 1.0), ClassEstimate(NEWER, 7.9 * 0.8 * 1.02, 0.8),
                 ClassEstimate(THIRD, 7.9 * 1.25, 1.25)]  # fmt: skip
    found = check(estimates)
    assert found is not None and found.beats_unchanged
    newer_left = found.left_out[1]
    # from the other two, each moved by the speed model to NEWER's references
    expected = math.sqrt((7.9 * 0.8) * (7.9 * 1.25 * 0.8 / 1.25))
    assert newer_left.predicted == pytest.approx(expected)
    assert newer_left.unchanged == pytest.approx(math.sqrt(7.9 * 7.9 * 1.25))
    assert newer_left.error == pytest.approx(1 / 1.02 - 1)
    assert found.model_error < 0.02 < found.unchanged_error
    assert set(shifts) == {e.machine_class for e in found.left_out}


def test_a_model_that_predicts_a_move_that_did_not_happen_loses_to_no_change() -> None:
    found = check([ClassEstimate(HERE, 7.9, 1.0), ClassEstimate(NEWER, 7.8, 0.8)])
    assert found is not None and not found.beats_unchanged
    assert found.unchanged_error == pytest.approx(7.9 / 7.8 - 1)
    assert check([ClassEstimate(HERE, 7.9, 1.0), ClassEstimate(NEWER, 7.8, None)]) is None


def test_a_model_that_beats_no_change_prints_its_prediction_and_error() -> None:
    other = newer(6.1, go_s=0.42, python_s=0.36)  # the model predicts ~6.3×
    text = statement(7.9, (7.0, 8.9), HERE, [], [other], "a", "")
    error = (other.expected / 6.1 - 1) * 100
    assert f"{error:+.0f} % off" in text and "of the move from this class's 7.9×" in text
    assert "Left out in turn" in text and "does not beat" not in text


def test_a_share_of_a_move_is_printed_only_where_the_move_leaves_the_class_spread() -> None:
    # the headline did not move (8.0× inside this class's 7.0–8.9×): no share, however
    # small the model's move ("24810 % of the move" was printed for such a headline)
    other = newer(8.0, go_s=0.515, python_s=0.54)
    text = statement(7.9, (7.0, 8.9), HERE, [], [other], "a", "")
    assert "% off" in text and "% of the move" not in text  # the model beats no change


def test_a_model_that_loses_to_no_change_is_not_printed_but_the_classes_are() -> None:
    other = newer(7.8, go_s=0.42, python_s=0.36)  # the model predicts ~6.3×, nothing moved
    text = statement(7.9, (7.0, 8.9), HERE, [], [other], "a", "")
    assert "does not beat predicting no change" in text
    # the other class's estimate is stated (this class's is the headline's own), once
    assert "predicted 6" not in text and text.count("7.8×") == 1 and f"{NEWER} (" in text


def test_where_the_load_tool_or_the_link_set_the_rate_the_model_is_not_applied() -> None:
    other = newer(6.1, go_s=0.42, python_s=0.36)
    text = statement(7.9, (7.0, 8.9), HERE, [], [other], "a", "the link set the rate")
    assert "not applied: the link set the rate" in text and "% off" not in text


def test_the_unrecorded_bucket_is_never_a_class() -> None:
    unrecorded = OtherClass(UNRECORDED, 5, 7.7, 7.0, 8.5, 0.51, 0.53, 7.8)
    assert [e.machine_class for e in classes(HERE, 7.9, [unrecorded])] == [HERE]
    runs = [session(7.9, current=True)]
    text = statement(7.9, (7.0, 8.9), HERE, runs, [unrecorded], "a", "")
    assert "One machine class measured" in text and UNRECORDED not in text


def test_with_one_class_the_model_is_stated_for_given_references() -> None:
    runs = [session(7.9, go_s=0.50, current=True), session(7.8, go_s=0.54)]
    text = statement(7.9, (7.0, 8.9), HERE, runs, [], "a", "")
    assert "One machine class measured" in text and "Go 0.52 s, Python 0.54 s" in text
    assert statement(7.9, (7.0, 8.9), HERE, runs, [], "", "") == ""  # not Go against Python


def test_two_recorded_classes_through_replication_give_each_estimate_and_the_error() -> None:
    c = paired(7.9)
    runs = [session(r, run_id=f"s{i}") for i, r in enumerate([7.6, 8.1, 7.4, 8.3])]
    runs += [session(c.ratio, current=True, run_id="now")]
    runs += [session(6.0, NEWER, go_s=0.42, python_s=0.36, run_id="n1"),
             session(6.2, NEWER, go_s=0.42, python_s=0.36, run_id="n2")]  # fmt: skip
    model = replication(c, runs, go_side="a")
    assert model.pooled is not None
    spread = (model.pooled.predict_low, model.pooled.predict_high)
    text = statement(model.estimate(c), spread, HERE, runs, model.others, "a", "")
    (other,) = model.others
    assert f"On {NEWER} (2 sessions; their mean Go reference 0.42 s, Python 0.36 s)" in text
    assert f"{(other.expected / other.estimate - 1) * 100:+.0f} % off" in text


def rows(flags: str, runs: int = 4, limited: int = 4) -> pd.DataFrame:
    """Each server at 95 % of its one core, its load tool at half of its own, and the
    first ``limited`` runs of each flagged (a tool flag makes the tool their limit)."""
    return judged(pd.DataFrame(
        [{"target": t, "flags": flags if i < limited else "", "err_connect": 0, "err_read": 0,
          "err_write": 0, "err_timeout": 0, "requests": 1000, "headroom": None, "rps": 1000.0,
          "server_cpu_pct": 95.0, "server_cores": 1, "client_cpu_pct": 50.0, "client_cores": 1,
          "tool_setting": "wrk"}
         for t in ("go", "py") for i in range(runs)]
    ))  # fmt: skip


def limit(flags: str = "", limited: int = 4, column: str = "rps", link: str = "") -> str:
    unit = "ms" if column.startswith("lat_") else "req/s"
    return servers_limit(rows(flags, limited=limited), ["go", "py"], column, unit, link)


def test_the_model_applies_only_where_the_servers_set_the_rate() -> None:
    assert limit() == ""
    assert "load tool" in limit("client_bound")
    assert "load tool" in limit("near_tool_ceiling", limited=2)  # half the runs
    assert limit("client_bound", limited=1) == ""
    assert "link" in limit(link="Little's law caps these servers")
    assert "time" in limit(column="lat_p50_ms")


class Sessions:
    """A session source of the test's own: two classes, each session's rows with the
    servers' CPU time per request."""

    def __init__(self, sessions: list[StoredSession]):
        self.found = sessions

    def sessions(self, experiment: str) -> list[StoredSession]:
        return self.found

    def manifests(self) -> list[dict]:
        return [s.manifest for s in self.found]

    def estimates(self, experiment: str, key: str, version: str, compute) -> list:
        return computed_estimates(self.found, compute)


def stored(run_id: str, cpu: dict, ratio: float, go_ms: float, py_ms: float) -> StoredSession:
    manifest = {"run_id": run_id, "created_utc": "2026-11-27T01:00:00",
                "completed_utc": "2026-11-27T01:01:00",
                "params": {"tools": ["wrk"]}, "provenance": {"machine": {
                    "cpu_model": "AMD EPYC", "logical_cpus": 2, "cpu": cpu}},
                "machine_speed": {w: {"go_s": 0.5, "python_s": 0.5}
                                  for w in ("before", "after")}}  # fmt: skip
    manifest = migrate(manifest, Path("results.csv"))  # as the store holds it
    assert manifest["completion"] == COMPLETED
    rows = pd.DataFrame(
        [{"run_id": run_id, "repetition": r + 1, "target": t, "server": t, "rps": v, "flags": "",
          "incident": "", "err_connect": 0, "err_read": 0, "err_write": 0, "err_timeout": 0,
          "non_2xx": 0, "requests": 100_000, "headroom": None, "server_cpu_ms_per_request": ms}
         for r, base in enumerate(BASE)
         for t, v, ms in (("go", base * ratio * JITTER[r], go_ms), ("py", base, py_ms))]
    )  # fmt: skip
    return StoredSession(run_id, manifest, rows)


def test_each_session_carries_the_servers_cpu_cost_and_another_class_what_it_explains() -> None:
    family_26 = {"vendor": "AuthenticAMD", "family": "26", "model": "2", "stepping": "0"}
    family_25 = {"vendor": "AuthenticAMD", "family": "25", "model": "17", "stepping": "1"}
    source = Sessions([stored("r1", family_25, 7.9, 0.025, 0.20),
                       stored("r2", family_26, 6.1, 0.020, 0.125)])  # fmt: skip
    runs = spread("x", "go", "py", current={"r1"}, source=source)
    assert [r["cpu_cost"] for r in runs] == pytest.approx([0.20 / 0.025, 0.125 / 0.020])
    c = compare_paired([v * 7.9 * j for v, j in zip(BASE, JITTER, strict=True)], BASE)
    (other,) = replication(c, runs, go_side="a").others
    # a Python request's cost fell more than a Go one's: 8× → 6.25× predicts c.ratio × 0.78
    assert other.cpu_expected == pytest.approx(c.ratio * (0.125 / 0.020) / (0.20 / 0.025))
    assert replication(c, runs, go_side="").others[0].cpu_expected is None  # not applied


def test_where_the_speed_model_loses_the_cpu_cost_says_what_it_explains() -> None:
    # the references predicted no move; the servers' CPU cost predicted most of it
    other = replace(newer(6.1, go_s=0.52, python_s=0.54), cpu_expected=6.4)
    text = statement(7.9, (7.0, 8.9), HERE, [], [other], "a", "")
    assert "does not beat predicting no change" in text
    share = math.log(6.4 / 7.9) / math.log(6.1 / 7.9)
    assert (
        f"accounts for 6.4× on {other.machine_class} (+5 % off; it foresaw {share * 100:.0f} % "
        "of the move" in text
    )
    unmoved = replace(newer(7.8, go_s=0.52, python_s=0.54), cpu_expected=7.7)
    assert "accounts for" not in statement(7.9, (7.0, 8.9), HERE, [], [unmoved], "a", "")


def test_the_check_over_headlines_pools_every_left_out_prediction() -> None:
    right = [newer(6.3, go_s=0.42, python_s=0.36)]  # the model's own prediction, ~6.3×
    wrong = [newer(7.9, go_s=0.42, python_s=0.36)]  # nothing moved
    found = check_over([(HERE, 7.9, right), (HERE, 7.9, wrong), (HERE, 7.9, [])])
    assert found is not None and len(found.left_out) == 4  # two classes, two headlines
    low, high = found.errors
    shift = (0.52 / 0.42) / (0.54 / 0.36)
    assert low == pytest.approx(7.9 * shift / 7.9 - 1)  # the move predicted, none happened
    assert high == pytest.approx(7.9 / (7.9 * shift) - 1)
    assert check_over([(HERE, 7.9, [])]) is None


def test_the_sessions_page_states_the_check_across_classes() -> None:
    others = [asdict(newer(6.3, go_s=0.42, python_s=0.36))]
    headlines = [{"machine_class": HERE, "pooled_ratio": 7.9, "other_classes": others},
                 {"machine_class": HERE, "ratio": 4.0, "other_classes": []}]  # fmt: skip
    census = machine_census([SimpleNamespace(findings=[{"headlines": headlines}])])
    assert census.across_headlines == 1 and census.across is not None
    assert census.across.beats_unchanged


def test_the_brackets_say_once_whether_they_are_a_prediction_or_a_range() -> None:
    twice = newer(6.1, 0.40, 0.36)  # two sessions: their range
    modelled = replace(twice, machine_class="Third class", sessions=4, predicted=True)
    said = {
        kinds: statement(7.9, (7.0, 8.9), HERE, [], others, "", "")
        for kinds, others in {
            "range": [twice],
            "model": [modelled],
            "both": [twice, modelled],
        }.items()
    }
    assert said["range"].endswith(" In brackets: the range of each class's sessions.")
    assert said["model"].endswith(
        " In brackets: each class's 95 % prediction interval for its next session."
    )
    assert said["both"].count("In brackets") == 1
    assert "or the range of its sessions where it has fewer than three." in said["both"]
