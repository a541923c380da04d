"""Hosts as network namespaces, for real: a server host and load hosts joined by veth
pairs, Toxiproxy on the link, the link probed, load spread over two load hosts by
vegeta's and Locust's own distributed modes — and nothing left afterwards, also when the
run is killed. Needs root (ip netns add); without it every test here is skipped."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import RUNNER_START_S, descendants, loading_wrk

from benchbook import measure
from benchbook.measure.hosts import addresses, namespaces

pytestmark = [
    pytest.mark.slow,  # real servers, Toxiproxy and load
    pytest.mark.skipif(
        os.geteuid() != 0,
        reason="network-namespace hosts need root (ip netns add); CI runs make test as root",
    ),
]
RUNNER = Path(__file__).with_name("netns_runner.py")


def toxiproxies() -> list[psutil.Process]:
    return [p for p in descendants() if p.name().startswith("toxiproxy")]


def alive(proc: psutil.Process) -> bool:
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_link_delay_is_measured_and_the_load_is_spread_over_two_hosts() -> None:
    """10 ms added on a link whose probe measures it; vegeta's attack and Locust's
    workers spread over two load hosts, their results merged into one row each."""
    run = measure.run(
        measure.Experiment(
            "netns_spread",
            ["go-hello"],
            [
                measure.tool("vegeta", rate=200, duration="1s"),
                measure.tool(
                    "locust",
                    users=4,
                    spawn_rate=4,
                    wait="0-0ms",
                    duration="2s",
                    user_class="FastHttpUser",
                    workers=1,
                ),  # fmt: skip
            ],
            warmup="0s",
            repetitions=1,
            hosts=measure.hosts("netns", load_hosts=2, added_rtt="10ms"),
        )
    )
    hosts = run.manifest()["hosts"]
    measured = hosts["link"]["measured"]
    # The delay, plus the path's own (more when the machine is busy).
    assert 10.0 <= measured["rtt_ms_median"] < 15.0, measured
    assert measured["capacity_mb_s"] > 1
    assert [t["attributes"]["latency"] for t in hosts["link"]["toxics"]] == [10]
    assert [link["server_address"] for link in hosts["links"]] == ["10.203.0.1", "10.203.0.5"]
    assert " v2.12.0 (go1." in hosts["toxiproxy"]["version"]  # its module, version and Go
    rows = run.results().set_index("tool")
    for tool in ("vegeta", "locust"):
        # Every request waited for the delay: no median below it.
        assert rows.loc[tool, "lat_p50_ms"] >= 10, rows.loc[tool]
        assert len(str(rows.loc[tool, "client_cpu_pct_by_host"]).split(";")) == 2
    assert rows.loc["vegeta", "requests"] == 200  # both halves of the rate, merged
    assert not [n for n in namespaces.ours() if n.startswith(f"benchbook-{os.getpid()}-")]
    assert toxiproxies() == [] and descendants() == []
    with pytest.raises(addresses.AddressRefused):  # its addresses are gone with it
        addresses.require_allowed("url", "http://10.203.0.1:80")


def test_orphaned_namespaces_of_a_dead_interpreter_are_removed() -> None:
    """What a run killed together with its reaper leaves is removed by the next run."""
    dead = 4_194_304  # above the kernel's largest PID: no such process can exist
    name = f"{namespaces.PREFIX}{dead}-1-server"
    namespaces.ip("netns", "add", name)
    try:
        assert namespaces.remove_orphans() == [name]
    finally:
        if name in namespaces.ours():
            namespaces.ip("netns", "delete", name)
    assert name not in namespaces.ours()


def test_a_killed_run_leaves_no_namespace_toxiproxy_or_server(tmp_path: Path) -> None:
    """SIGKILL, as when a Jupyter kernel dies: the reaper stops every process the run
    started and deletes its namespaces (with their veth pairs)."""
    runner = subprocess.Popen([sys.executable, str(RUNNER), str(tmp_path / "runs")],
                              start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + RUNNER_START_S
        wrk = []
        while not wrk and time.monotonic() < deadline and runner.poll() is None:
            time.sleep(0.2)
            tree = psutil.Process(runner.pid).children(recursive=True)
            wrk = [p for p in tree if loading_wrk(p)]
        assert wrk, "the runner never started loading"
        started = psutil.Process(runner.pid).children(recursive=True)
        mine = [n for n in namespaces.ours() if n.startswith(f"benchbook-{runner.pid}-")]
        assert len(mine) == 2 and any(p.name().startswith("toxiproxy") for p in started)
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (
            set(mine) & set(namespaces.ours()) or any(alive(p) for p in started)
        ):
            time.sleep(0.2)
        assert not set(mine) & set(namespaces.ours())
        assert [p for p in started if alive(p)] == []
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
