"""Seed 004's URL shorteners with a real Redis beside them: the service lifecycle, the
OpenAPI contract, POST through wrk and Locust, and the check that nothing was lost."""

import signal
import subprocess
import sys
import textwrap
import time
from contextlib import ExitStack
from pathlib import Path

import psutil
import pytest
from conftest import RUNNER_START_S, descendants

from benchbook import measure
from benchbook.measure.instances import start_instance
from benchbook.measure.registry import Registry, Target
from benchbook.measure.servers import build_server
from benchbook.runs.layout import REPO_ROOT

OPENAPI = REPO_ROOT / "servers" / "openapi" / "shortener.yaml"
# 1 s: thousands of creates, hundreds of them lost by the two-step ids (tried: 350 of 3,749
# kept by Python's, 4,157 of 10,542 by Go's).
WRITE_LOAD = dict(connections=20, threads=1, duration="1s")
WRITE = dict(warmup="0s", repetitions=1)


def redis_servers() -> list[psutil.Process]:
    return [p for p in descendants() if p.name() == "redis-server"]


@pytest.fixture
def instance(registry: Registry, tmp_path):
    """go-shortener on Redis: its own redis-server first, then the server."""

    def start(stack: ExitStack, variant: str = "redis", server: str = "go-shortener"):
        spec = registry.get(server)
        build_server(spec)
        target = Target(server, variant)
        params = spec.resolve_params({})
        return start_instance(stack, registry, spec, target, params, tmp_path, None)

    return start


