"""The `go test -bench` parser, on output captured from real runs of the seed-001 Go
client benchmarks (tests/samples/gobench/capture.sh; its README says what each shows).

Parsed values are checked against the raw lines and against benchstat's own summary
of the same file, which reads the output independently of us.
"""

import re
import statistics
from collections import defaultdict

import pytest
from conftest import SAMPLES

from benchbook.measure.tools.gobench import GoBenchError, metric_column, parse_gobench, tidy_rows

GOBENCH = SAMPLES / "gobench"
PASSING = [
    "python_backends",
    "go_backends",
    "article_style_not_found",
    "article_style_not_found_nodelay",
]
OPS = ["HealthCheck", "CreateSession", "ListPendingDecisions", "GetDecision",
       "ApproveDecision", "RejectDecision", "EscalateDecision", "GetMetrics", "GetSessionStats",
       "CloseSession"]  # fmt: skip


def sample(name: str) -> str:
    return (GOBENCH / f"{name}.txt").read_text()


def raw_result_lines(text: str) -> list[list[str]]:
    """The result lines as whitespace-separated fields, read without the parser."""
    return [line.split() for line in text.splitlines() if re.match(r"Benchmark\S+\s+\d+\s", line)]


@pytest.mark.parametrize("name", PASSING)
def test_every_result_line_is_parsed_with_the_numbers_it_prints(name: str) -> None:
    text = sample(name)
    results = parse_gobench(text)
    raw = raw_result_lines(text)
    assert len(results) == len(raw) > 0
    for result, fields in zip(results, raw, strict=True):
        assert "Benchmark" + result.name == fields[0]
        assert result.iterations == int(fields[1])
        pairs = dict(zip(fields[3::2], fields[2::2], strict=True))
        assert result.ns_per_op == float(pairs.pop("ns/op"))
        assert result.bytes_per_op == int(pairs.pop("B/op"))
        assert result.allocs_per_op == int(pairs.pop("allocs/op"))
        assert result.metrics == {unit: float(value) for unit, value in pairs.items()}
        assert result.config == {
            "goos": "linux",
            "goarch": "amd64",
            "pkg": "benchbook/servers/governance/bench",
            "cpu": "AMD EPYC",
        }


def test_one_line_read_by_hand() -> None:
    first = parse_gobench(sample("article_style_not_found"))[0]
    # BenchmarkArticleStyle/http/HealthCheck-2  282  928511 ns/op  1.000 errors/op
    #   16087 B/op  105 allocs/op
    assert (first.benchmark, first.sub, first.procs) == ("ArticleStyle", ("http", "HealthCheck"), 2)
    assert (first.iterations, first.ns_per_op) == (282, 928511.0)
    assert (first.bytes_per_op, first.allocs_per_op) == (16087, 105)
    assert first.metrics == {"errors/op": 1.0}
    # Its "--- BENCH:" log: seven failures, the article's loop only logging them.
    assert len(first.log) == 7
    assert (
        first.log[0] == "bench_test.go:297: HealthCheck failed: GET /health: status 404, want 200"
    )


def benchstat_table(name: str, unit: str) -> dict[str, str]:
    """benchstat's centre column (the median) for ``unit`` ('sec/op', 'B/op', 'allocs/op')."""
    text = (GOBENCH / f"{name}.benchstat.txt").read_text()
    block = re.split(rf"│\s+{unit}\s+│", text)[1].split("geomean")[0]
    rows = re.findall(r"^(\S+)\s+([\d.]+\S*) ±", block, flags=re.M)
    return dict(rows)


def si(value: str) -> float:
    """benchstat's '175.30µ' (seconds), '5.485Ki' (bytes), '67.00' as a plain number."""
    number, prefix = re.fullmatch(r"([\d.]+)(\D*)", value).groups()
    scale = {"": 1, "n": 1e-9, "µ": 1e-6, "m": 1e-3, "Ki": 1024, "Mi": 1024**2}[prefix]
    return float(number) * scale


def test_medians_agree_with_benchstats_summary_of_the_same_output() -> None:
    rows = tidy_rows(parse_gobench(sample("python_backends")))
    by_name: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_name[row["name"]].append(row)
    for unit, column, scale in (
        ("sec/op", "ns_per_op", 1e-9),
        ("B/op", "bytes_per_op", 1),
        ("allocs/op", "allocs_per_op", 1),
    ):
        table = benchstat_table("python_backends", unit)
        assert set(table) == set(by_name)
        for name, printed in table.items():
            median = statistics.median(r[column] for r in by_name[name]) * scale
            # benchstat prints four significant digits: off by at most 5e-4
            assert median == pytest.approx(si(printed), rel=1e-3), (name, unit)


