"""The ssh host kind against a real OpenSSH server: sshd started inside a network
namespace of the test's own plays the remote machine, reached from a second namespace
(this machine's side) with a key of the test's own and an allow-list of the test's own.
The servers run there under the agent; verification goes through forwarded ports, load
over the link. Needs root (namespaces) and Debian's openssh-server."""

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure.hosts import addresses, namespaces
from benchbook.measure.hosts.agent import MARK
from benchbook.measure.hosts.remote import TAIL_BYTES, AgentSampler
from benchbook.measure.processes import ManagedProcess
from benchbook.runs.layout import REPO_ROOT

SSHD = Path("/usr/sbin/sshd")
pytestmark = [
    pytest.mark.slow,  # real servers and load
    pytest.mark.skipif(
        os.geteuid() != 0,
        reason="the remote host is played by sshd in a network namespace, which needs root",
    ),
    pytest.mark.skipif(not SSHD.exists(), reason="sshd is missing: apt-get install openssh-server"),
]


@pytest.fixture(scope="module")
def remote(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Path, ManagedProcess]]:
    """(the load side's namespace, the allow-list, sshd) while sshd listens on 10.203.0.1."""
    keys = tmp_path_factory.mktemp("ssh")
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)],
                       check=True)  # fmt: skip
    shutil.copy(keys / "client.pub", keys / "authorized_keys")
    allow = keys / "remote-hosts.toml"
    allow.write_text(
        '[hosts.ns-remote]\naddress = "10.203.0.1"\nssh = "root@10.203.0.1"\n'
        f'root = "{REPO_ROOT}"\nssh_options = ["-i", "{keys / "client"}", '
        '"-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", '
        '"-o", "LogLevel=ERROR"]\n'
    )
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation folder
    with namespaces.namespaces(1) as topology, open(keys / "sshd.log", "wb") as log:
        with namespaces.entered(topology.server):
            sshd = ManagedProcess(
                [str(SSHD), "-D", "-e", "-f", "/dev/null", "-o", "ListenAddress=10.203.0.1",
                 "-o", f"HostKey={keys / 'host'}",
                 "-o", f"AuthorizedKeysFile={keys / 'authorized_keys'}",
                 "-o", "PidFile=none", "-o", "UsePAM=no", "-o", "StrictModes=no",
                 "-o", "PermitRootLogin=prohibit-password"],
                stdout=log, stderr=log,
            )  # fmt: skip
        try:
            yield topology.loads[0], allow, sshd
        finally:
            sshd.stop()


def test_servers_run_on_the_remote_host_and_nothing_stays_there(
    remote: tuple, monkeypatch: pytest.MonkeyPatch
) -> None:
    load_side, allow, sshd = remote
    monkeypatch.setenv("BENCHBOOK_REMOTE_HOSTS", str(allow))
    monkeypatch.setenv("BENCHBOOK_SPEED_REFERENCE", "0")
    with namespaces.entered(load_side):
        run = measure.run(
            measure.Experiment(
                "remote_host",
                ["go-hello", "python-hello"],
                measure.tool("wrk", connections=4, threads=1, duration="1s"),
                warmup="0s",
                repetitions=1,
                hosts=measure.hosts("ssh", remote="ns-remote", allow_remote=True, added_rtt="2ms"),
            )
        )
    hosts = run.manifest()["hosts"]
    assert hosts["kind"] == "ssh" and hosts["server_host"]["name"] == "ns-remote"
    assert hosts["server_host"]["machine"]["logical_cpus"] == os.cpu_count()
    # The delay, plus the path's own (more when the machine is busy).
    assert 2.0 <= hosts["link"]["measured"]["rtt_ms_median"] < 7.0, hosts["link"]
    servers = run.manifest()["servers"]
    assert all(s["command"][0] == "ssh" for s in servers.values())
    rows = run.results().set_index("target")
    shown = rows[["rps", "lat_p50_ms", "server_cpu_pct", "server_rss_mb", "client_cpu_pct"]]
    assert (rows["lat_p50_ms"] >= 2).all(), shown  # every request crossed the 2 ms link
    # Sampled on the server host by the agent: each server used CPU and memory there.
    assert (rows["server_cpu_pct"] > 0).all() and (rows["server_rss_mb"] > 1).all(), shown
    assert (rows["client_cpu_pct"] > 0.5).all(), shown  # wrk ran here, not over ssh
    deadline = time.monotonic() + 10
    while psutil.Process(sshd.pid).children(recursive=True) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert psutil.Process(sshd.pid).children(recursive=True) == []  # nothing left there
    assert [p for p in descendants() if p.pid != sshd.pid] == []


def test_an_allow_listed_host_without_the_opt_in_is_refused(
    remote: tuple, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, allow, sshd = remote
    monkeypatch.setenv("BENCHBOOK_REMOTE_HOSTS", str(allow))
    with pytest.raises(addresses.AddressRefused, match="did not opt in"):
        measure.run(measure.Experiment(
            "remote_refused", ["go-hello"], measure.tool("wrk", connections=1, duration="1s"),
            hosts=measure.hosts("ssh", remote="ns-remote"),
        ))  # fmt: skip
    assert psutil.Process(sshd.pid).children(recursive=True) == []


def test_the_agents_last_sample_is_found_behind_a_burst_of_server_output(tmp_path) -> None:
    # A server that flushes its access lines in one block can bury the agent's last line
    # deeper than the tail read first; the sample must still be found, not taken as none
    # (which recorded a server using 0 % CPU, 2 clean-clone runs in 2 on 2026-11-27).
    log = tmp_path / "python-hello.log"
    burst = 'INFO: 127.0.0.1:5000 - "GET / HTTP/1.1" 200 OK\n' * (3 * TAIL_BYTES // 40)
    log.write_text(f"{MARK} 0.500 1000\n{MARK} 1.250 2048\n" + burst)
    assert AgentSampler(log)._latest() == (1.25, 2048)
    log.write_text(burst)
    assert AgentSampler(log)._latest() is None
