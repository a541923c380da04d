"""The bombardier parser and tool, on real bombardier v1.2.6 output
(tests/samples/bombardier/capture.sh; its README says what each sample shows).

Each sample's JSON report is checked against bombardier's own plain-text report of the
same run (``NAME.txt``), and hello_hist's against its whole latency histogram.
"""

import json
import math
import re

import pytest
from conftest import SAMPLES, descendants

from benchbook.measure.registry import Registry, Target
from benchbook.measure.servers import build_server, free_port, start_server
from benchbook.measure.tools import TOOLS
from benchbook.measure.tools.base import LoadPlan, LoadRequest, get_plan
from benchbook.measure.tools.bombardier import (
    ATTEMPTS,
    ERRORS,
    Bombardier,
    BombardierError,
    BombardierLoad,
    bombardier_command,
    loads,
    parse_bombardier_json,
    single_request,
)

BOMBARDIER = SAMPLES / "bombardier"
TEXT_SAMPLES = ["hello_c50", "not_found", "refused", "timeouts"]
ANSWERED = ["hello_c50", "not_found"]
LATENCY_COLUMNS = ["lat_mean_ms", "lat_stdev_ms", "lat_p50_ms", "lat_p75_ms", "lat_p90_ms",
                   "lat_p99_ms", "lat_p999_ms", "lat_max_ms"]  # fmt: skip
ERROR_COLUMNS = ["err_connect", "err_read", "err_write", "err_timeout"]


def text(name: str) -> str:
    return (BOMBARDIER / f"{name}.json").read_text()


def report(name: str) -> dict:
    return json.loads(text(name))["result"]


def printed(name: str) -> dict:
    """bombardier's plain-text report of the same run: latencies (value, unit) by label,
    status counts by class, errors by message."""
    lines = (BOMBARDIER / f"{name}.txt").read_text().splitlines()
    found: dict = {"latency": {}, "codes": {}, "errors": {}}
    for line in lines:
        if line.startswith("  Latency  "):
            mean, stdev, high = line.split()[1:]
            found["latency"] |= {"mean": mean, "stdev": stdev, "max": high}
        elif match := re.fullmatch(r"\s+(\d+)% +(\S+)", line):
            found["latency"][match[1]] = match[2]
        elif "1xx - " in line or "others - " in line:
            pairs = (pair.split(" - ") for pair in line.strip().split(", "))
            found["codes"] |= {code: int(n) for code, n in pairs}
    if "  Errors:" in lines:
        for line in lines[lines.index("  Errors:") + 1 :]:
            if line.startswith("  Throughput:"):
                break
            message, count = line.strip().rsplit(" - ", 1)
            found["errors"][message] = int(count)
    return found


def ms(value: str) -> tuple[float, float]:
    """A latency as bombardier prints it ('325.00us', '1.05ms', '1.2s') in ms, and half
    its last printed digit (the rounding it may hide)."""
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    return float(number) * scale, 0.005 * scale


@pytest.mark.parametrize("name", TEXT_SAMPLES)
def test_totals_agree_with_bombardiers_text(name: str) -> None:
    row, raw, shown = parse_bombardier_json(text(name)), report(name), printed(name)
    assert row["requests"] == sum(shown["codes"].values()) > 0
    assert row["non_2xx"] == shown["codes"]["4xx"] + shown["codes"]["5xx"]
    assert sum(row[c] for c in ERROR_COLUMNS) == sum(shown["errors"].values())
    assert row["duration_s"] == raw["timeTakenSeconds"]
    assert row["rps"] == pytest.approx(row["requests"] / row["duration_s"])
    assert row["bytes_per_s"] == pytest.approx(raw["bytesRead"] / raw["timeTakenSeconds"])


