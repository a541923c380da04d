"""Results tables print numbers as a reader reads them: counts as counts whatever a
target's name holds, whole-number keys without decimals, and a p-value never as 0.000."""

import numpy as np
import pandas as pd

from benchbook.analyse.display import tables


def results(targets: dict[str, list[float]], **columns: list[object]) -> pd.DataFrame:
    rows = [
        {"target": target, "rps": rps, "repetition": i, "run_id": "r", "flags": ""}
        for target, values in targets.items()
        for i, rps in enumerate(values)
    ]
    frame = pd.DataFrame(rows)
    for name, values in columns.items():
        frame[name] = values
    for column in ("err_connect", "err_read", "err_write", "err_timeout", "non_2xx"):
        frame[column] = 0
    frame["requests"] = 1000
    frame["headroom"] = np.nan
    for column in tables.MEDIAN_COLUMNS:
        if column not in frame:
            frame[column] = np.nan
    return frame


def test_a_targets_name_with_slashes_does_not_make_its_counts_ratios() -> None:
    # '/cc/5' and 'A/A' read as ratios by their slash; under them are runs and req/s
    data = results({"go /cc/5": [36466.0] * 6, "go (A/A copy)": [36012.0] * 6})
    shown = tables.formatted(tables.summary_table(data).T)
    assert list(shown.loc["runs"]) == ["6", "6"]
    assert list(shown.loc["req/s"]) == ["36,466", "36,012"]


def test_whole_number_keys_are_printed_without_decimals() -> None:
    # a workers column with a missing value reads back as floats: 1.0, 4.0
    data = results({"py": [4266.0] * 3 + [4130.0] * 3}, workers=[1.0] * 3 + [4.0] * 3)
    assert list(tables.summary_table(data, by=["workers"]).index) == [1, 4]


def test_a_p_value_below_a_thousandth_is_not_printed_as_zero() -> None:
    table = pd.DataFrame({"p": [0.0001, 0.031]}, index=["a", "b"])
    assert list(tables.formatted(table)["p"]) == ["< 0.001", "0.031"]


def test_a_comparisons_n_says_which_test_its_p_comes_from() -> None:
    # six rounds a side, one row a round: paired, a signed-rank test over '6 rounds';
    # every run in one round cannot be paired: Mann-Whitney over '6+6' runs
    a = [100.0, 102, 98, 101, 99, 103]
    data = results({"a": a, "b": [v / 1.2 for v in a]})
    assert tables.comparison_table(data, "target", "a", "b").iloc[0]["n"] == "6 rounds"
    data["repetition"] = 0
    assert tables.comparison_table(data, "target", "a", "b").iloc[0]["n"] == "6+6"


def test_a_server_with_a_service_shows_the_services_cpu_beside_its_own() -> None:
    """Notebook 04's Go + Redis reads: 'set by server' at 74.9 % server CPU, as the rule
    counts Redis's CPU with the server's; the table shows both."""
    data = results({"go redis": [17000.0] * 3}, server_cpu_pct=[74.9] * 3,
                   service_cpu_pct=[21.0] * 3)  # fmt: skip
    shown = tables.formatted(tables.summary_table(data).T)
    assert list(shown.loc["server CPU %"]) == ["74.9"]
    assert list(shown.loc["service CPU %"]) == ["21.0"]


def test_one_level_for_every_row_is_printed_in_the_intervals_header() -> None:
    data = results({"a": [100.0, 101, 99, 102], "b": [50.0, 51, 49, 52]})
    shown = tables.level_in_header(tables.summary_table(data)[["req/s", "req/s CI", "CI level"]])
    assert list(shown.columns) == ["req/s", "req/s 87.5 % CI"]  # 4 runs: min–max at 87.5 %
    mixed = results({"a": [100.0, 101, 99, 102], "b": [50.0, 51, 49, 52, 50, 51]})
    table = tables.summary_table(mixed)[["req/s", "req/s CI", "CI level"]]
    assert tables.level_in_header(table).columns.tolist() == ["req/s", "req/s CI", "CI level"]


def test_a_tables_servers_are_named_as_a_reader_knows_them() -> None:
    """Its axis of targets, and with the rows it was made from every target or server its
    headers and cells name: notebook 02's comparison of the servers, notebook 04's
    article pair against what was reproduced (a header built from two targets)."""
    data = results({"go-hello": [60000.0, 61000, 59000, 62000, 60500, 61500],
                    "python-hello": [5400.0, 5500, 5300, 5600, 5450, 5350]})  # fmt: skip
    data["server"] = data["target"]
    summary = tables.styled(tables.summary_table(data).T).data
    assert list(summary.columns) == ["Go net/http", "FastAPI (uvicorn's defaults)"]
    assert summary.loc["req/s", "Go net/http"] == "60,750"  # formatted before it was named
    gap = tables.styled(tables.comparison_table(data, "server", "go-hello", "python-hello"), data)
    assert list(gap.data.columns[:3]) == [
        "Go net/http median", "FastAPI (uvicorn's defaults) median",
        "Go net/http / FastAPI (uvicorn's defaults)",
    ]  # fmt: skip
    first = gap.data.iloc[0]
    assert first["verdict"] == "Go net/http higher"
    # each number written by the label it had: 'net/http' in a name is no ratio
    unnamed = tables.formatted(tables.comparison_table(data, "server", "go-hello", "python-hello"))
    assert first["Go net/http median"] == "60,750"
    assert (
        first["Go net/http / FastAPI (uvicorn's defaults)"]
        == unnamed.iloc[0]["go-hello/python-hello"]
    )
    versus = pd.DataFrame({"here go-hello / python-hello": [11.0]}, index=["req/s"])
    assert list(tables.styled(versus, data).data.columns) == [
        "here Go net/http / FastAPI (uvicorn's defaults)"
    ]
    assert list(tables.styled(versus).data.columns) == ["here go-hello / python-hello"]


def test_a_limit_that_set_only_some_runs_says_in_how_many() -> None:
    """Notebook 03's crossover: cc's runs split 2/2 between nothing measured and its server,
    so 'nothing measured set cc's' alone would contradict the row's own set-by cell."""
    from benchbook.analyse.display.tables import _not_set_by

    rows = pd.DataFrame({
        "target": ["cc"] * 4 + ["sc"] * 4,
        "limit": ["none", "none", "server", "server"] + ["server"] * 4,
    })  # fmt: skip
    said = _not_set_by(rows, "target", ["cc", "sc"], "servers", "rps")
    assert said == "nothing measured set cc's in 2 of 4 runs; each server's CPU set sc's"
    both = rows.assign(limit="load tool")
    assert _not_set_by(both, "target", ["cc", "sc"], "servers", "rps") == (
        "the load tool set both rates"
    )
