"""Linux network namespaces as hosts: a server host and load hosts on this machine,
joined by veth pairs, so the whole multi-host path runs for real on one box (and in CI).

Each load host k gets its own veth pair to the server host, with the address pair of
the k-th /30 of LINK_NET (server side .1, load side .2 of the first). Nothing is
configured outside the namespaces: no interface, route or address appears on the
machine itself, and deleting a namespace removes its ends of the links.

The harness enters a namespace per thread (``entered``, setns(2)): a socket opened and
a process started while inside belong to that namespace, so servers, verification and
samplers work there unchanged. Namespaces are named ``benchbook-<pid>-<n>-<role>``; the
reaper deletes them if the interpreter dies, and ``remove_orphans`` deletes those of
dead interpreters before new ones are made.
"""

import ctypes
import ipaddress
import itertools
import os
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchbook.measure.processes import reap_namespace_if_orphaned

PREFIX = "benchbook-"
NETNS_DIR = Path("/run/netns")  # where `ip netns add` keeps a namespace alive
# The only addresses the namespaces use: a private /24 cut into /30s, one per link.
LINK_NET = ipaddress.ip_network("10.203.0.0/24")
MAX_LOAD_HOSTS = 8
_CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)
_serial = itertools.count(1)


class HostError(RuntimeError):
    """A host could not be made, entered or reached; the message says what to do."""


def require_root() -> None:
    if os.geteuid() != 0:
        raise HostError(
            "network-namespace hosts need root (ip netns add, ip link add); run as root, "
            "or use the default hosts='local' (loopback)"
        )


def ip(*args: str) -> str:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        raise HostError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


@contextmanager
def entered(name: str) -> Iterator[None]:
    """This thread inside network namespace ``name`` for the block, then back where it
    was (other threads are not affected)."""
    target = os.open(NETNS_DIR / name, os.O_RDONLY)
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        if _libc.setns(target, _CLONE_NEWNET) != 0:
            raise HostError(f"cannot enter namespace {name}: {os.strerror(ctypes.get_errno())}")
        try:
            yield
        finally:
            if _libc.setns(home, _CLONE_NEWNET) != 0:
                raise HostError(f"cannot leave namespace {name}")
    finally:
        os.close(target)
        os.close(home)


def ours() -> list[str]:
    """Every benchbook namespace on the machine, whoever made it."""
    if not NETNS_DIR.is_dir():
        return []
    return sorted(p.name for p in NETNS_DIR.iterdir() if p.name.startswith(PREFIX))


def _owner_alive(name: str) -> bool:
    try:
        pid = int(name.removeprefix(PREFIX).split("-")[0])
    except ValueError:
        return True  # not one of our names: leave it
    return Path(f"/proc/{pid}").exists()


def remove_orphans() -> list[str]:
    """Delete the namespaces whose interpreter is gone (a run killed with its reaper)."""
    orphans = [name for name in ours() if not _owner_alive(name)]
    for name in orphans:
        ip("netns", "delete", name)
    return orphans


@dataclass(frozen=True)
class Link:
    """One veth pair between the server host and load host ``index`` (1-based)."""

    index: int
    server_address: str
    load_address: str


@dataclass(frozen=True)
class Topology:
    """The namespaces of one experiment: a server host and its load hosts."""

    server: str
    loads: tuple[str, ...]
    links: tuple[Link, ...]

    @property
    def addresses(self) -> set[str]:
        return {a for link in self.links for a in (link.server_address, link.load_address)}


def link_addresses(index: int) -> tuple[str, str]:
    """(server side, load side) of the index-th /30 of LINK_NET."""
    subnet = list(LINK_NET.subnets(new_prefix=30))[index - 1]
    server, load = list(subnet.hosts())
    return str(server), str(load)


def _add_namespace(stack: ExitStack, name: str) -> None:
    ip("netns", "add", name)
    reap_namespace_if_orphaned(name)

    def delete() -> None:
        if (NETNS_DIR / name).exists():
            ip("netns", "delete", name)
        reap_namespace_if_orphaned(name, forget=True)

    stack.callback(delete)
    ip("-n", name, "link", "set", "lo", "up")


@contextmanager
def namespaces(load_hosts: int) -> Iterator[Topology]:
    """A server namespace and ``load_hosts`` load namespaces joined to it, all deleted
    (with their links) when the block ends, however it ends."""
    require_root()
    if not 1 <= load_hosts <= MAX_LOAD_HOSTS:
        raise HostError(f"load_hosts: {load_hosts}; choose 1 to {MAX_LOAD_HOSTS}")
    remove_orphans()
    base = f"{PREFIX}{os.getpid()}-{next(_serial)}"
    with ExitStack() as stack:
        server = f"{base}-server"
        _add_namespace(stack, server)
        loads, links = [], []
        for k in range(1, load_hosts + 1):
            load = f"{base}-load{k}"
            _add_namespace(stack, load)
            server_address, load_address = link_addresses(k)
            # Each end is created inside its namespace: no interface ever exists outside.
            ip("link", "add", f"to-load{k}", "netns", server, "type", "veth",
               "peer", "name", "to-server", "netns", load)  # fmt: skip
            ip("-n", server, "addr", "add", f"{server_address}/30", "dev", f"to-load{k}")
            ip("-n", load, "addr", "add", f"{load_address}/30", "dev", "to-server")
            ip("-n", server, "link", "set", f"to-load{k}", "up")
            ip("-n", load, "link", "set", "to-server", "up")
            # Load hosts reach each other (a Locust master and its workers) through the
            # server host, as machines on one switch would.
            ip("-n", load, "route", "add", str(LINK_NET), "via", server_address)
            loads.append(load)
            links.append(Link(k, server_address, load_address))
        if load_hosts > 1:
            subprocess.run(["ip", "netns", "exec", server, "sysctl", "-qw",
                            "net.ipv4.ip_forward=1"], check=True, timeout=10)  # fmt: skip
        yield Topology(server, tuple(loads), tuple(links))
