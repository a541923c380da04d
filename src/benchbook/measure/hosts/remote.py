"""A remote server host reached with OpenSSH: an allow-listed machine (addresses) that the
experiment opted into, with a clone of this repository built there (`make setup`).

One master connection (``ssh -M``, the user's own keys and ~/.ssh/config, plus the
allow-list's ``ssh_options``) carries everything: each server and service runs there
under the agent (hosts.agent) through ``ssh -tt``, so stopping the local ssh — or the
reaper killing it when the kernel dies — hangs up the agent, which stops its process
group. The harness's own requests (verification, resets, Toxiproxy's API) reach the
remote loopback through forwarded ports of the same number; load goes over the network,
to Toxiproxy on the remote host, as with network namespaces.
"""

import json
import shlex
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path

from benchbook.measure.hosts import addresses, toxiproxy
from benchbook.measure.hosts.agent import MARK
from benchbook.measure.hosts.exposure import Exposure, LoadHost
from benchbook.measure.hosts.link import LinkProbe
from benchbook.measure.hosts.placement import HostsPlan, Placement, probe_link
from benchbook.measure.processes import ManagedProcess, processes_on
from benchbook.measure.sampling import CpuTimeline, ResourceUse, SamplerError
from benchbook.runs.layout import REPO_ROOT

CONNECT_TIMEOUT_S = 15.0


class RemoteError(RuntimeError):
    """The remote host could not be reached or lacks what benchbook needs there."""


class SshHost:
    """Processes on an allow-listed host, over one master connection (a ProcessHost)."""

    def __init__(self, host: addresses.RemoteHost, stack: ExitStack, log_dir: Path):
        self.host = host
        control = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bb-ssh-")))
        self.base = ["ssh", "-S", str(control / "master"), "-p", str(host.ssh_port),
                     "-o", "BatchMode=yes", *host.ssh_options]  # fmt: skip
        log_dir.mkdir(parents=True, exist_ok=True)
        log = stack.enter_context(open(log_dir / "ssh-master.log", "wb"))
        master = [*self.base, "-M", "-N", "-o", f"ConnectTimeout={CONNECT_TIMEOUT_S:g}", host.ssh]
        self.master = stack.enter_context(ManagedProcess(master, stdout=log, stderr=log))
        self._wait_connected(log_dir / "ssh-master.log")
        self.python = f"{host.root}/.venv/bin/python"

    def _wait_connected(self, log: Path) -> None:
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.master.running():
                raise RemoteError(
                    f"ssh to {self.host.ssh} (allow-list host {self.host.name!r}) failed: "
                    + log.read_text(errors="replace").strip()[-500:]
                )
            check = subprocess.run([*self.base, "-O", "check", self.host.ssh],
                                   capture_output=True, timeout=10)  # fmt: skip
            if check.returncode == 0:
                return
            time.sleep(0.1)
        raise RemoteError(f"ssh to {self.host.ssh} did not connect in {CONNECT_TIMEOUT_S:g} s")

    def call(self, *args: str) -> str:
        """Run the agent there and return what it printed."""
        argv = [*self.base, self.host.ssh, "--", self.python, "-m", "benchbook.measure.hosts.agent",
                *args]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RemoteError(
                f"on {self.host.name} ({self.host.ssh}): {shlex.join(argv[-3:])} failed; is "
                f"the clone at {self.host.root} set up (`make setup` there)?\n{done.stderr[-800:]}"
            )
        return done.stdout

    def _there(self, text: str) -> str:
        """A local path or value as the remote clone has it."""
        return text.replace(str(REPO_ROOT), self.host.root)

    def command(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path | None) -> list[str]:
        # Folders made here for the process (a service's data folder) are made there too.
        folders = [a for a in argv if a.startswith(tempfile.gettempdir()) and Path(a).is_dir()]
        agent = [self.python, "-m", "benchbook.measure.hosts.agent", "run"]
        agent += ["--cwd", self._there(str(cwd or REPO_ROOT))]
        agent += [f"--env={k}={self._there(v)}" for k, v in env.items()]
        agent += [f"--mkdir={folder}" for folder in folders]
        agent += ["--", *(self._there(a) for a in argv)]
        return [*self.base, "-tt", self.host.ssh, "--", shlex.join(agent)]

    def free_port(self) -> int:
        """A port free there (on every address) and here (for its forward)."""
        for _ in range(20):
            port = int(self.call("free-port"))
            if free_here(port):
                return port
        raise RemoteError(f"no port free both here and on {self.host.name} after 20 tries")

    def reach(self, port: int) -> None:
        forward = f"127.0.0.1:{port}:127.0.0.1:{port}"
        done = subprocess.run([*self.base, "-O", "forward", "-L", forward, self.host.ssh],
                              capture_output=True, text=True, timeout=10)  # fmt: skip
        if done.returncode != 0:
            raise RemoteError(f"forwarding port {port} to {self.host.name}: {done.stderr}")

    def sampler(self, process: ManagedProcess) -> "AgentSampler":
        if process.log_path is None:
            raise SamplerError(f"{process.name} on {self.host.name} has no log to sample from")
        return AgentSampler(process.log_path)


