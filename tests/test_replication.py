"""The sessions behind a headline, on constructed sessions and on a runs folder of the
test's own: machine classes told apart (and runs from before the CPU was recorded
attributed by their speed), the sessions of this class pooled, the others apart, killed
runs never counted, and conditions that make two runs the same comparison."""

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from benchbook.analyse.findings.headlines import headline
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import compare_paired
from benchbook.analyse.sessions import estimate
from benchbook.analyse.sessions.estimate import conditions
from benchbook.analyse.sessions.machine_classes import machine_class, with_unrecorded
from benchbook.analyse.sessions.replication import UNRECORDED, replication
from benchbook.analyse.words.sessions import brief, sessions_basis, sessions_text
from benchbook.render.spread_page import (
    BOOT_NOT_RECORDED,
    ClassSessions,
    Cluster,
    MachineCensus,
    machine_census,
)
from benchbook.runs.manifest import migrate

BASE = [1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1250.0, 1050.0, 1150.0]
JITTER = [1.00, 1.01, 0.99, 1.02, 0.98, 1.01, 0.99, 1.00]
FAMILY_25 = "AMD EPYC (family 25, model 17, stepping 1), 2 CPUs"
FAMILY_26 = "AMD EPYC (family 26, model 2, stepping 0), 2 CPUs"


def paired(ratio: float):
    return compare_paired([v * ratio * j for v, j in zip(BASE, JITTER, strict=True)], BASE)


def session(ratio: float, spread: float = 0.05, cls: str = FAMILY_25, go_s: float = 0.52,
            python_s: float = 0.54, current: bool = False, run_id: str = "") -> dict:  # fmt: skip
    return {"ratio": ratio, "ci_low": ratio * (1 - spread), "ci_high": ratio * (1 + spread),
            "ci_level": 0.95, "machine_class": cls, "go_s": go_s,
            "python_s": python_s, "current": current, "same_conditions": True,
            "run_id": run_id or f"run-{ratio}-{cls[-20:]}"}  # fmt: skip


CPU_25 = {"vendor": "AuthenticAMD", "family": "25", "model": "17", "stepping": "1"}


def test_a_machine_class_is_the_cpu_identity_and_core_count() -> None:
    machine = {"cpu_model": "AMD EPYC", "logical_cpus": 2, "cpu": CPU_25}
    assert machine_class(machine) == FAMILY_25
    assert machine_class({"cpu_model": "AMD EPYC", "logical_cpus": 2}) == ""


def test_a_run_without_a_cpu_identity_is_its_own_session_whatever_its_speed() -> None:
    # a reference right inside family 25's: the speed cannot tell machines apart
    rows = [{**session(7.8, go_s=0.52, python_s=0.54), "machine_class": "", "run_id": "legacy"}]
    (row,) = with_unrecorded(rows)
    assert row["machine_class"] == UNRECORDED


def test_one_or_two_sessions_are_not_yet_replicated() -> None:
    c = paired(4.0)
    one = replication(c, [session(c.ratio, current=True)])
    assert one.pooled is None and sessions_text(one).startswith("one session: not yet replicated")
    assert "this session's rounds alone" in sessions_basis(one)  # nothing of its kind to borrow
    assert one.judged(c) == (c.ratio_low, c.ratio_high)  # this session's, as printed
    kinds = {FAMILY_25: {"other": [2.0, 2.1, 1.9]}}
    two = replication(c, [session(4.2), session(c.ratio, current=True)], kinds=kinds)
    assert two.sessions == 2 and sessions_text(two).startswith("2 sessions: not yet replicated")
    assert "1 other headline of this kind on this machine class" in sessions_basis(two)
    assert two.predicted is not None
    assert two.judged(c) == (two.predicted.predict_low, two.predicted.predict_high)


def test_this_class_is_pooled_and_other_classes_stand_apart() -> None:
    c = paired(7.8)
    runs = [session(r, run_id=f"s{i}") for i, r in enumerate([7.6, 8.1, 7.4, 8.3])]
    runs += [session(c.ratio, current=True, run_id="now")]
    runs += [session(6.0, cls=FAMILY_26, go_s=0.41, python_s=0.36, run_id="new-1"),
             session(6.2, cls=FAMILY_26, go_s=0.40, python_s=0.37, run_id="new-2")]  # fmt: skip
    model = replication(c, runs, go_side="a")
    assert model.sessions == 5 and model.pooled is not None
    assert model.pooled.predict_low < 7.4 and model.pooled.predict_high > 8.3
    assert len(model.held_out) == 5
    (other,) = model.others
    assert (other.machine_class, other.sessions) == (FAMILY_26, 2)
    assert (other.low, other.high) == (6.0, 6.2)
    # Go ran (0.52 / 0.405) faster there, Python (0.54 / 0.365): Go/Python shrinks by their ratio.
    shift = (0.52 / 0.405) / (0.54 / 0.365)
    assert other.expected == pytest.approx(model.pooled.estimate * shift)


