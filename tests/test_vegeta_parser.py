"""The vegeta parsers, on real vegeta v12.12.0 output (tests/samples/vegeta/capture.sh;
its README says what each sample shows).

Each sample's JSON report is checked against vegeta's own text report of the same
results (``NAME.txt``), and the per-request CSV of freeze_200rps against its JSON
report and its histogram.
"""

import json
import re

import pandas as pd
import pytest
from conftest import SAMPLES

from benchbook.measure.tools.vegeta_output import (
    ERRORS,
    VegetaError,
    error_counts_from_records,
    parse_vegeta_csv,
    parse_vegeta_report,
    percentiles_from_records,
)

VEGETA = SAMPLES / "vegeta"
REPORTS = ["hello_2000rps", "freeze_1000rps", "freeze_1000rps_w50", "freeze_200rps",
           "shortfall", "refused", "not_found"]  # fmt: skip
LATENCY_COLUMNS = ["lat_mean_ms", "lat_stdev_ms", "lat_p50_ms", "lat_p75_ms", "lat_p90_ms",
                   "lat_p99_ms", "lat_p999_ms", "lat_max_ms"]  # fmt: skip
ERROR_COLUMNS = ["err_connect", "err_read", "err_write", "err_timeout"]


def report_text(name: str) -> str:
    return (VEGETA / f"{name}.json").read_text()


def text_report(name: str) -> dict[str, list[str]]:
    """vegeta's ``-type text`` report: label → its comma-separated values."""
    fields = {}
    for line in (VEGETA / f"{name}.txt").read_text().splitlines():
        match = re.match(r"(\w[\w ]*?)\s+\[[^]]*\]\s+(.*)", line)
        if match:
            fields[match[1]] = [v.strip() for v in match[2].split(",")]
    return fields


def ms(duration: str) -> float:
    """A Go duration as printed ('1.991s', '244.487µs', '1m2s') in milliseconds."""
    scale = {"h": 3.6e6, "m": 6e4, "s": 1e3, "ms": 1.0, "µs": 1e-3, "ns": 1e-6}
    parts = re.findall(r"([\d.]+)(ms|µs|ns|h|m|s)", duration)
    assert "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * scale[u] for n, u in parts)


@pytest.mark.parametrize("name", REPORTS)
def test_totals_agree_with_vegetas_text_report(name: str) -> None:
    row, printed = parse_vegeta_report(report_text(name)), text_report(name)
    total, rate, throughput = printed["Requests"]
    assert row["requests"] == int(total)
    assert row["achieved_rate"] == pytest.approx(float(rate), abs=0.005)
    assert row["throughput"] == pytest.approx(float(throughput), abs=0.005)
    assert row["duration_s"] * 1e3 == pytest.approx(ms(printed["Duration"][0]), rel=1e-3)
    assert row["rps"] == pytest.approx(row["requests"] / row["duration_s"])
    codes = dict(pair.split(":") for pair in printed["Status Codes"][0].split())
    assert row["status_counts"] == {int(code): int(n) for code, n in codes.items()}
    histogram = (VEGETA / f"{name}.hist.txt").read_text().splitlines()[1:]
    assert sum(int(line.split("]")[1].split()[0]) for line in histogram) == row["requests"]


@pytest.mark.parametrize("name", [n for n in REPORTS if n != "refused"])
def test_latencies_in_milliseconds_agree_with_vegetas_text_report(name: str) -> None:
    row, printed = parse_vegeta_report(report_text(name)), text_report(name)
    _, mean, p50, p90, _, p99, high = (ms(v) for v in printed["Latencies"])
    for column, value in (("lat_mean_ms", mean), ("lat_p50_ms", p50), ("lat_p90_ms", p90),
                          ("lat_p99_ms", p99), ("lat_max_ms", high)):  # fmt: skip
        assert row[column] == pytest.approx(value, rel=1e-3), column
    # vegeta reports no p75, p99.9 or standard deviation: none is made up.
    assert row["lat_p75_ms"] is row["lat_p999_ms"] is row["lat_stdev_ms"] is None


