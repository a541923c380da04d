"""The sessions appendix prints the simulation that chose its interval rule."""

from benchbook.analyse.sessions import interval_coverage
from benchbook.render.spread_page import (
    Cluster,
    Sitting,
    clusters,
    coverage_table,
    forward_checks,
    sittings,
)


def test_the_coverage_table_has_every_cell_and_names_the_rule() -> None:
    table = coverage_table()
    assert table.rule == interval_coverage.RULE
    assert len(table.columns) == len(interval_coverage.DESIGNS) * len(interval_coverage.TAUS)
    assert [k for k, _ in table.rows] == list(interval_coverage.SESSIONS)
    assert all(93 <= float(v) <= 97 for _, row in table.rows for v in row)
    assert all(len(row) == len(table.columns) for _, row in table.rows + table.old_rows)
    assert table.old_rows[0][1] == ("–",) * len(table.columns)  # no old rule at k = 2
    assert 0.93 <= table.pooled[0] <= table.pooled[1] <= 0.97


def test_the_per_headline_table_states_what_its_cells_show() -> None:
    table = coverage_table()
    cells = interval_coverage.per_headline()
    assert len(table.per_headline_rows) == len(interval_coverage.SESSIONS)
    assert all(len(row) == len(table.factors) for _, row in table.per_headline_rows)
    at_one = [c.moderated for c in cells if c.sessions == 1]
    assert table.one_session == (min(at_one), max(at_one))
    if table.settled_from is not None:  # the sentence's 'from k sessions, 90 % or more'
        assert all(c.moderated >= 0.90 for c in cells if c.sessions >= table.settled_from)
        assert any(c.moderated < 0.90 for c in cells if c.sessions == table.settled_from - 1)


def manifest(run_id: str, boot: str, commit: str, booted: str | None = None) -> dict:
    machine = {"boot_id": boot} | ({"booted_at": booted} if booted else {})
    return {"run_id": run_id, "provenance": {"machine": machine, "git": {"commit": commit}}}


def test_a_runs_sitting_is_its_boot_and_commit_the_first_one_marked() -> None:
    found = sittings([
        manifest("20261206T050000Z-x", "b2", "c2", "2026-12-06T04:27:28Z"),
        manifest("20261127T032400Z-x", "b1", "c1"),
        manifest("20261127T090000Z-x", "b1", "c2"),
        manifest("20261206T043000Z-x", "b2", "c1", "2026-12-06T04:27:28Z"),
        {"run_id": "old", "provenance": {"machine": {}}},  # no boot id: no machine
    ])  # fmt: skip
    assert found["20261127T032400Z-x"] == Sitting("boot b1, first run 2026-11-27 03:24", True)
    assert found["20261127T090000Z-x"] == Sitting("boot b1, first run 2026-11-27 03:24", False)
    assert found["20261206T043000Z-x"] == Sitting("booted 2026-12-06 04:27", True)
    assert not found["20261206T050000Z-x"].first and "old" not in found


def test_the_left_out_checks_are_counted_by_machine_and_sitting() -> None:
    where = {"a": Sitting("m1", True), "b": Sitting("m1", False), "c": Sitting("m1", False)}
    held = {"class": [{"run_id": r, "inside": inside} for r, inside in
                      (("a", False), ("b", True), ("c", True), ("z", True))]}  # fmt: skip
    assert clusters(held, where) == (
        Cluster("class", "boot not recorded", True, 1, 1),
        Cluster("class", "m1", False, 2, 2),
        Cluster("class", "m1", True, 1, 0),
    )


def test_forward_in_time_each_session_is_predicted_from_the_earlier_three_or_more() -> None:
    def row(run_id: str, ratio: float) -> dict:
        return {"run_id": run_id, "ratio": ratio, "ci_low": ratio * 0.97, "ci_high": ratio * 1.03,
                "ci_level": 0.95, "machine_class": "c", "same_conditions": True}  # fmt: skip

    steady = [row(f"r{i}", r) for i, r in enumerate([2.0, 2.1, 1.95, 2.05, 2.02])]
    assert forward_checks(steady) == [True, True]  # r3 from r0–r2, r4 from r0–r3
    assert forward_checks(steady + [row("r9", 9.0)]) == [True, True, False]
    assert forward_checks(steady[:3]) == []  # no session has three before it