def test_a_first_session_on_a_new_class_sees_the_others_and_what_speed_predicts() -> None:
    # the newer machine's first session: not yet replicated; family 25's five sessions apart,
    # with the ratio the two speed references predict there from this session's
    c = paired(6.0)
    runs = [session(r, run_id=f"s{i}") for i, r in enumerate([7.6, 8.1, 7.4, 8.3, 7.9])]
    runs += [session(c.ratio, cls=FAMILY_26, go_s=0.40, python_s=0.36, current=True)]
    model = replication(c, runs, go_side="a")
    assert model.machine_class == FAMILY_26 and model.pooled is None
    (other,) = model.others
    assert other.sessions == 5 and other.low < 7.4 and other.high > 8.3
    assert other.expected == pytest.approx(c.ratio * (0.40 / 0.52) / (0.36 / 0.54))


def test_three_classes_are_shown_apart_and_the_verdict_keeps_this_classs_interval() -> None:
    """No verdict rests on an interval for a new class from three class means (t with 1
    degree of freedom): the classes stand side by side, the verdict reads this class's."""
    c = paired(7.8)
    runs = [session(r) for r in (7.6, 8.1, 7.4)] + [session(c.ratio, current=True)]
    runs += [session(6.0, cls=FAMILY_26), session(6.2, cls=FAMILY_26)]
    runs += [session(9.5, cls="Intel Xeon (family 6, model 143, stepping 8), 2 CPUs")]
    model = replication(c, runs)
    assert len(model.others) == 2 and model.pooled is not None
    assert model.judged(c) == (model.pooled.predict_low, model.pooled.predict_high)


def test_sessions_that_disagree_on_the_direction_show_no_significant_difference() -> None:
    c = paired(1.3)
    runs = [session(0.8), session(1.25), session(0.85), session(c.ratio, current=True)]
    model = replication(c, runs)
    assert model.pooled is not None and model.pooled.low < 1 < model.pooled.high
    assert not model.significant(c)


def test_sessions_under_other_conditions_do_not_count() -> None:
    c = paired(4.0)
    other = {**session(9.0), "same_conditions": False}
    assert replication(c, [other, session(c.ratio, current=True)]).sessions == 1


def write_run(
    runs_dir: Path,
    run_id: str,
    go: float,
    completed: bool = True,
    cpu: dict | None = CPU_25,
    speed: float = 0.53,
) -> None:
    """A stored run of 'replication_test': go and py in six rounds, on family 25."""
    path = runs_dir / run_id
    path.mkdir(parents=True)
    manifest = {"run_id": run_id, "experiment": "replication_test",
                "created_utc": f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]}T{run_id[9:11]}:00:00",
                "params": {"tools": ["wrk"], "loads": [{"connections": 10}]},
                "provenance": {"machine": {"cpu_model": "AMD EPYC", "logical_cpus": 2,
                                           **({"cpu": cpu} if cpu else {})}},
                "machine_speed": {w: {"go_s": speed, "python_s": speed}
                                  for w in ("before", "after")}}  # fmt: skip
    if completed:
        manifest["completed_utc"] = manifest["created_utc"]
    (path / "manifest.json").write_text(json.dumps(manifest))
    results(run_id, go).to_csv(path / "results.csv", index=False)


def results(run_id: str, go: float) -> pd.DataFrame:
    return pd.DataFrame(
        [{"run_id": run_id, "repetition": r + 1, "target": t, "server": t, "rps": v * j,
          "flags": "", "incident": "", "err_connect": 0, "err_read": 0, "err_write": 0,
          "err_timeout": 0, "non_2xx": 0, "requests": 100_000, "headroom": None}
         for r, j in enumerate(JITTER[:6])
         for t, v in (("go", go * BASE[r]), ("py", BASE[r]))]
    )  # fmt: skip


def test_replication_reads_finished_sessions_from_the_runs_folder(runs_dir) -> None:
    for day, go in zip((21, 22, 23), (4.0, 4.4, 4.2), strict=True):
        write_run(runs_dir, f"202611{day}T100000Z-replication_test-aaaa", go)
    # killed mid-run: rows on disk, no completed_utc — never a session
    write_run(runs_dir, "20261124T100000Z-replication_test-dead", 9.0, completed=False)
    current = "20261125T100000Z-replication_test-bbbb"
    write_run(runs_dir, current, 4.1)
    h = headline("go vs py", results(current, 4.1), "go", "py", experiment="replication_test")
    assert h.sessions == 4 and len(h.spread) == 4
    assert h.predict_low < 4.0 and h.predict_high > 4.4
    assert "Over 4 sessions on this machine class" in h.verdict
    assert len(h.held_out) == 4


