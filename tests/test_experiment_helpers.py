"""What moved out of the notebooks' cells into analyse: the selects a headline reads every
stored session with, and the tables and sentences a cell used to compute itself
(constructed rows, no servers)."""

import pandas as pd
import pytest

from benchbook.analyse.display import ceilings, tables
from benchbook.analyse.experiments import (
    article_loop,
    capacity,
    fan_out,
    grpc_http,
    open_loop,
    shortener,
)
from benchbook.runs.labels import AA_COPY


def fanout_rows() -> pd.DataFrame:
    endpoints = ["/sc/9", "/cc/9", "/sc/9?work=100", "/cc/9?work=100", "/cc/9?work=100"]
    return pd.DataFrame({
        "endpoint": endpoints, "connections": [100, 100, 1, 1, 10],
        "target": ["t"] * 5, "rps": [1.0, 2.0, 3.0, 4.0, 5.0],
    })  # fmt: skip


def test_fan_out_paths_are_read_into_mode_id_and_work() -> None:
    labelled = fan_out.label_paths(fanout_rows())
    assert list(labelled["mode"]) == ["sc", "cc", "sc", "cc", "cc"]
    assert list(labelled["id"]) == [9] * 5 and list(labelled["work"]) == [1, 1, 100, 100, 100]
    assert list(fan_out.by_mode(fanout_rows())["target"]) == ["sc", "cc", "sc", "cc", "cc"]
    heavy = fan_out.idle_and_heavy(100)(fanout_rows())
    assert list(heavy["rps"]) == [3.0, 4.0]  # one connection, 100 scans per lookup


def test_the_aa_copy_is_left_out_of_labelled_paths() -> None:
    rows = fanout_rows().assign(target=["t", "t", "t", "t", f"t {AA_COPY}"])
    assert list(fan_out.label_paths(rows)["rps"]) == [1.0, 2.0, 3.0, 4.0]


def test_a_wait_range_means_its_midpoint_in_seconds() -> None:
    assert shortener.mean_wait_s("10-9000ms") == 4.505
    assert shortener.mean_wait_s("10-20ms") == 0.015


def test_the_wait_sentence_says_what_the_users_sent_or_that_runs_were_too_short() -> None:
    # each server's figures as the table prints them: a range, never their median
    waiting = pd.DataFrame({"measured req/s": [44.0, 52.0], "measured/predicted": [1.0, 1.2]})
    assert shortener.wait_sentence(waiting, 200) == (
        "Under Locust with the author's wait, in this session's runs 200 users sent 44–52 req/s "
        "once running, "
        "100–120 % of the long-run rate Little's law gives for users that wait (users ÷ "
        "(mean wait + mean response); runs this short need not match it, and these were on "
        "both sides of it): the rate was the wait's, so the wait, not Locust, set it."
    )
    short = pd.DataFrame({"measured req/s": [30.0], "measured/predicted": [0.7]})
    said = shortener.wait_sentence(short, 200)
    assert said.endswith("these were below it in every run).") and "set it" not in said
    above = pd.DataFrame({"measured req/s": [49.0, 50.0], "measured/predicted": [1.12, 1.13]})
    assert "these were above it in every run)" in shortener.wait_sentence(above, 200)
    empty = pd.DataFrame({"measured req/s": [float("nan")], "measured/predicted": [float("nan")]})
    assert "too short to settle" in shortener.wait_sentence(empty, 200)


def test_calls_name_each_per_operation_row_and_leave_other_benchmarks_out() -> None:
    rows = pd.DataFrame({
        "benchmark": ["Ops", "ParallelHealth"], "backend": ["go", "go"],
        "transport": ["grpc", "http"], "operation": ["HealthCheck", "HealthCheck"],
        "ns_per_op": [2000.0, 3000.0],
    })  # fmt: skip
    assert list(grpc_http.calls(rows)["target"]) == ["Go backend, gRPC, HealthCheck"]
    assert list(grpc_http.by_backend_and_transport(rows)["target"]) == [
        "Go backend, gRPC", "Go backend, HTTP/JSON"
    ]  # fmt: skip
    assert list(grpc_http.with_microseconds(rows)["us_per_op"]) == [2.0, 3.0]