@pytest.mark.parametrize("name", ANSWERED)
def test_latencies_in_milliseconds_agree_with_bombardiers_text(name: str) -> None:
    row, shown = parse_bombardier_json(text(name)), printed(name)["latency"]
    columns = {"mean": "lat_mean_ms", "max": "lat_max_ms", "50": "lat_p50_ms",
               "75": "lat_p75_ms", "90": "lat_p90_ms", "99": "lat_p99_ms"}  # fmt: skip
    for label, column in columns.items():
        value, rounding = ms(shown[label])
        assert row[column] == pytest.approx(value, abs=rounding * 1.001), column
    assert row["lat_p99_ms"] <= row["lat_p999_ms"] <= row["lat_max_ms"]
    # The JSON is in whole µs: the median of a sub-ms server is well under 10 ms.
    assert 0.01 < row["lat_p50_ms"] < 10
    # Its "stddev" (printed as Stdev) is no standard deviation: not used.
    value, rounding = ms(shown["stdev"])
    assert report(name)["latency"]["stddev"] / 1000 == pytest.approx(value, abs=rounding * 1.001)
    assert row["lat_stdev_ms"] is None


def test_the_histogram_is_what_bombardier_summarises() -> None:
    """hello_hist: bombardier's whole latency histogram beside its report of the run."""
    raw = report("hello_hist")
    counts = {}
    for line in (BOMBARDIER / "hello_hist.hist.txt").read_text().splitlines():
        value, count = map(int, line.split())
        counts[value] = count
    n = sum(counts.values())
    assert n == parse_bombardier_json(text("hello_hist"))["requests"]
    mean = sum(v * c for v, c in counts.items()) / n
    assert raw["latency"]["mean"] == pytest.approx(mean, rel=1e-12)
    assert raw["latency"]["max"] == max(counts)
    ordered = sorted(counts)
    for key, share in (("50", 0.5), ("90", 0.9), ("99", 0.99), ("99.9", 0.999)):
        rank, seen = int(share * n + 0.5), 0
        nearest = next(v for v in ordered if (seen := seen + counts[v]) >= rank)
        assert raw["latency"]["percentiles"][key] == nearest, key
    true_sd = math.sqrt(sum(c * (v - mean) ** 2 for v, c in counts.items()) / n)
    once_per_value = math.sqrt(sum((v - mean) ** 2 for v in counts) / n)
    assert raw["latency"]["stddev"] == pytest.approx(once_per_value, rel=1e-9)
    assert raw["latency"]["stddev"] < 0.9 * true_sd


def test_stock_json_has_no_p999() -> None:
    row = parse_bombardier_json(text("hello_c50_stock"))
    assert "99.9" not in report("hello_c50_stock")["latency"]["percentiles"]
    assert row["lat_p999_ms"] is None and row["lat_stdev_ms"] is None
    assert row["lat_p50_ms"] <= row["lat_p90_ms"] <= row["lat_p99_ms"] <= row["lat_max_ms"]
    assert row["requests"] == report("hello_c50_stock")["req2xx"] and row["non_2xx"] == 0


def test_every_404_is_non_2xx_and_keeps_its_latency() -> None:
    row = parse_bombardier_json(text("not_found"))
    assert row["non_2xx"] == row["requests"] == report("not_found")["req4xx"] > 0
    assert all(row[c] == 0 for c in ERROR_COLUMNS)
    assert row["lat_p50_ms"] == report("not_found")["latency"]["percentiles"]["50"] / 1000


def test_refused_connections_are_connect_errors_with_no_latency() -> None:
    row, raw = parse_bombardier_json(text("refused")), report("refused")
    assert row["err_connect"] == row["requests"] == raw["others"] > 0
    assert row["err_timeout"] == row["err_read"] == row["err_write"] == row["non_2xx"] == 0
    assert row["bytes_per_s"] == 0
    # bombardier timed the failed dials: that is no response time.
    assert raw["latency"]["mean"] > 0
    assert all(row[c] is None for c in LATENCY_COLUMNS)


