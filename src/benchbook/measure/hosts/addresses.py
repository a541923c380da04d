"""Where benchbook may send a request: loopback, the addresses of the network
namespaces this interpreter made for a run (while they exist), and a remote host named
in the repository's allow-list (REMOTE_HOSTS) that the experiment opted into. Every load
tool and every verification request checks its address here; anything else is refused
before a server starts, with a message that names the list.
"""

import ipaddress
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from benchbook.runs.layout import REPO_ROOT

REMOTE_HOSTS = REPO_ROOT / "remote-hosts.toml"
LOOPBACK = ("127.0.0.1", "localhost", "::1")

_namespace_addresses: set[str] = set()  # made and removed by hosts.namespaces' users
_opted_in: set[str] = set()  # remote addresses of the experiment running now


class AddressRefused(ValueError):
    """A request to an address benchbook does not send anything to."""


@dataclass(frozen=True)
class RemoteHost:
    """An allow-listed machine: ``address`` receives load, ``ssh`` is what OpenSSH is
    given (the user's own ~/.ssh/config and keys apply), ``root`` the benchbook clone
    there (built with `make setup`)."""

    name: str
    address: str
    ssh: str
    root: str
    ssh_port: int = 22
    ssh_options: tuple[str, ...] = ()  # more OpenSSH options (-i key, -o …)


def allow_list_path() -> Path:
    """REMOTE_HOSTS, unless BENCHBOOK_REMOTE_HOSTS names another file (the tests' own)."""
    return Path(os.environ.get("BENCHBOOK_REMOTE_HOSTS", REMOTE_HOSTS))


def allow_list() -> dict[str, RemoteHost]:
    path = allow_list_path()
    if not path.exists():
        return {}
    with open(path, "rb") as f:
        entries = tomllib.load(f).get("hosts", {})
    hosts = {}
    for name, entry in entries.items():
        missing = [k for k in ("address", "ssh", "root") if k not in entry]
        if missing:
            raise ValueError(f"{path}: host {name!r} lacks {', '.join(missing)}")
        ipaddress.ip_address(entry["address"])  # an address, so nothing resolves elsewhere
        hosts[name] = RemoteHost(name, entry["address"], entry["ssh"], entry["root"],
                                 int(entry.get("ssh_port", 22)),
                                 tuple(entry.get("ssh_options", ())))  # fmt: skip
    return hosts


def remote_host(name: str, opted_in: bool) -> RemoteHost:
    """The allow-listed host ``name``, if the experiment opted in; else AddressRefused
    naming the list and its hosts."""
    path, hosts = allow_list_path(), allow_list()
    if name not in hosts:
        listed = ", ".join(sorted(hosts)) or "none"
        raise AddressRefused(
            f"remote host {name!r} is not in the allow-list {path} (hosts listed: {listed}); "
            "benchbook starts servers and sends load only to loopback, its own network "
            "namespaces, and hosts named there"
        )
    if not opted_in:
        raise AddressRefused(
            f"remote host {name!r} is allow-listed in {path}, but the experiment did not opt "
            "in: pass allow_remote=True to measure.hosts() to send load to another machine"
        )
    return hosts[name]


def namespace_addresses_up(addresses: set[str], up: bool) -> None:
    (_namespace_addresses.update if up else _namespace_addresses.difference_update)(addresses)


def remote_opted_in(address: str, up: bool) -> None:
    (_opted_in.add if up else _opted_in.discard)(address)


def require_allowed(what: str, url: str) -> str:
    """``url`` (``http://host:port…`` or ``host:port``) if benchbook may send to its host;
    else AddressRefused."""
    host = urlsplit(url if "//" in url else f"//{url}").hostname or ""
    if host in LOOPBACK or host in _namespace_addresses or host in _opted_in:
        return url
    own = ", ".join(sorted(_namespace_addresses)) or "none now"
    raise AddressRefused(
        f"{what}: {url!r}; benchbook sends requests only to loopback (127.0.0.1), to the "
        f"network namespaces a run made (addresses: {own}), and to a host of the "
        f"allow-list {allow_list_path()} that the experiment opted into (allow_remote=True)"
    )