@pytest.mark.slow
@pytest.mark.parametrize(
    ("server", "variant"),
    [("go-shortener", "bolt"), ("go-shortener", "redis"), ("python-shortener", "redis")],
)
def test_each_server_keeps_the_openapi_contract(instance, server, variant, tmp_path) -> None:
    with ExitStack() as stack:
        running = instance(stack, variant, server)
        done = subprocess.run(
            [str(Path(sys.executable).parent / "st"), "run", str(OPENAPI),
             "--url", running.server.url, "--checks", "all", "--max-examples", "15",
             "--seed", "1"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,  # its cache goes here
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert descendants() == []


@pytest.mark.slow
def test_redis_is_started_first_answers_and_stops_with_the_run(instance) -> None:
    with ExitStack() as stack:
        running = instance(stack)
        redis = running.services["redis"]
        assert redis.client.ready() and running.server.process.running()
        assert f"127.0.0.1:{redis.port}" in " ".join(running.server.process.argv)
        pids = [redis.process.pid, running.server.process.pid]
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"
                   for pid in pids)  # fmt: skip
    assert redis_servers() == []


@pytest.mark.slow
def test_redis_stops_when_the_run_fails(instance) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        with ExitStack() as stack:
            instance(stack)
            assert len(redis_servers()) == 1
            raise RuntimeError("boom")
    assert redis_servers() == [] and descendants() == []


RUNNER = textwrap.dedent(
    """
    import signal
    from benchbook import measure
    signal.signal(signal.SIGINT, signal.default_int_handler)
    wrk = measure.tool("wrk", connections=4, threads=1, duration="60s")
    measure.run(measure.Experiment(
        "shortener_lifecycle", ["go-shortener"], wrk, variants={"go-shortener": ["redis"]},
        requests={"go-shortener": ["get"]}, warmup="0s", repetitions=1,
    ))
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_redis_stops_on_ctrl_c_and_when_the_kernel_dies(how, runs_dir) -> None:
    runner = subprocess.Popen([sys.executable, "-c", RUNNER])
    try:
        deadline = time.monotonic() + RUNNER_START_S
        while time.monotonic() < deadline:
            children = psutil.Process(runner.pid).children(recursive=True)
            names = {c.name() for c in children if c.is_running()}
            if {"wrk", "redis-server"} <= names:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("wrk and redis-server never ran together")
        runner.send_signal(how)
        runner.wait(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(
            c.is_running() and c.status() != "zombie" for c in children
        ):
            time.sleep(0.1)
        left = [c for c in children if c.is_running() and c.status() != "zombie"]
        assert left == [], [c.cmdline() for c in left]
    finally:
        runner.kill()
        runner.wait()


@pytest.mark.slow
@pytest.mark.parametrize("server", ["go-shortener", "python-shortener"])
def test_the_two_step_ids_lose_urls_and_are_flagged_the_atomic_ones_do_not(server) -> None:
    run = measure.run(
        measure.Experiment(
            "data_loss_test",
            [server],
            measure.tool("wrk", **WRITE_LOAD),
            variants={server: ["redis", "redis two-step"]},
            requests={server: ["create"]},
            **WRITE,
        )
    )
    rows = run.results().set_index("variant")
    atomic, two_step = rows.loc["redis"], rows.loc["redis two-step"]
    assert "data_loss" not in atomic["flags"]
    assert atomic["created"] == atomic["distinct_ids"] > 100
    assert atomic["distinct_ids"] <= atomic["store_new"] <= atomic["created"] + 20
    assert "data_loss" in two_step["flags"].split(";")
    assert two_step["distinct_ids"] < two_step["created"]
    assert "were handed out twice" in two_step["incident"]
    assert descendants() == []


@pytest.mark.slow
def test_a_post_through_locust_creates_checked_records(registry) -> None:
    run = measure.run(
        measure.Experiment(
            "locust_post_test",
            ["go-shortener"],
            measure.tool(
                "locust",
                users=10,
                spawn_rate=10,
                wait="0-10ms",
                duration="3s",
                user_class="FastHttpUser",
                processes=1,
            ),
            variants={"go-shortener": ["redis"]},
            mix={"create": 5, "get": 4, "redirect": 4},
            warmup="0s",
            repetitions=1,
            records=3,
        )
    )
    row = run.results().iloc[0]
    assert row["target"] == "go-shortener redis mix create:5 get:4 redirect:4"
    assert row["non_2xx"] == 0 and row["requests"] > 100
    assert row["created"] > 20 and row["created"] == row["distinct_ids"]
    assert "data_loss" not in row["flags"] and "bad_response" not in row["flags"]
    assert descendants() == []


@pytest.mark.slow
def test_python_counts_every_workers_writes(registry) -> None:
    # Four gunicorn workers: each create is an INCR and a SET, whichever worker runs it.
    run = measure.run(
        measure.Experiment(
            "writes_test",
            ["python-shortener"],
            measure.tool("wrk", **WRITE_LOAD),
            variants={"python-shortener": ["redis"]},
            requests={"python-shortener": ["create"]},
            server_params={"workers": 4},
            **WRITE,
        )
    )
    row = run.results().iloc[0]
    assert row["store_commits_per_request"] == pytest.approx(2.0, abs=0.1)
    assert descendants() == []


@pytest.mark.slow
def test_bolt_posts_commit_once_each(registry) -> None:
    run = measure.run(
        measure.Experiment(
            "bolt_test",
            ["go-shortener"],
            # 2 s: requests in flight when wrk stops (up to its 20 connections) are committed
            # but not counted; on a VM whose host took a third of the CPU they were 2.3 % of
            # the creates (2026-12-07), so they are allowed for by the creates counted.
            measure.tool("wrk", **(WRITE_LOAD | {"duration": "2s"})),
            variants={"go-shortener": ["bolt"]},
            requests={"go-shortener": ["create"]},
            **WRITE,
        )
    )
    row = run.results().iloc[0]
    assert row["storage"] == "bolt" and row["method"] == "POST"
    in_flight_at_the_end = WRITE_LOAD["connections"] / row["requests"]
    assert 0.99 <= row["store_commits_per_request"] <= 1.001 + in_flight_at_the_end
    assert "data_loss" not in row["flags"]
