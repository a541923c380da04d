"""The sessions appendix prints the simulation that chose its interval rule."""

from benchbook.analyse.sessions import interval_coverage
from benchbook.render.spread_page import coverage_table


def test_the_coverage_table_has_every_cell_and_names_the_rule() -> None:
    table = coverage_table()
    assert table.rule == interval_coverage.RULE
    assert len(table.columns) == len(interval_coverage.DESIGNS) * len(interval_coverage.TAUS)
    assert [k for k, _ in table.rows] == list(interval_coverage.SESSIONS)
    assert all(93 <= float(v) <= 97 for _, row in table.rows for v in row)
    assert all(len(row) == len(table.columns) for _, row in table.rows + table.old_rows)
    assert table.old_rows[0][1] == ("–",) * len(table.columns)  # no old rule at k = 2
    assert 0.93 <= table.pooled[0] <= table.pooled[1] <= 0.97
