"""Where an experiment's processes run, and what lies between them.

Kinds (``hosts(kind, …)``, checked before anything starts):

- ``local``: today's loopback, the default. Servers, services and load tools share the
  machine; nothing lies between them.
- ``netns``: a server host and ``load_hosts`` load hosts, each a network namespace this
  run makes and removes (hosts.namespaces), joined by veth pairs. Servers and their
  services run in the server host on its loopback, as they would on a server machine;
  Toxiproxy (hosts.toxiproxy) on the server host exposes each to the load hosts with the
  link's delay, jitter and rate (hosts.link), and the link is probed before the rounds.
- ``ssh``: the server host is an allow-listed remote machine (hosts.remote).

The Placement a run gets (hosts.bring_up) knows how to enter each host (``server_side``,
``load_side``) and exposes each server instance to the load hosts (``expose``: the URL
load goes to from each).
"""

from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import asdict, dataclass, field

from benchbook.measure.hosts import addresses, namespaces, toxiproxy
from benchbook.measure.hosts.exposure import Exposure, LoadHost
from benchbook.measure.hosts.link import EchoService, LinkProbe, LinkShape, probe
from benchbook.measure.params import require_int
from benchbook.measure.provenance import machine
from benchbook.measure.servers import free_port
from benchbook.runs.experiment import Hosts

KINDS = ("local", "netns", "ssh")


@dataclass(frozen=True)
class HostsPlan:
    """Where an experiment's description asks it to run (plan_hosts), checked; ``params``
    is what the run's plan stores."""

    kind: str = "local"
    load_hosts: int = 1
    link: LinkShape = field(default_factory=LinkShape)
    remote: str | None = None
    allow_remote: bool = False  # the experiment's opt-in (checked again before connecting)

    def params(self) -> dict:
        return {"kind": self.kind, "load_hosts": self.load_hosts, "link": asdict(self.link),
                "remote": self.remote}  # fmt: skip

    def check(self) -> "HostsPlan":
        """This plan, if it can run here: the remote allow-listed and opted into, root
        for namespaces; else the error that names why (before anything starts)."""
        if self.kind == "ssh":
            addresses.remote_host(self.remote or "", self.allow_remote)
        if self.kind == "netns":
            namespaces.require_root()
        return self


def hosts(kind: str = "local", **settings: object) -> Hosts:
    """Where an experiment runs (see the module's docstring), checked now and kept as
    written in its description: ``Experiment(…, hosts=measure.hosts("netns",
    added_rtt="10ms"))``. Settings: ``load_hosts``, ``added_rtt``, ``jitter``,
    ``rate_kb_s``, ``remote`` and ``allow_remote``. A remote host must be named in the
    allow-list (addresses.REMOTE_HOSTS) and opted into with ``allow_remote=True``."""
    plan_hosts(Hosts(kind, settings))
    return Hosts(kind, settings)


def plan_hosts(given: Hosts) -> HostsPlan:
    """The plan of a description's hosts, or the refusal that names what is wrong."""
    try:
        return _hosts_plan(given.kind, **given.settings)
    except TypeError as error:
        raise ValueError(
            f"hosts: {error}; valid settings: load_hosts, added_rtt, jitter, rate_kb_s, "
            "remote, allow_remote"
        ) from None


def _hosts_plan(
    kind: str = "local",
    *,
    load_hosts: object = 1,
    added_rtt: object = "0ms",
    jitter: object = "0ms",
    rate_kb_s: object = None,
    remote: str | None = None,
    allow_remote: bool = False,
) -> HostsPlan:
    if kind not in KINDS:
        raise ValueError(f"hosts: {kind!r}; valid choices: {', '.join(KINDS)}")
    shape = LinkShape.from_params(added_rtt, jitter, rate_kb_s)
    count = require_int("load_hosts", load_hosts, 1)
    if kind == "local" and (shape != LinkShape() or count != 1):
        raise ValueError(
            "hosts: 'local' is loopback, with one load host and nothing between it and the "
            "servers; use hosts('netns', …) for a link with delay, jitter or a rate, or for "
            "more load hosts"
        )
    if kind == "ssh" and remote is None:
        raise ValueError("hosts: 'ssh' needs remote=<a host named in the allow-list>")
    if kind != "ssh" and remote is not None:
        raise ValueError(f"remote: {remote!r} is only for hosts('ssh', …), not {kind!r}")
    if kind == "ssh" and count != 1:
        raise ValueError("load_hosts: with hosts('ssh', …) this machine is the one load host")
    if count > namespaces.MAX_LOAD_HOSTS:
        raise ValueError(f"load_hosts: {count}; choose 1 to {namespaces.MAX_LOAD_HOSTS}")
    return HostsPlan(kind, count, shape, remote, allow_remote).check()