def test_runs_from_before_the_cpu_was_recorded_are_never_pooled(runs_dir) -> None:
    # a run without a CPU identity at the class's own speed stays apart, its own session
    write_run(runs_dir, "20261121T100000Z-replication_test-old1", 4.3, cpu=None, speed=0.52)
    write_run(runs_dir, "20261124T100000Z-replication_test-slow", 4.2, speed=0.60)
    write_run(runs_dir, "20261124T110000Z-replication_test-midd", 4.0, speed=0.55)
    current = "20261125T100000Z-replication_test-bbbb"
    write_run(runs_dir, current, 4.1, speed=0.50)
    h = headline("go vs py", results(current, 4.1), "go", "py", experiment="replication_test")
    classes = {r["run_id"][-4:]: r["machine_class"] for r in h.spread}
    assert classes["old1"] == UNRECORDED
    assert h.sessions == 3


def test_the_conditions_ignore_rounds_other_targets_and_calibration(tmp_path) -> None:
    def conditions_of(params: dict, servers: set[str], ignore: tuple = ()) -> dict:
        manifest = migrate({"schema_version": 2, "params": params}, tmp_path / "results.csv")
        return conditions(manifest, servers, ignore)

    params = {"tools": ["wrk"], "loads": [{"connections": 100, "duration_s": 3.0}],
              "warmup_s": 1.0, "pinning": {"server_cpus": [0]}, "restart": True,
              "server_params": {"go": {"delay_ms": 1}, "py": {"workers": 1}, "other": {}},
              "repetitions": 6, "targets": ["go", "py", "other"],
              "calibration": {"run_id": "a"}}  # fmt: skip
    again = {**params, "repetitions": 12, "targets": ["go", "py"], "calibration": {"run_id": "b"}}
    assert conditions_of(params, {"go", "py"}) == conditions_of(again, {"go", "py"})
    longer = {**params, "loads": [{"connections": 100, "duration_s": 30.0}]}
    assert conditions_of(params, {"go", "py"}) != conditions_of(longer, {"go", "py"})
    assert conditions_of(params, {"go", "py"}, ignore=("loads",)) == conditions_of(
        longer, {"go", "py"}, ignore=("loads",)
    )
    unrestarted = {**params, "restart": None}
    assert conditions_of(params, {"go", "py"}) != conditions_of(unrestarted, {"go", "py"})


def test_the_sessions_page_counts_each_class_once_over_its_headlines() -> None:
    def run(run_id: str, cls: str, same: bool = True) -> dict:
        return {"run_id": run_id, "machine_class": cls, "same_conditions": same}

    rows = [run("a", FAMILY_25), run("b", FAMILY_25), run("c", UNRECORDED),
            run("d", FAMILY_26, same=False)]  # fmt: skip
    again = [rows[1], {**rows[0], "run_id": "e"}]  # "b" counted once over two headlines
    section = SimpleNamespace(findings=[{"headlines": [{"spread": rows}, {"spread": again}]}])
    census = machine_census([section])
    assert census.classes == (ClassSessions(FAMILY_25, 3),)  # d: not pooled, c: no class
    assert census.unrecorded == 1


def test_the_sessions_page_checks_the_rule_on_every_class() -> None:
    """Each class's held-out sessions are counted on that class, this report's class
    (held_out) and the others (held_out_elsewhere) alike."""

    def held(cls: str, inside: bool, borrowed: bool = True) -> dict:
        return {"machine_class": cls, "inside": inside, "borrowed": borrowed}

    runs = [{"run_id": r, "machine_class": cls, "same_conditions": True}
            for r, cls in (("a", FAMILY_26), ("b", FAMILY_26), ("c", FAMILY_25), ("d", FAMILY_25),
                           ("e", FAMILY_25), ("f", FAMILY_25))]  # fmt: skip
    here = [held(FAMILY_26, True), held(FAMILY_26, True)]
    there = [held(FAMILY_25, True, False)] * 3 + [held(FAMILY_25, False, False)]
    headlines = [{"label": "x", "spread": runs, "held_out": here, "held_out_elsewhere": there},
                 {"label": "y", "spread": runs[:2], "held_out": here}]  # fmt: skip
    census = machine_census([SimpleNamespace(findings=[{"headlines": headlines}])])
    assert census.classes == (
        ClassSessions(FAMILY_26, 2, held_out=4, inside=4, borrowed=4),
        ClassSessions(FAMILY_25, 4, held_out=4, inside=3, borrowed=0),
    )
    # a failing headline is listed under the class whose check failed, with its count
    assert (census.inside, census.held_out) == (7, 8)
    assert census.failing == ((FAMILY_25, ("x (1 of 4)",)),)


