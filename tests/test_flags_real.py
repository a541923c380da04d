"""Validity flags raised (or not) by real runs against real servers."""

import io
import itertools

import pandas as pd
import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure import sampling
from benchbook.measure.registry import Registry


def measured(registry: Registry, server: str, **load) -> pd.DataFrame:
    server_params = load.pop("server_params", None)
    wrk = dict(connections=4, threads=1, duration="2s") | load
    experiment = measure.Experiment("flags_test", [server], measure.tool("wrk", **wrk),
                                    warmup="0s", repetitions=1,
                                    server_params=server_params)  # fmt: skip
    run = measure.run(experiment, registry)
    assert descendants() == []
    return run.results()


def flags(results: pd.DataFrame) -> set[str]:
    return set(results.loc[0, "flags"].split(";"))


@pytest.mark.slow
def test_server_returning_500s_is_flagged_non_2xx(test_registry) -> None:
    results = measured(test_registry, "status-500")
    assert results.loc[0, "non_2xx"] == results.loc[0, "requests"] > 0
    assert "non_2xx" in flags(results)


@pytest.mark.slow
def test_server_slower_than_wrks_timeout_is_flagged_timeouts(test_registry) -> None:
    results = measured(test_registry, "go-slow", timeout="1s", duration="3s")
    assert results.loc[0, "err_timeout"] > 0
    assert {"timeouts", "littles_law"} <= flags(results)  # no latency left to check it with


def a_quarter_of_the_machine_stolen(monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc/stat as the harness reads it, each reading 200 jiffies of the machine's time
    after the one before, 50 of them stolen; guest time (counted in user time already)
    grows too, and must not count twice."""
    readings = itertools.count()

    def proc_stat(path, *args, **kwargs):
        if str(path) != "/proc/stat":
            return open(path, *args, **kwargs)
        n = next(readings)
        # user nice system idle iowait irq softirq steal guest guest_nice
        jiffies = [9000 + 100 * n, 7, 3000 + 25 * n, 50000 + 25 * n, 40, 0, 11, 600 + 50 * n,
                   4000 + 70 * n, 0]  # fmt: skip
        return io.StringIO("cpu  " + " ".join(map(str, jiffies)) + "\ncpu0 1 2 3 4\n")

    monkeypatch.setattr(sampling, "open", proc_stat, raising=False)


@pytest.mark.slow
def test_littles_law_holds_for_a_sleeping_server_under_a_closed_loop(registry, monkeypatch) -> None:
    a_quarter_of_the_machine_stolen(monkeypatch)
    # 10 connections, 20 ms per request: about 500 req/s with 10 requests in flight.
    results = measured(
        registry, "go-iodelay", connections=10, server_params={"delay_ms": 20}, duration="3s"
    )
    in_flight = results.loc[0, "rps"] * results.loc[0, "lat_mean_ms"] / 1000
    assert in_flight == pytest.approx(10, rel=0.15)
    assert "littles_law" not in flags(results)
    assert "short_run" in flags(results)  # 3 s and ~1,500 requests
    assert results.loc[0, "host_steal_pct"] == 25.0  # from the /proc/stat readings above
