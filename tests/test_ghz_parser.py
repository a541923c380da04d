"""The ghz parser, on real `ghz -O json` reports (tests/samples/ghz/capture.sh; its
README says what each shows). Parsed values are checked against the raw report,
including its per-call ``details``.
"""

import json

import pytest
from conftest import SAMPLES

from benchbook.measure.tools.ghz import GhzError, parse_ghz_json

GHZ = SAMPLES / "ghz"
SAMPLE_NAMES = ["health_ok", "health_rps200", "get_decision_not_found", "connection_refused"]
LATENCY_COLUMNS = ["lat_mean_ms", "lat_stdev_ms", "lat_p50_ms", "lat_p75_ms", "lat_p90_ms",
                   "lat_p99_ms", "lat_p999_ms", "lat_max_ms"]  # fmt: skip


def text(name: str) -> str:
    return (GHZ / f"{name}.json").read_text()


def raw(name: str) -> dict:
    return json.loads(text(name))


def exit_codes() -> dict[str, int]:
    pairs = (line.split() for line in (GHZ / "exit_codes.txt").read_text().splitlines())
    return {name: int(code) for name, code in pairs}


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_totals_come_from_the_report(name: str) -> None:
    report, row = raw(name), parse_ghz_json(text(name))
    assert row["requests"] == row["count"] == report["count"]
    assert row["duration_s"] == report["total"] / 1e9
    assert row["rps"] == report["rps"] == pytest.approx(report["count"] / row["duration_s"])
    assert row["status_counts"] == report["statusCodeDistribution"]
    kinds = ("ok", "err_connect", "err_read", "err_timeout", "non_ok")
    assert sum(row[k] for k in kinds) == row["count"]
    assert row["bytes_per_s"] is None and row["err_write"] is None


@pytest.mark.parametrize("name", ["health_ok", "health_rps200"])
def test_latency_of_a_run_where_every_call_succeeded(name: str) -> None:
    report, row = raw(name), parse_ghz_json(text(name))
    printed = {e["percentage"]: e["latency"] / 1e6 for e in report["latencyDistribution"]}
    for p in (50, 75, 90, 99):
        assert row[f"lat_p{p}_ms"] == printed[p]
    assert row["lat_mean_ms"] == report["average"] / 1e6
    assert row["lat_max_ms"] == report["slowest"] / 1e6
    assert row["lat_p50_ms"] <= row["lat_p99_ms"] <= row["lat_p999_ms"] <= row["lat_max_ms"]
    assert row["ok"] == report["count"]
    assert row["non_ok"] == row["err_connect"] == row["err_read"] == row["err_timeout"] == 0