def test_the_articles_figures_sit_beside_the_medians_measured_here() -> None:
    article = pd.DataFrame({
        "metric": ["HealthCheck_ns_per_op", "HealthCheck_ns_per_op", "rps"],
        "side": ["http", "grpc", "http"], "value": [300.0, 100.0, 5.0],
    })  # fmt: skip
    ops = pd.DataFrame({
        "backend": ["python"] * 4 + ["go"], "operation": ["HealthCheck"] * 5,
        "transport": ["http", "http", "grpc", "grpc", "http"],
        "ns_per_op": [200.0, 400.0, 50.0, 70.0, 1.0], "bytes_per_op": [1.0] * 5,
        "allocs_per_op": [2.0] * 5,
    })  # fmt: skip
    table = grpc_http.article_versus_here(article, ops)
    row = table.loc[("HealthCheck", "time per call (ns)")]
    assert row["article http"] == 300.0 and row["article grpc"] == 100.0
    assert row["here http"] == 300.0 and row["here grpc"] == 60.0  # Python's medians only


def test_selects_name_rows_by_tool_setting_and_keep_one_tools_rows() -> None:
    rows = pd.DataFrame(
        {"tool": ["wrk", "bombardier"], "tool_setting": ["wrk c=10", "bombardier c=10"]}
    )
    assert list(ceilings.by_tool_setting(rows)["target"]) == ["wrk c=10", "bombardier c=10"]
    assert list(tables.of_tool("bombardier")(rows)["tool"]) == ["bombardier"]


def test_capacity_of_is_capacity_runs_at_the_same_objective(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []
    monkeypatch.setattr(capacity, "capacity_runs", lambda *args: calls.append(args) or "caps")
    rows = pd.DataFrame({"target": ["s"]})
    assert open_loop.capacity_of(10.0, 1.0, 20.0)(rows) == "caps"
    assert calls == [(rows, 10.0, 1.0, 20.0)]


def test_the_article_loops_servers_are_named_once_in_order() -> None:
    backends = {"a": {"http": "x", "grpc": "y"}, "b": {"http": "z", "grpc": "y"}}
    assert article_loop.servers(backends) == ["x", "y", "z"]


def worker_rows(many: list[float], one: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"run_id": "r", "repetition": i + 1, "target": t, "server": t, "rps": v, "flags": "",
             "err_connect": 0, "err_read": 0, "err_write": 0, "err_timeout": 0, "non_2xx": 0,
             "requests": 1000, "headroom": None, "incident": ""}
            for t, vs in (("w4", many), ("w1", one))
            for i, v in enumerate(vs)
        ]
    )  # fmt: skip


def test_the_workers_caveat_is_said_only_where_the_articles_count_was_not_the_best() -> None:
    faster = worker_rows([4000.0, 4100, 4050, 3990], [3000.0, 3100, 3050, 2990])
    assert shortener.workers_caveat(faster, "w4", "w1", 4) == ""
    level = worker_rows([4000.0, 3000, 4050, 3990], [3000.0, 4100, 3950, 4010])
    assert shortener.workers_caveat(level, "w4", "w1", 4) == (
        "aiohttp ran the article's 4 gunicorn workers; with 1 it was not measurably slower in "
        "this session's runs, so Go's lead over aiohttp's best setting may be smaller"
    )
    slower = worker_rows([3000.0, 3100, 3050, 2990], [4000.0, 4100, 4050, 3990])
    assert shortener.workers_caveat(slower, "w4", "w1", 4).endswith(
        "with 1 it served 1.33× as much in this session's runs, so Go's lead over aiohttp's "
        "best setting is smaller"
    )