def test_timeouts_took_every_attempt_and_leave_no_latency() -> None:
    row, raw = parse_bombardier_json(text("timeouts")), report("timeouts")
    assert row["err_timeout"] == row["requests"] == raw["others"] > 0
    assert all(row[c] is None for c in LATENCY_COLUMNS)
    spec = json.loads(text("timeouts"))["spec"]
    # Each request was sent ATTEMPTS times (fasthttp retries a GET), each attempt
    # abandoned after --timeout.
    host = spec["url"].removeprefix("http://").removesuffix("/")
    one_attempt = len(f"GET / HTTP/1.1\r\nHost: {host}\r\nUser-Agent: fasthttp\r\n\r\n")
    assert raw["bytesWritten"] == row["requests"] * ATTEMPTS * one_attempt
    attempts_us = ATTEMPTS * spec["timeoutSeconds"] * 1e6
    assert attempts_us <= raw["latency"]["mean"] < 1.1 * attempts_us


def test_error_messages_are_classified_or_refused() -> None:
    assert ERRORS.kind("dial tcp 127.0.0.1:1: connect: connection refused") == "err_connect"
    assert ERRORS.kind("timeout") == "err_timeout"
    assert ERRORS.kind("dialing to the given TCP address timed out") == "err_timeout"
    assert ERRORS.kind("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer") == (
        "err_read"
    )
    assert ERRORS.kind("write tcp 127.0.0.1:1->127.0.0.1:2: write: broken pipe") == "err_write"
    closed = "the server closed connection before returning the first response byte. …"
    assert ERRORS.kind(closed) == "err_read"
    with pytest.raises(BombardierError, match="cannot classify"):
        ERRORS.kind("something odd happened")


def test_foreign_or_broken_output_is_refused() -> None:
    with pytest.raises(BombardierError, match="not JSON"):
        parse_bombardier_json((BOMBARDIER / "hello_c50.txt").read_text())
    with pytest.raises(BombardierError, match="no 'result'"):
        parse_bombardier_json('{"spec": {}}')
    report_ = json.loads(text("refused"))
    empty = report_ | {"result": report_["result"] | {"others": 0, "errors": []}}
    with pytest.raises(BombardierError, match="no request"):
        parse_bombardier_json(json.dumps(empty))
    short = report_ | {"result": report_["result"] | {"others": 10}}
    with pytest.raises(BombardierError, match="45691 errors but counts only 10"):
        parse_bombardier_json(json.dumps(short))
    answered = json.loads(text("hello_c50"))
    del answered["result"]["latency"]["percentiles"]
    with pytest.raises(BombardierError, match="-l"):
        parse_bombardier_json(json.dumps(answered))


# --- the load, the plan, the command ------------------------------------------------


def test_only_one_fixed_request_is_sent() -> None:
    get = LoadRequest("home", "GET", "/")
    retrieve = LoadRequest("retrieve", "GET", "/r/{id}", ids=("a", "b"))
    create = LoadRequest("create", "POST", "/r", body='{"url": "{unique}"}')
    plans = {
        "mix of 2 requests (home, create)": LoadPlan((get, create)),
        "takes a different record id": LoadPlan((retrieve,)),
        "{unique} value": LoadPlan((create,)),
        "keeps the bodies of 201": LoadPlan((get,), capture_status=201),
        "uses TRACE": LoadPlan((LoadRequest("trace", "TRACE", "/"),)),
    }
    for why, plan in plans.items():
        with pytest.raises(ValueError, match="use wrk or Locust") as refused:
            single_request(plan)
        assert why in str(refused.value)
    assert single_request(LoadPlan((get,))) is get


def test_a_refused_plan_or_host_starts_nothing(tmp_path) -> None:
    tool = Bombardier(BombardierLoad.from_params(2, "1s", "1s"))
    mix = LoadPlan((LoadRequest("a", "GET", "/a"), LoadRequest("b", "GET", "/b")))
    with pytest.raises(ValueError, match="mix"):
        tool.run(f"http://127.0.0.1:{free_port()}", mix, tmp_path / "mix", None)
    with pytest.raises(ValueError, match=r"sends requests only to loopback \(127.0.0.1\)"):
        tool.run("http://example.com", get_plan("/"), tmp_path / "away", None)
    assert list(tmp_path.iterdir()) == []