def free_here(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


TAIL_BYTES = 8192  # how much of the log's end _latest reads first


class AgentSampler:
    """A remote process's CPU and memory, from the agent's lines in its log (sampled on
    the server host every 0.1 s and read here as they arrive): the same figures as
    sampling.TreeSampler, to within a sample interval at each end."""

    def __init__(self, log_path: Path):
        self.log_path = log_path
        self.cpu_timeline: CpuTimeline = []
        self._peak_rss = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)

    def _latest(self) -> tuple[float, int] | None:
        """The newest agent sample in the log, read from its end: 8 KiB first, then ever
        more, since a server that logs fast (or flushes a buffer of access lines at once)
        can put more than that after the agent's last line."""
        with open(self.log_path, "rb") as log:
            size, tail = log.seek(0, 2), TAIL_BYTES
            while True:
                log.seek(max(0, size - tail))
                lines = log.read().decode(errors="replace").splitlines()
                for line in reversed(lines if tail >= size else lines[1:]):  # [0]: cut
                    fields = line.strip().split()
                    if len(fields) == 3 and fields[0] == MARK:
                        return float(fields[1]), int(fields[2])
                if tail >= size:
                    return None
                tail *= 8

    def _follow(self) -> None:
        while not self._stop.wait(0.05):
            if (latest := self._latest()) is not None:
                self.cpu_timeline.append((time.time(), latest[0]))
                self._peak_rss = max(self._peak_rss, latest[1])

    def __enter__(self) -> "AgentSampler":
        start = self._latest()
        if start is None:
            raise SamplerError(f"no agent samples in {self.log_path} yet")
        self._start_cpu, self._start_wall = start[0], time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._wall = time.monotonic() - self._start_wall
        end = self._latest()
        self._end_cpu = end[0] if end else self._start_cpu

    @property
    def usage(self) -> ResourceUse:
        used = self._end_cpu - self._start_cpu
        return ResourceUse(100 * used / self._wall if self._wall > 0 else 0.0,
                           self._peak_rss / 2**20)  # fmt: skip


class RemotePlacement(Placement):
    """The server host is an allow-listed remote machine; the load host is this one."""

    kind = "ssh"

    def __init__(self, plan: HostsPlan, ssh: SshHost, proxy: toxiproxy.Toxiproxy):
        self.plan, self.ssh, self.proxy = plan, ssh, proxy
        self.link_probe: LinkProbe | None = None
        self.manifest = {
            "kind": "ssh",
            "server_host": {
                "name": ssh.host.name,
                "address": ssh.host.address,
                "machine": json.loads(ssh.call("machine")),
            },  # fmt: skip
            "load_host": {"machine": _local_machine()},
            "server_pinning": "none: a remote host's CPUs are not split by this machine",
            "toxiproxy": {"version": toxiproxy.version(), "log": str(proxy.log_path)},
            "ssh": subprocess.run(["ssh", "-V"], capture_output=True, text=True).stderr.strip(),
        }

    def server_side(self) -> AbstractContextManager:
        return processes_on(self.ssh)

    def load_side(self, k: int = 1) -> AbstractContextManager:
        return processes_on(None)  # this machine, also inside server_side()

    def expose(self, name: str, port: int, stack: ExitStack) -> Exposure:
        listen = self.ssh.free_port()
        proxy = f"{name}-{port}"
        # Only on the address load is sent to: nothing opens on that host's other networks.
        address = self.ssh.host.address
        self.proxy.proxy(proxy, f"{address}:{listen}", f"127.0.0.1:{port}", self.plan.link.toxics())
        stack.callback(self.proxy.delete, proxy)
        url = f"http://{self.ssh.host.address}:{listen}"
        return Exposure((LoadHost(url, "127.0.0.1", self.load_side),), self.link_probe)

    def measure_link(self, log_dir: Path) -> LinkProbe:
        """The link's round trip and capacity from here (see placement.probe_link), to the
        agent's echo service there."""
        with open(log_dir / "echo.log", "wb") as log, processes_on(self.ssh):
            python = REPO_ROOT / ".venv" / "bin" / "python"  # the remote clone's, there
            echo = ManagedProcess([str(python), "-m", "benchbook.measure.hosts.agent", "echo"],
                                  stdout=log, stderr=log)  # fmt: skip
        try:
            listen = (self.ssh.host.address, self.ssh.free_port())
            echo_port = _first_number(log_dir / "echo.log", echo)
            self.link_probe, self.manifest["link"] = probe_link(
                self.proxy, self.plan.link, listen, echo_port, self.load_side
            )
        finally:
            echo.stop()
        return self.link_probe


def _local_machine() -> dict:
    from benchbook.measure.provenance import machine

    return machine()


def _first_number(log: Path, process: ManagedProcess, timeout_s: float = 15.0) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if line.strip().isdigit():
                return int(line.strip())
        if not process.running():
            break
        time.sleep(0.05)
    raise RemoteError(f"the link probe's echo service did not start; see {log}")


@contextmanager
def remote_placement(plan: HostsPlan, log_dir: Path) -> Iterator[Placement]:
    """The remote host of ``plan`` connected, Toxiproxy started there and the link probed;
    all of it stopped when the block ends, however it ends."""
    host = addresses.remote_host(plan.remote or "", plan.allow_remote)
    with ExitStack() as stack:
        addresses.remote_opted_in(host.address, True)
        stack.callback(addresses.remote_opted_in, host.address, False)
        ssh = SshHost(host, stack, log_dir)
        proxy = stack.enter_context(
            toxiproxy.Toxiproxy(lambda: processes_on(ssh), log_dir / "toxiproxy.log", None)
        )
        placement = RemotePlacement(plan, ssh, proxy)
        placement.measure_link(log_dir)
        yield placement