@pytest.mark.parametrize("name", ["hello_2000rps", "freeze_1000rps", "freeze_200rps"])
def test_a_sustained_rate_has_all_requests_ok(name: str) -> None:
    row = parse_vegeta_report(report_text(name))
    assert row["non_2xx"] == 0 and all(row[c] == 0 for c in ERROR_COLUMNS)
    assert row["throughput"] == pytest.approx(row["rps"])  # every response a success


def test_a_shortfall_shows_only_in_the_request_count() -> None:
    row = parse_vegeta_report(report_text("shortfall"))
    asked_rate, asked_s = 200_000, 2  # -rate 200000/s -duration 2s
    assert row["requests"] < 0.15 * asked_rate * asked_s
    assert row["achieved_rate"] == pytest.approx(row["requests"] / 2, rel=0.01)
    assert row["non_2xx"] == 0 and all(row[c] == 0 for c in ERROR_COLUMNS)


def test_refused_connections_are_connect_errors_with_no_latency() -> None:
    report = json.loads(report_text("refused"))
    row = parse_vegeta_report(report_text("refused"))
    assert row["status_counts"] == {0: 100}
    assert row["err_connect"] == row["requests"] == 100
    assert row["err_timeout"] == row["err_read"] == row["non_2xx"] == 0
    assert row["throughput"] == 0
    # vegeta timed the failed dials (mean 0.34 ms): that is no response time.
    assert report["latencies"]["mean"] > 0
    assert all(row[c] is None for c in LATENCY_COLUMNS)


def test_every_404_is_non_2xx_and_keeps_its_latency() -> None:
    row = parse_vegeta_report(report_text("not_found"))
    assert row["non_2xx"] == row["requests"] == 200
    assert all(row[c] == 0 for c in ERROR_COLUMNS)
    assert row["throughput"] == 0
    assert row["lat_p50_ms"] == pytest.approx(1.274663)  # a 404 is a real response
    assert row["bytes_per_s"] == pytest.approx(67000 / row["duration_s"])


def test_too_few_workers_hide_the_stall_again() -> None:
    enough = parse_vegeta_report(report_text("freeze_1000rps"))
    too_few = parse_vegeta_report(report_text("freeze_1000rps_w50"))
    assert enough["lat_p90_ms"] > 100
    assert too_few["lat_p90_ms"] < 2


def test_status_0_of_several_kinds_is_not_split_by_guessing() -> None:
    report = json.loads(report_text("refused"))
    report["errors"].append('Get "http://127.0.0.1:46025/": context deadline exceeded '
                            "(Client.Timeout exceeded while awaiting headers)")  # fmt: skip
    with pytest.raises(VegetaError, match="error_counts_from_records"):
        parse_vegeta_report(json.dumps(report))


def test_unknown_errors_and_foreign_output_are_refused() -> None:
    with pytest.raises(VegetaError, match="cannot classify"):
        ERRORS.kind("something odd happened")
    assert ERRORS.kind("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer") == (
        "err_read"
    )
    # The cause decides, not the URL before it.
    assert ERRORS.kind('Get "http://127.0.0.1:1/timeout": EOF') == "err_read"
    with pytest.raises(VegetaError, match="report -type json"):
        parse_vegeta_report((VEGETA / "refused.txt").read_text())
    with pytest.raises(VegetaError, match="no request"):
        parse_vegeta_report(json.dumps(json.loads(report_text("refused")) | {"requests": 0}))


# --- per-request records ------------------------------------------------------------


@pytest.fixture(scope="module")
def records() -> pd.DataFrame:
    return parse_vegeta_csv((VEGETA / "freeze_200rps.csv").read_text())


def test_records_match_the_report_of_the_same_results(records: pd.DataFrame) -> None:
    report = json.loads(report_text("freeze_200rps"))
    assert len(records) == report["requests"] == 400
    # In the order the replies came back, not the order sent: a request that waited
    # out a pause is written after those sent behind it.
    assert sorted(records["seq"]) == list(range(400))
    assert not records["seq"].is_monotonic_increasing
    assert (records["code"] == 200).all() and (records["error"] == "").all()
    assert records["bytes_in"].sum() == report["bytes_in"]["total"]
    assert records["latency_ns"].sum() == report["latencies"]["total"]
    assert records["latency_ns"].min() == report["latencies"]["min"]
    assert records["latency_ns"].max() == report["latencies"]["max"]
    assert records["timestamp"].min() == pd.Timestamp(report["earliest"])
    assert records["timestamp"].max() == pd.Timestamp(report["latest"])
    first = (VEGETA / "freeze_200rps.csv").read_text().splitlines()[0].split(",")
    assert records.loc[0, "latency_ms"] == int(first[2]) / 1e6