def test_the_command_sends_method_headers_and_body(tmp_path) -> None:
    request = LoadRequest("create", "POST", "/r", headers={"Content-Type": "application/json"},
                          body='{"url": "https://example.org"}')  # fmt: skip
    load = BombardierLoad.from_params(8, "3s", "500ms")
    argv = bombardier_command("http://127.0.0.1:9/r", request, load, 1.5, tmp_path / "t")
    joined = " ".join(argv[1:])
    assert "-c 8 -d 1500ms --timeout 500ms -l -p r -o path:" in joined
    assert argv[-1] == "http://127.0.0.1:9/r"
    for option, value in (("-m", "POST"), ("-H", "Content-Type: application/json"),
                          ("-b", '{"url": "https://example.org"}')):  # fmt: skip
        assert argv[argv.index(option) + 1] == value


def test_loads_are_checked_with_clear_messages() -> None:
    assert [t.slug for t in loads("10,100", "2s")] == ["c10", "c100"]
    assert [t.load.connections for t in loads([5, "6"], 3)] == [5, 6]
    (one,) = loads(50, "1500ms", timeout="250ms")
    assert one.load == BombardierLoad(50, 1.5, 0.25)
    assert one.row_fields() == {"connections": 50} and one.client_cores(2) == 2
    assert one.own_flags({}) == [] and one.closed_loop and one.setting == "bombardier"
    for settings, message in (
        ({"connections": 0, "duration": "2s"}, "connections: 0 is below the minimum of 1"),
        ({"connections": "ten", "duration": "2s"}, "connections: 'ten' is not a whole number"),
        ({"connections": 10, "duration": "500ms"}, "duration: 0.5 s; bombardier runs 1 s"),
        ({"connections": 10, "duration": "2x"}, "duration: '2x' is not a duration"),
        ({"connections": 10, "duration": "2s", "timeout": 0}, "timeout: 0 must be longer"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            loads(**settings)


def test_the_plug_in_table_finds_bombardier() -> None:
    entry = TOOLS["bombardier"]
    assert entry.make is loads and entry.version().startswith(
        "github.com/codesenberg/bombardier v1.2.6 (go"
    )
    assert entry.calibration.server == "go-hello"
    (full_speed,) = entry.calibration.loads("5s", **entry.calibration.defaults)
    assert full_speed.load.connections == 50 and full_speed.load.duration_s == 5


@pytest.mark.slow
def test_real_run_against_the_go_hello_server(tmp_path) -> None:
    spec = Registry.load().get("go-hello")
    build_server(spec)
    (tool,) = loads(10, "1s")
    raw_prefix = tmp_path / "raw" / f"bombardier_{tool.slug}"
    with start_server(
        spec, Target(spec.name), spec.resolve_params({}), tmp_path / "s.log"
    ) as server:
        run = tool.run(server.url, get_plan("/"), raw_prefix, None)
    row = run.measured
    assert run.raw_path == raw_prefix.with_name("bombardier_c10.json")
    assert parse_bombardier_json(run.raw_path.read_text()) == row
    assert f"-c 10 -d 1000ms --timeout 2000ms -l -p r -o path:{raw_prefix}.tmpl" in (
        raw_prefix.with_name("bombardier_c10.log").read_text()
    )
    assert 0.9 < row["duration_s"] < 1.5 and 0.9 < run.wall_s < 5 and run.client_cpu_s > 0
    assert row["requests"] > 500 and row["non_2xx"] == 0
    assert all(row[c] == 0 for c in ERROR_COLUMNS)
    assert 0 < row["lat_p50_ms"] <= row["lat_p90_ms"] <= row["lat_p99_ms"] <= row["lat_p999_ms"]
    assert row["lat_p999_ms"] <= row["lat_max_ms"] < 2000
    # A closed loop of 10 connections: Little's law, rps × mean latency ≈ 10 in flight.
    assert row["rps"] * row["lat_mean_ms"] / 1000 == pytest.approx(10, rel=0.2)
    assert descendants() == []