@pytest.mark.parametrize("name", ["python_backends", "go_backends"])
def test_tidy_rows_name_the_parts_and_count_repetitions(name: str) -> None:
    rows = tidy_rows(parse_gobench(sample(name)))
    names = {r["name"] for r in rows}
    expected = (
        {f"Ops/{t}/{op}-2" for t in ("http", "grpc") for op in OPS}
        | {f"ParallelHealth/{t}/p{p}-2" for t in ("http", "grpc") for p in (1, 4, 16)}
        | {"FirstCall/http-2", "FirstCall/grpc-2"}
    )
    assert names == expected
    for n in names:  # -count 6: repetitions 1..6 in print order
        assert [r["repetition"] for r in rows if r["name"] == n] == [1, 2, 3, 4, 5, 6]
    parallel = next(r for r in rows if r["name"] == "ParallelHealth/grpc/p16-2")
    assert (parallel["benchmark"], parallel["transport"], parallel["operation"]) == (
        "ParallelHealth",
        "grpc",
        "p16",
    )
    assert parallel["procs"] == 2
    first_call = next(r for r in rows if r["name"] == "FirstCall/http-2")
    assert (first_call["transport"], first_call["operation"]) == ("http", None)
    assert set(first_call) == {
        "pkg", "name", "benchmark", "transport", "operation", "procs", "repetition",
        "iterations", "ns_per_op", "bytes_per_op", "allocs_per_op",
    }  # fmt: skip


def test_the_articles_loop_passes_with_every_http_call_failed() -> None:
    rows = tidy_rows(parse_gobench(sample("article_style_not_found")))
    http = [r for r in rows if r["transport"] == "http"]
    grpc = [r for r in rows if r["transport"] == "grpc"]
    # HTTP operations whose setup failed skipped silently: only two have lines.
    assert {r["operation"] for r in http} == {"HealthCheck", "CreateSession"}
    assert {r["operation"] for r in grpc} == set(OPS)
    assert all(r["errors_per_op"] == 1.0 for r in http)
    assert all(r["errors_per_op"] == 0.0 for r in grpc)

    # The article's "HTTP is 106x slower": 44 ms per failed call (README: 44.2 ms).
    def median_ms(rows: list[dict]) -> float:
        return (
            statistics.median(r["ns_per_op"] for r in rows if r["operation"] == "CreateSession")
            / 1e6
        )

    assert median_ms(http) == pytest.approx(44.2, abs=0.1)
    assert median_ms(grpc) == pytest.approx(0.64, abs=0.01)


def test_with_tcp_nodelay_the_failing_call_takes_a_fraction_of_a_millisecond() -> None:
    rows = tidy_rows(parse_gobench(sample("article_style_not_found_nodelay")))
    assert {r["transport"] for r in rows} == {"http"}  # no gRPC address given
    create = [r["ns_per_op"] for r in rows if r["operation"] == "CreateSession"]
    assert statistics.median(create) / 1e6 == pytest.approx(0.17, abs=0.01)


def test_a_failed_benchmark_is_refused_with_its_name_and_message() -> None:
    with pytest.raises(GoBenchError) as caught:
        parse_gobench(sample("ops_not_found_fails"))
    message = str(caught.value)
    assert "BenchmarkOps/http/HealthCheck: bench_test.go:189: HealthCheck iteration 0" in message
    assert "status 404, want 200" in message
    assert "BenchmarkOps/http/CreateSession" in message
    # The parents that only fail with their children are not listed as causes.
    assert "BenchmarkOps/http:" not in message


def test_fail_without_a_named_benchmark_is_refused() -> None:
    text = sample("go_backends").replace("PASS\nok  \t", "panic: boom\nFAIL\t")
    with pytest.raises(GoBenchError, match="reported FAIL"):
        parse_gobench(text)


def test_output_that_did_not_finish_is_refused() -> None:
    text = sample("go_backends")
    cut = text[: text.index("PASS\n")]  # killed before go test printed its verdict
    with pytest.raises(GoBenchError, match="did not finish"):
        parse_gobench(cut)


@pytest.mark.parametrize("name", ["python_backends.benchstat", "python_vs_go.benchstat"])
def test_benchstat_tables_are_not_mistaken_for_go_test_output(name: str) -> None:
    with pytest.raises(GoBenchError, match="not go test -bench output"):
        parse_gobench(sample(name))


def test_a_passing_run_without_results_is_refused() -> None:
    header = "goos: linux\ngoarch: amd64\npkg: example\ncpu: AMD EPYC\n"
    with pytest.raises(GoBenchError, match="no benchmark result"):
        parse_gobench(header + "PASS\nok  \texample\t0.01s\n")


def test_a_malformed_result_line_is_refused() -> None:
    text = sample("go_backends").replace("allocs/op", "allocs/op\t12", 1)
    with pytest.raises(GoBenchError, match="line 5: a result without value-unit pairs"):
        parse_gobench(text)


def test_gomaxprocs_one_prints_no_suffix_and_custom_units_become_columns() -> None:
    text = (
        "pkg: example\n"
        "BenchmarkEncode/small \t 1000\t 1234 ns/op\t 81.00 MB/s\n"
        "BenchmarkEncode/small \t 1000\t 1200 ns/op\t 83.00 MB/s\n"
        "PASS\nok  \texample\t1.0s\n"
    )
    rows = tidy_rows(parse_gobench(text), sub_names=("size",))
    assert rows[1] == {
        "pkg": "example", "name": "Encode/small", "benchmark": "Encode", "size": "small",
        "procs": None, "repetition": 2, "iterations": 1000, "ns_per_op": 1200.0,
        "bytes_per_op": None, "allocs_per_op": None, "MB_per_s": 83.0,
    }  # fmt: skip
    assert metric_column("errors/op") == "errors_per_op"