LOCAL = HostsPlan()


class Placement:
    """Loopback: every host is this machine as it is."""

    def __init__(self) -> None:
        self.manifest: dict = {"kind": "local"}

    def server_side(self) -> AbstractContextManager:
        return nullcontext()

    def load_side(self, k: int = 1) -> AbstractContextManager:
        return nullcontext()

    def expose(self, name: str, port: int, stack: ExitStack) -> Exposure:
        return Exposure((LoadHost(f"http://127.0.0.1:{port}", "127.0.0.1", self.load_side),))


class NamespacePlacement(Placement):
    """Server and load hosts as network namespaces, Toxiproxy on the link (see the
    module's docstring)."""

    def __init__(self, plan: HostsPlan, topology: namespaces.Topology, proxy: toxiproxy.Toxiproxy):
        self.plan, self.topology, self.proxy = plan, topology, proxy
        self.link_probe: LinkProbe | None = None
        self.manifest = {
            "kind": "netns",
            "machine": machine(),  # every namespace is this machine
            "server_host": topology.server,
            "load_hosts": list(topology.loads),
            "links": [asdict(link) for link in topology.links],
            "toxiproxy": {"version": toxiproxy.version(), "log": str(proxy.log_path)},
        }

    def server_side(self) -> AbstractContextManager:
        return namespaces.entered(self.topology.server)

    def load_side(self, k: int = 1) -> AbstractContextManager:
        return namespaces.entered(self.topology.loads[k - 1])

    def expose(self, name: str, port: int, stack: ExitStack) -> Exposure:
        with self.server_side():
            listen = free_port()
        proxy = f"{name}-{port}"
        # Every address of the server host: each load host reaches it on its own link.
        self.proxy.proxy(proxy, f"0.0.0.0:{listen}", f"127.0.0.1:{port}", self.plan.link.toxics())
        stack.callback(self.proxy.delete, proxy)
        hosts = tuple(
            LoadHost(
                f"http://{link.server_address}:{listen}",
                link.load_address,
                lambda k=link.index: self.load_side(k),
            )  # fmt: skip
            for link in self.topology.links
        )
        return Exposure(hosts, self.link_probe)

    def measure_link(self) -> LinkProbe:
        """The link's round trip and capacity from load host 1 (see probe_link)."""
        with self.server_side():
            echo = EchoService()
            listen = free_port()
        try:
            address = self.topology.links[0].server_address
            self.link_probe, self.manifest["link"] = probe_link(
                self.proxy, self.plan.link, (address, listen), echo.port, self.load_side
            )
        finally:
            echo.close()
        return self.link_probe


def probe_link(
    proxy: toxiproxy.Toxiproxy,
    shape: LinkShape,
    listen: tuple[str, int],
    echo_port: int,
    load_side: Callable[[], AbstractContextManager],
) -> tuple[LinkProbe, dict]:
    """The link measured from a load host (``load_side``) through a proxy on ``listen``
    with the same toxics as the servers', to an echo service on the server host (see
    link.probe); and its record for the manifest: configured, Toxiproxy's toxics, measured."""
    address, port = listen
    proxy.proxy("link-probe", f"{address}:{port}", f"127.0.0.1:{echo_port}", shape.toxics())
    try:
        found = probe(address, port, load_side)
        record = {"configured": asdict(shape), "toxics": proxy.toxics("link-probe"),
                  "measured": asdict(found)}  # fmt: skip
    finally:
        proxy.delete("link-probe")
    return found, record
