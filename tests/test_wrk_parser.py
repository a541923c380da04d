"""The wrk parser, on output captured from real wrk runs (tests/samples/capture_wrk.py).

Each sample holds both wrk's own human summary and our reporter's JSON line, so the
parsed numbers are checked against what wrk itself printed.
"""

import re

import pytest
from conftest import SAMPLES

from benchbook.runs.wrk_output import WrkOutputError, parse_wrk_output


def sample(name: str) -> str:
    return (SAMPLES / "wrk" / f"{name}.txt").read_text()


def wrk_summary(text: str, pattern: str) -> str:
    match = re.search(pattern, text)
    assert match, f"wrk's summary has no {pattern!r}"
    return match.group(1)


def ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


@pytest.mark.parametrize("name", ["normal", "python_asyncio", "non_2xx", "timeouts"])
def test_totals_match_wrks_own_summary(name: str) -> None:
    text = sample(name)
    row = parse_wrk_output(text)
    assert row["requests"] == int(wrk_summary(text, r"(\d+) requests in"))
    assert row["rps"] == pytest.approx(float(wrk_summary(text, r"Requests/sec:\s+([\d.]+)")), 1e-3)


@pytest.mark.parametrize("name", ["normal", "python_asyncio"])
def test_latency_in_milliseconds_matches_wrks_distribution(name: str) -> None:
    text = sample(name)
    row = parse_wrk_output(text)
    for pct, column in (("50", "lat_p50_ms"), ("99", "lat_p99_ms")):
        printed = ms(wrk_summary(text, rf"\s{pct}%\s+([\d.]+\w+)"))
        assert row[column] == pytest.approx(printed, abs=0.01)
    assert row["lat_mean_ms"] == pytest.approx(
        ms(wrk_summary(text, r"Latency\s+([\d.]+\w+)")), 0.01
    )
    assert row["lat_p50_ms"] <= row["lat_p99_ms"] <= row["lat_p999_ms"] <= row["lat_max_ms"]
    assert (row["err_timeout"], row["non_2xx"], row["err_connect"]) == (0, 0, 0)


def test_non_2xx_responses_are_counted_and_still_in_the_request_total() -> None:
    text = sample("non_2xx")
    row = parse_wrk_output(text)
    assert row["non_2xx"] == int(wrk_summary(text, r"Non-2xx or 3xx responses: (\d+)"))
    assert row["non_2xx"] == row["requests"] > 0


def test_timeouts_are_counted_and_leave_no_invented_latency() -> None:
    text = sample("timeouts")
    row = parse_wrk_output(text)
    assert row["err_timeout"] == int(wrk_summary(text, r"timeout (\d+)")) > 0
    # Every response was slower than --timeout, so wrk's histogram is empty: we report
    # no latency rather than the zeros wrk prints.
    assert row["lat_mean_ms"] is None and row["lat_p99_ms"] is None


def test_output_without_the_reporter_line_is_refused() -> None:
    text = "\n".join(line for line in sample("normal").splitlines() if "BENCHBOOK" not in line)
    with pytest.raises(WrkOutputError, match="wrk_report.lua"):
        parse_wrk_output(text)
