"""What the harness refuses before anything starts: where it may send a request (loopback,
its own namespaces, an allow-listed host the experiment opted into) and which host
settings make sense. Needs no root: every refusal comes before a namespace or a server."""

from pathlib import Path

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure.hosts import addresses
from benchbook.measure.hosts.link import LinkProbe
from benchbook.measure.tools.base import get_plan
from benchbook.measure.tools.wrk import ClosedLoopLoad, Wrk
from benchbook.runs.experiment import Hosts

WRK = measure.tool("wrk", connections=1, threads=1, duration="1s")


@pytest.fixture
def allow_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An allow-list of the test's own naming one host (an address of TEST-NET-1, which
    nothing here ever connects to)."""
    path = tmp_path / "remote-hosts.toml"
    path.write_text(
        "[hosts.lab-pi]\n"
        'address = "192.0.2.10"\nssh = "pi@192.0.2.10"\nroot = "/home/pi/benchbook"\n'
    )
    monkeypatch.setenv("BENCHBOOK_REMOTE_HOSTS", str(path))
    return path


def test_a_host_not_in_the_allow_list_is_refused_naming_the_list(allow_list: Path) -> None:
    with pytest.raises(addresses.AddressRefused) as refused:
        measure.hosts("ssh", remote="build-server", allow_remote=True)
    message = str(refused.value)
    assert str(allow_list) in message and "lab-pi" in message
    assert "'build-server' is not in the allow-list" in message


def test_an_allow_listed_host_still_needs_the_experiments_opt_in(allow_list: Path) -> None:
    with pytest.raises(addresses.AddressRefused, match="did not opt in: pass allow_remote=True"):
        measure.hosts("ssh", remote="lab-pi")
    assert measure.hosts("ssh", remote="lab-pi", allow_remote=True).settings["remote"] == "lab-pi"


def test_a_refused_experiment_starts_nothing_and_stores_nothing(runs_dir: Path) -> None:
    """A description's hosts made by hand, past hosts()' checks, is refused again before any
    server starts: no process, no run folder."""
    hosts = Hosts("ssh", {"remote": "build-server", "allow_remote": True})
    with pytest.raises(addresses.AddressRefused, match="not in the allow-list"):
        measure.run(
            measure.Experiment(
                "refused", ["go-hello"], WRK, repetitions=1, warmup="0s", hosts=hosts
            )
        )
    assert descendants() == []
    assert not runs_dir.exists() or not any(runs_dir.iterdir())


@pytest.mark.parametrize(
    "url", ["http://192.0.2.1:8080", "http://example.com:80", "http://10.203.0.1:9000"]
)
def test_a_load_tool_refuses_any_other_address_before_it_starts(url: str, tmp_path: Path) -> None:
    """Not loopback, not a namespace this interpreter made (10.203.0.1 is one only while
    a run's namespaces exist), not an opted-in host: refused, and no wrk ever ran."""
    wrk = Wrk(ClosedLoopLoad(connections=1, threads=1, duration_s=1.0, timeout_s=2.0))
    with pytest.raises(addresses.AddressRefused) as refused:
        wrk.run(url, get_plan("/"), tmp_path / "raw", None)
    assert "benchbook sends requests only to loopback (127.0.0.1)" in str(refused.value)
    assert str(addresses.allow_list_path()) in str(refused.value)
    assert not (tmp_path / "raw.txt").exists() and descendants() == []


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({"kind": "docker"}, "valid choices: local, netns, ssh"),
        ({"kind": "local", "added_rtt": "10ms"}, "use hosts('netns', …)"),
        ({"kind": "netns", "added_rtt": "1.5ms"}, "whole milliseconds"),
        ({"kind": "netns", "added_rtt": "1ms", "jitter": "2ms"}, "more than added_rtt"),
        ({"kind": "netns", "rate_kb_s": 0}, "a whole number of KB/s"),
        ({"kind": "ssh"}, "needs remote="),
        ({"kind": "netns", "remote": "lab-pi"}, "only for hosts('ssh'"),
    ],
)
def test_host_settings_that_make_no_sense_are_refused(settings: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        measure.hosts(**settings)


def test_tools_that_cannot_spread_over_load_hosts_are_named() -> None:
    hosts = Hosts("netns", {"load_hosts": 2})
    with pytest.raises(ValueError, match="wrk runs on one; tools that spread a load"):
        measure.run(
            measure.Experiment("spread", ["go-hello"], WRK, repetitions=1, warmup="0s", hosts=hosts)
        )
    locust = measure.tool("locust", users=2, spawn_rate=2, wait="0-0ms", duration="1s")
    with pytest.raises(ValueError, match="give workers=1 or more"):
        measure.run(
            measure.Experiment(
                "spread", ["go-hello"], locust, repetitions=1, warmup="0s", hosts=hosts
            )
        )


@pytest.mark.parametrize(
    ("bytes_per_s", "flagged"),
    [
        (4_000_000.0, True),  # exactly 80 % of a link measured at 5 MB/s
        (3_999_999.0, False),
        (None, False),  # a tool that reports no bytes
    ],
)
def test_network_bound_at_eighty_percent_of_the_measured_link(bytes_per_s, flagged) -> None:
    probe = LinkProbe(rtt_ms_median=10.2, rtt_ms_p90=10.5, rtt_ms_min=10.1, round_trips=40,
                      capacity_mb_s=5.0)  # fmt: skip
    assert probe.network_bound(bytes_per_s) is flagged
