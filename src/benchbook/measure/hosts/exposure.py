"""A server instance as the load hosts see it (hosts.placement makes these)."""

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from benchbook.measure.hosts.link import LinkProbe


@dataclass(frozen=True)
class LoadHost:
    """One load host as a load tool sees it: the server's URL from there, the host's own
    address (where a Locust master listens for its workers), and how to start a process
    on it (``enter``: processes started and sockets opened in the block belong to it)."""

    url: str
    address: str
    enter: Callable[[], AbstractContextManager]


@dataclass
class Exposure:
    load_hosts: tuple[LoadHost, ...]  # the first is where a single load tool runs
    probe: LinkProbe | None = None  # the link's measurements (None: loopback)

    @property
    def url(self) -> str:
        return self.load_hosts[0].url

    def network_bound(self, bytes_per_s: float | None) -> bool:
        return self.probe is not None and self.probe.network_bound(bytes_per_s)