def test_details_are_the_population_of_ghzs_own_percentiles() -> None:
    """p99.9 and the standard deviation come from ``details``: they must be the very
    calls ghz ranked. Ranked the same way (nearest rank), they give ghz's percentiles
    to the nanosecond (ghz goes through float seconds), and their mean is ghz's."""
    report = raw("health_ok")
    latencies = sorted(d["latency"] for d in report["details"])
    assert len(latencies) == report["count"]
    for entry in report["latencyDistribution"]:
        rank = -(-entry["percentage"] * len(latencies) // 100)  # ceil
        assert latencies[rank - 1] == pytest.approx(entry["latency"], abs=1)
    assert sum(latencies) / len(latencies) == pytest.approx(report["average"], abs=1)
    row = parse_ghz_json(text("health_ok"))
    assert row["lat_p999_ms"] == latencies[1997] / 1e6  # rank ceil(0.999 * 2000) = 1998
    assert 0 < row["lat_stdev_ms"] < row["lat_max_ms"]


def test_a_fixed_rate_run_reaches_its_rate_and_a_lower_tail() -> None:
    steady, flat_out = parse_ghz_json(text("health_rps200")), parse_ghz_json(text("health_ok"))
    assert raw("health_rps200")["options"]["rps"] == 200
    assert steady["rps"] == pytest.approx(200, rel=0.01)
    assert steady["lat_p99_ms"] < flat_out["lat_p99_ms"]


def test_refused_connections_are_connect_errors_with_no_latency() -> None:
    report, row = raw("connection_refused"), parse_ghz_json(text("connection_refused"))
    assert row["err_connect"] == row["count"] == 200
    assert (row["ok"], row["err_read"], row["non_ok"], row["non_2xx"]) == (0, 0, 0, 0)
    # ghz prints fastest = slowest = 0 and null distributions, and an average over the
    # failed calls: none of it is a latency.
    assert (report["fastest"], report["slowest"], report["latencyDistribution"]) == (0, 0, None)
    assert report["average"] > 0
    assert all(row[c] is None for c in LATENCY_COLUMNS)
    # ...and it still reports thousands of "calls per second".
    assert row["rps"] == pytest.approx(5873.6, abs=0.1)


def test_a_grpc_error_status_is_counted_as_non_ok_with_no_latency() -> None:
    row = parse_ghz_json(text("get_decision_not_found"))
    assert row["status_counts"] == {"NotFound": 200}
    assert row["non_ok"] == row["non_2xx"] == 200
    assert (row["ok"], row["err_connect"], row["err_timeout"]) == (0, 0, 0)
    assert all(row[c] is None for c in LATENCY_COLUMNS)


def test_ghz_exit_code_says_nothing_about_success() -> None:
    codes = exit_codes()
    assert set(codes) == set(SAMPLE_NAMES)
    assert set(codes.values()) == {0}
    ok = {name: parse_ghz_json(text(name))["ok"] for name in SAMPLE_NAMES}
    assert ok == {"health_ok": 2000, "health_rps200": 1000, "get_decision_not_found": 0,
                  "connection_refused": 0}  # fmt: skip


def partly_failed() -> dict:
    """health_ok with its last 10 calls turned into failures: 6 deadline exceeded, 4
    on a connection that closed (ghz's -z end of run, bojand/ghz#121). ghz's own
    latency fields are left as they were: only the counts and the mean are checked."""
    report = raw("health_ok")
    failed = report["details"][-10:]
    deadline = "rpc error: code = DeadlineExceeded desc = context deadline exceeded"
    closing = "rpc error: code = Unavailable desc = transport is closing"
    for i, d in enumerate(failed):
        d["status"], d["error"] = (
            ("DeadlineExceeded", deadline) if i < 6 else ("Unavailable", closing)
        )
    report["statusCodeDistribution"] = {"OK": 1990, "DeadlineExceeded": 6, "Unavailable": 4}
    report["errorDistribution"] = {deadline: 6, closing: 4}
    return report


def test_partial_failures_by_kind_and_the_mean_of_the_successful_calls() -> None:
    report = partly_failed()
    row = parse_ghz_json(json.dumps(report))
    assert (row["ok"], row["err_timeout"], row["err_read"], row["err_connect"]) == (1990, 6, 4, 0)
    assert row["non_ok"] == 0
    succeeded = [d["latency"] for d in report["details"] if not d["error"]]
    # ghz's average still holds the failed calls; the mean here is of the others.
    assert row["lat_mean_ms"] == pytest.approx(sum(succeeded) / len(succeeded) / 1e6)
    assert row["lat_mean_ms"] != report["average"] / 1e6


def test_without_details_what_only_they_give_is_none() -> None:
    report = partly_failed()
    del report["details"]
    row = parse_ghz_json(json.dumps(report))
    assert row["lat_mean_ms"] is row["lat_stdev_ms"] is row["lat_p999_ms"] is None
    assert row["lat_p50_ms"] == report["latencyDistribution"][2]["latency"] / 1e6


def test_output_that_is_not_a_json_report_is_refused() -> None:
    with pytest.raises(GhzError, match="-O json"):
        parse_ghz_json("Summary:\n  Count:\t2000\n")
    with pytest.raises(GhzError, match=r"lacks \['latencyDistribution'\]"):
        report = raw("health_ok")
        del report["latencyDistribution"]
        parse_ghz_json(json.dumps(report))


def test_status_counts_that_do_not_add_up_are_refused() -> None:
    report = raw("health_ok")
    report["statusCodeDistribution"] = {"OK": 1999}
    with pytest.raises(GhzError, match="add up to 1999, not to its count of 2000"):
        parse_ghz_json(json.dumps(report))