def test_every_class_is_left_out_session_by_session_with_its_own_borrowed_spread() -> None:
    c = paired(7.8)
    runs = [session(7.6, run_id="s0"), session(c.ratio, current=True, run_id="now")]
    runs += [session(r, cls=FAMILY_26, run_id=f"new-{i}") for i, r in enumerate([6.0, 6.2, 9.9])]
    # spreads of other headlines of this kind: 2 % on family 25, 1 % on family 26
    kinds = {FAMILY_25: {"other": [2.0, 2.04, 1.96]}, FAMILY_26: {"other": [3.0, 3.03, 2.97]}}
    model = replication(c, runs, kinds=kinds)
    assert [(h.run_id, h.borrowed) for h in model.held_out] == [("s0", True), ("now", True)]
    assert all(h.inside for h in model.held_out)  # 7.6 and 7.8 lie 2.6 % apart
    elsewhere = {h.run_id: h for h in model.held_out_elsewhere}
    assert list(elsewhere) == ["new-0", "new-1", "new-2"]
    assert all(h.machine_class == FAMILY_26 and h.borrowed for h in elsewhere.values())
    assert not elsewhere["new-2"].inside  # 9.9 against 6.0 and 6.2 with a 1 % spread
    assert elsewhere["new-2"].predict_high < 6.5


def test_the_judged_interval_is_the_printed_one_and_narrows_as_agreeing_sessions_count() -> None:
    """What a verdict and the A/A band are read from (claims.control.control_band): the
    prediction the answer prints, at every k; sessions at one ratio never widen it."""
    c = paired(1.01)
    kinds = {FAMILY_25: {"control a": [1.0, 1.03, 0.98], "control b": [0.99, 1.02]}}
    widths = []
    for k in range(1, 11):
        runs = [session(c.ratio, run_id=f"s{i}") for i in range(k - 1)]
        runs.append(session(c.ratio, current=True, run_id="now"))
        model = replication(c, runs, kinds=kinds)
        assert (model.pooled is None) == (k < 3)
        low, high = model.judged(c)
        assert (low, high) == (model.predicted.predict_low, model.predicted.predict_high)
        widths.append(high / low)
    assert all(later <= earlier for earlier, later in zip(widths, widths[1:], strict=False))


def test_a_not_yet_replicated_brief_gives_the_interval_its_verdict_is_judged_on() -> None:
    c = paired(4.0)
    kinds = {FAMILY_25: {"other": [2.0, 2.1, 1.9]}}
    model = replication(c, [session(c.ratio, current=True)], kinds=kinds)
    said = brief(c, "Go", "FastAPI", "rps", "req/s", None, model)
    assert model.predicted is not None
    low, high = model.predicted.predict_low, model.predicted.predict_high
    expected = f"the next session should give {fmt.interval(low, high)}"
    assert f"One session: not yet replicated; {expected}" in said


def test_a_prediction_that_spans_ten_thousand_fold_is_said_to_tell_nothing() -> None:
    """Two sessions far apart that stray from their kind's spread are judged by t with one
    degree of freedom: the report printed '71,567,596,892× lower to 18,905,077× higher'."""
    c = paired(0.04)
    runs = [session(0.04, current=True), session(1.1)]
    model = replication(c, runs, kinds={FAMILY_25: {"other": [2.0, 2.02, 1.98]}})
    assert model.predicted is not None
    assert model.predicted.predict_high / model.predicted.predict_low > 10_000
    said = brief(c, "wrk", "vegeta", "p90", "ms", None, model)
    assert "these sessions differ too much to say what the next should give (its 95 % " in said
    assert "should give 0" not in said and "higher" not in said


def test_the_checks_are_counted_by_first_and_later_sittings_of_recorded_machines() -> None:
    """Page 1 gives the leave-one-out check by sitting; a machine whose boot was not
    recorded is neither, and the report's own sessions' sitting is named."""
    clusters = (
        Cluster("c", "booted 2026-12-07 07:25", True, 16, 14),
        Cluster("c", "booted 2026-12-07 07:25", False, 10, 10),
        Cluster("c", BOOT_NOT_RECORDED, True, 36, 34),
    )
    census = MachineCensus((), 0, clusters=clusters, measured_first=True)
    assert census.sittings == ((14, 16), (10, 10))


def test_the_cached_estimates_version_digests_the_analysis_and_run_format_code() -> None:
    # It digested no file at all once (a path one folder short), so a cached session
    # estimate outlived every change of the code that computed it.
    sources = estimate.estimate_sources()
    names = {p.relative_to(estimate.PACKAGE).as_posix() for p in sources}
    assert "analyse/sessions/estimate.py" in names and "runs/limits.py" in names
    assert estimate.estimates_version() != hashlib.sha256().hexdigest()[:16]