def test_records_fall_in_vegetas_histogram_buckets(records: pd.DataFrame) -> None:
    edges = [0, 1, 10, 50, 100, 150, 200, 250, float("inf")]  # ms, as captured
    counted = pd.cut(records["latency_ms"], edges, right=False).value_counts(sort=False)
    rows = (VEGETA / "freeze_200rps.hist.txt").read_text().splitlines()[1:]
    assert list(counted) == [int(row.split("]")[1].split()[0]) for row in rows]


def test_exact_percentiles_agree_with_vegetas_t_digest(records: pd.DataFrame) -> None:
    """vegeta's percentiles are t-digest estimates (compression 100): a centroid near
    quantile q merges at most about 4·n·q(1-q)/100 requests (4 of these 400 at the
    median, fewer in the tail) and vegeta interpolates between neighbouring centroids,
    so its estimate lies between the exact percentiles one such centroid away: within
    q ± 1 % in rank. A tolerance in rank, not in milliseconds: around p90 this
    bimodal sample moves ~5 ms per request, at the median a few µs."""
    latencies = json.loads(report_text("freeze_200rps"))["latencies"]
    for key, share in (("50th", 0.5), ("90th", 0.9), ("95th", 0.95), ("99th", 0.99)):
        low, exact, high = percentiles_from_records(
            records, (share - 0.01, share, min(1.0, share + 0.01))
        ).values()
        vegetas = latencies[key] / 1e6
        assert low <= vegetas <= high, key
        assert abs(vegetas - exact) <= high - low
    assert records["latency_ms"].mean() == pytest.approx(latencies["mean"] / 1e6, abs=1e-6)


def test_records_fill_in_the_percentiles_vegeta_does_not_report(records: pd.DataFrame) -> None:
    exact = percentiles_from_records(records)
    assert list(exact) == ["lat_p50_ms", "lat_p75_ms", "lat_p90_ms", "lat_p99_ms", "lat_p999_ms"]
    ordered = sorted(records["latency_ns"])
    assert exact["lat_p75_ms"] == ordered[299] / 1e6  # rank ceil(0.75 * 400) = 300
    assert exact["lat_p999_ms"] == ordered[399] / 1e6  # rank 399.6 → 400: the max
    assert exact["lat_p50_ms"] < exact["lat_p75_ms"] < exact["lat_p90_ms"]


def test_error_counts_from_records_split_what_the_report_cannot(records: pd.DataFrame) -> None:
    refused = json.loads(report_text("refused"))["errors"][0]
    timed_out = ('Get "http://127.0.0.1:55539/": context deadline exceeded '
                 "(Client.Timeout exceeded while awaiting headers)")  # fmt: skip
    mixed = records.copy()
    mixed.loc[:2, ["code", "error"]] = [0, refused]
    mixed.loc[3:4, ["code", "error"]] = [0, timed_out]
    mixed.loc[5, ["code", "error"]] = [503, "503 Service Unavailable"]
    assert error_counts_from_records(mixed) == {
        "err_timeout": 2, "err_connect": 3, "err_write": 0, "err_read": 0, "non_2xx": 1,
    }  # fmt: skip
    assert error_counts_from_records(records) == dict.fromkeys(
        ["err_timeout", "err_connect", "err_write", "err_read", "non_2xx"], 0
    )


def test_malformed_csv_is_refused() -> None:
    lines = (VEGETA / "freeze_200rps.csv").read_text().splitlines()
    short = "\n".join([lines[0], ",".join(lines[1].split(",")[:6])])
    with pytest.raises(VegetaError, match="line 2 is not a result of 12 fields"):
        parse_vegeta_csv(short)
    with pytest.raises(VegetaError, match="no request"):
        parse_vegeta_csv("")
    with pytest.raises(VegetaError, match="line 1"):
        parse_vegeta_csv(lines[0].replace(",200,", ",OK,", 1))
