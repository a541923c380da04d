"""The Locust driver: parsing real captured output, and a real short run."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import SAMPLES, descendants

from benchbook import measure
from benchbook.measure.registry import Registry, Target
from benchbook.measure.servers import build_server, start_server
from benchbook.measure.tools.base import get_plan
from benchbook.measure.tools.locust import LocustLoad, run_locust, stats_path
from benchbook.measure.tools.locust_output import (
    FAILURES,
    LocustError,
    classify_failures,
    parse_locust_stats,
)
from benchbook.runs.columns import percentile_column
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.locust_output import (
    LocustOutputError,
    final_stats,
    json_arrays,
    per_second,
    percentile_table,
)

LOCUST = SAMPLES / "locust"


def entries(name: str) -> list[dict]:
    """Final statistics of a sample: --json-file's content, or for the --processes run
    (whose file a worker's empty array overwrote) the master's array on stdout."""
    if name == "processes":
        return final_stats((LOCUST / "processes.stdout.txt").read_text())
    return json.loads((LOCUST / f"{name}.json").read_text())


def test_totals_come_from_the_json_not_the_undercounting_csv() -> None:
    row = parse_locust_stats(entries("all_ok"))
    (e,) = entries("all_ok")
    assert row["requests"] == e["num_requests"]
    assert row["rps"] == pytest.approx(
        e["num_requests"] / (e["last_request_timestamp"] - e["start_time"])
    )
    with open(LOCUST / "all_ok_stats.csv", newline="") as f:
        counted = next(r for r in csv.DictReader(f) if r["Name"] == "Aggregated")
    assert int(counted["Request Count"]) < row["requests"]  # the CSV missed the tail


def locusts_percentiles(entry: dict, shares: list[float]) -> list[float]:
    """Locust's own calculate_response_time_percentile, asked in a subprocess: importing
    locust here would let gevent monkey-patch the whole test run."""
    code = (
        "import json, sys\n"
        "from locust.stats import calculate_response_time_percentile as pct\n"
        "e, shares = json.load(sys.stdin)\n"
        "times = {int(k): v for k, v in e['response_times'].items()}\n"
        "print(json.dumps([pct(times, e['num_requests'], s) for s in shares]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps([entry, shares]),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", ["all_ok", "failures", "processes"])
def test_percentiles_agree_with_locusts_own_function(name: str) -> None:
    row = parse_locust_stats(entries(name))
    (e,) = entries(name)
    assert [row["lat_p50_ms"], row["lat_p99_ms"]] == locusts_percentiles(e, [0.5, 0.99])
    assert row["lat_p50_ms"] <= row["lat_p99_ms"] <= row["lat_max_ms"] + 1


def test_http_errors_are_classified_as_non_2xx() -> None:
    (e,) = entries("failures")
    with open(LOCUST / "failures_failures.csv", newline="") as f:
        listed = sum(int(r["Occurrences"]) for r in csv.DictReader(f))
    assert listed < e["num_failures"]  # the failures CSV undercounts too
    kinds = classify_failures(LOCUST / "failures_failures.csv", e["num_failures"])
    assert kinds["non_2xx"] == e["num_failures"] == e["num_requests"] > 0  # every reply a 500
    assert kinds["err_connect"] == kinds["err_timeout"] == 0


def test_processes_print_one_array_each_and_the_master_holds_the_total() -> None:
    arrays = json_arrays((LOCUST / "processes.stdout.txt").read_text())
    assert len(arrays) == 3 and sum(1 for a in arrays if not a) == 2  # two workers, empty
    (aggregate,) = [a for a in arrays if a]
    assert (
        parse_locust_stats(aggregate)["requests"]
        == parse_locust_stats(entries("processes"))["requests"]
    )


def test_final_stats_refuse_to_guess(tmp_path) -> None:
    stdout = (LOCUST / "processes.stdout.txt").read_text()
    (master,) = [a for a in json_arrays(stdout) if a]
    twice = stdout + json.dumps(master)
    with pytest.raises(LocustOutputError, match="2 non-empty statistics arrays; expected one"):
        final_stats(twice)
    with pytest.raises(LocustOutputError, match="not only JSON statistics: at character 0"):
        final_stats("Traceback (most recent call last):\n" + stdout)
    with pytest.raises(LocustOutputError, match="not request statistics"):
        final_stats('[{"users": 10}]')


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("HTTPError('500 Server Error: Internal Server Error for url: /')", "non_2xx"),
        ("BadStatusCode('http://127.0.0.1:1/', code=503)", "non_2xx"),
        ("ConnectionRefusedError(111, 'Connection refused')", "err_connect"),
        ('ConnectionError(MaxRetryError("… NewConnectionError(…)"))', "err_connect"),
        ('ReadTimeout(ReadTimeoutError("… Read timed out. (read timeout=60)"))', "err_timeout"),
        ("RemoteDisconnected('Remote end closed connection without response')", "err_read"),
    ],
)
def test_failure_kinds(error: str, kind: str) -> None:
    assert FAILURES.kind(error) == kind


def test_an_unknown_failure_kind_is_named_not_filed_as_a_connect_error(tmp_path) -> None:
    failures = tmp_path / "x_failures.csv"
    failures.write_text("Method,Name,Error,Occurrences\nGET,/,UnicodeDecodeError('utf-8 …'),3\n")
    with pytest.raises(LocustError, match=r"cannot classify: \"UnicodeDecodeError"):
        classify_failures(failures, 3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"users": 0}, "users: 0 is below the minimum of 1"),
        ({"wait": "20-10ms"}, "the minimum is above the maximum"),
        ({"user_class": "GeventUser"}, "user_class: unknown 'GeventUser'; valid choices"),
        ({"spawn_rate": "fast"}, "spawn_rate: 'fast' is not a number"),
        ({"processes": 0}, "processes: 0 is below the minimum of 1"),
        ({"processes": 2, "workers": 2}, "choose one"),
        ({"workers": -1}, "workers: -1 is below the minimum of 0"),
    ],
)
def test_bad_locust_parameters(change, message) -> None:
    params = dict(users=10, spawn_rate=10, wait="10-20ms", duration="3s", user_class="HttpUser")
    with pytest.raises(ValueError, match=message):
        LocustLoad.from_params(**(params | change))


@pytest.mark.parametrize("wait", ["10-20ms", "10ms-20ms", "0.01-0.02s"])
def test_wait_text(wait: str) -> None:
    load = LocustLoad.from_params(10, 10, wait, "3s", "HttpUser")
    assert (load.wait_min_s, load.wait_max_s) == (0.01, 0.02)


def sample_as_run_output(name: str, tmp_path: Path) -> Path:
    """A sample laid out as a run leaves it: <prefix>.json.txt beside its CSV files."""
    stats = stats_path(tmp_path / name)
    stats.write_text(json.dumps(entries(name)))
    history = (LOCUST / f"{name}_stats_history.csv").read_text()
    (tmp_path / f"{name}_stats_history.csv").write_text(history)
    return stats


@pytest.mark.parametrize("name", ["all_ok", "processes"])
def test_per_second_counts_every_request_once(name: str, tmp_path) -> None:
    series = per_second(sample_as_run_output(name, tmp_path))
    assert series["rps"].sum() == sum(e["num_requests"] for e in entries(name))
    assert list(series["t_s"]) == list(range(len(series)))  # one row per second, from 0
    assert series["users"].max() == 10  # the samples ran 10 users
    assert series["p95_ms"].notna().any()


def test_percentile_columns_are_named_like_the_tidy_rows() -> None:
    assert [percentile_column(s) for s in (0.5, 0.66, 0.999, 0.9999, 1.0)] == [
        "lat_p50_ms", "lat_p66_ms", "lat_p999_ms", "lat_p9999_ms", "lat_p100_ms",
    ]  # fmt: skip


def test_percentile_table_as_locust_prints_it(tmp_path) -> None:
    stats = sample_as_run_output("all_ok", tmp_path)
    row = parse_locust_stats(entries("all_ok"))
    results = pd.DataFrame([{"target": "go", "raw_path": str(stats), "requests": row["requests"]}])
    table = percentile_table(results)
    assert list(table.columns) == [
        "50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%",
        "# reqs",
    ]  # fmt: skip
    go = table.loc["go"]
    assert (go["50%"], go["99%"]) == (row["lat_p50_ms"], row["lat_p99_ms"])
    assert go["# reqs"] == row["requests"]
    assert go.iloc[:11].is_monotonic_increasing


@pytest.mark.slow
def test_real_three_second_run_against_the_go_server(tmp_path) -> None:
    spec = Registry.load().get("go-iodelay")
    build_server(spec)
    load = LocustLoad.from_params(10, 10, "10-20ms", "3s", "FastHttpUser")
    params = spec.resolve_params({"delay_ms": 0})
    with start_server(spec, Target(spec.name), params, tmp_path / "server.log") as server:
        run, by_host = run_locust(server.url, get_plan("/"), load, tmp_path / "locust" / "out")
    entries = final_stats(stats_path(tmp_path / "locust" / "out").read_text())
    row = parse_locust_stats(entries)
    assert row["requests"] > 100 and 1 < row["duration_s"] < 4
    assert run.client_cpu_s > 0 and by_host == [run.client_cpu_s]
    # Every answer was a 200: none failed in the statistics, none is listed by kind.
    assert sum(e["num_failures"] for e in entries) == 0
    with open(tmp_path / "locust" / "out_failures.csv", newline="") as f:
        assert list(csv.DictReader(f)) == []
    assert descendants() == []


def locust_row(registry: Registry, **load: object) -> pd.Series:
    """The one row of a real single-repetition Locust run against go-iodelay (no delay)."""
    run = measure.run(
        measure.Experiment(
            "locust_test",
            ["go-iodelay"],
            measure.tool("locust", spawn_rate=load["users"], processes=1, **load),
            warmup="0s",
            repetitions=1,
            server_params={"delay_ms": 0},
        ),
        registry=registry,
    )
    assert descendants() == []
    return run.results().iloc[0]


@pytest.mark.slow
def test_locust_through_the_experiment_gives_tidy_rows(registry) -> None:
    row = locust_row(registry, users=10, wait="10-20ms", duration="3s", user_class="FastHttpUser")
    assert (row["tool"], row["users"], row["requests"] > 100) == ("locust", 10, True)
    assert row["client_cpu_pct"] > 0 and row["non_2xx"] == 0
    assert "littles_law" not in row["flags"]  # users wait between requests: no closed loop


@pytest.mark.slow
def test_single_process_httpuser_at_high_user_count_is_client_bound(registry) -> None:
    # Measured here: one Locust process with HttpUser serves 400-1,100 req/s, far below
    # what the Go server serves, so Locust's own core is the bottleneck.
    row = locust_row(registry, users=200, wait="0-0ms", duration="4s", user_class="HttpUser")
    assert "client_bound" in row["flags"], row[["client_cpu_pct", "rps", "flags"]].to_dict()


@pytest.mark.slow
def test_master_and_two_local_workers_end_to_end(registry) -> None:
    # Locust's own distributed mode: a master expecting 2 workers, both started here.
    # go-hello answers any path: the one requested shows the master's options reached
    # the workers.
    run = measure.run(
        measure.Experiment(
            "locust_workers_test",
            ["go-hello"],
            measure.tool(
                "locust",
                users=20,
                spawn_rate=20,
                wait="10-20ms",
                duration="3s",
                user_class="FastHttpUser",
                workers=2,
            ),
            paths={"go-hello": ["/from-the-master"]},
            warmup="0s",
            repetitions=1,
        ),
        registry=registry,
    )
    row = run.results().iloc[0]
    assert (row["tool_setting"], row["requests"] > 100, row["non_2xx"]) == (
        "locust FastHttpUser x2", True, 0
    )  # fmt: skip
    stats_file = REPO_ROOT / row["raw_path"]
    assert [entry["name"] for entry in final_stats(stats_file.read_text())] == ["/from-the-master"]
    # (the stats name of an ad-hoc path is the path itself, as in a plain locustfile)
    assert row["rps"] < 20 / 0.010  # no user sends faster than its 10 ms minimum wait
    prefix = stats_file.name.removesuffix(".json.txt")
    master_log = (stats_file.parent / f"{prefix}.log").read_text()
    assert "--master" in master_log and "--expect-workers 2" in master_log
    worker_logs = sorted(stats_file.parent.glob(f"{prefix}_worker*.log"))
    assert len(worker_logs) == 2
    for log in worker_logs:
        assert "Starting Locust" in log.read_text(), log
    assert descendants() == []
