"""The hosts of an experiment made and entered for its rounds, and removed after them
(with every process and link on them), however the rounds end: ``placed(plan, …)``."""

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psutil

from benchbook.measure.hosts import addresses, namespaces, toxiproxy
from benchbook.measure.hosts.placement import HostsPlan, NamespacePlacement, Placement
from benchbook.measure.hosts.remote import remote_placement
from benchbook.measure.pinning import Pinning


@contextmanager
def placed(plan: HostsPlan, log_dir: Path, pinning: Pinning) -> Iterator[Placement]:
    """The Placement of ``plan`` (hosts.placement) for the block; Toxiproxy's and the
    link's logs in ``log_dir``."""
    if plan.kind == "local":
        yield Placement()
    elif plan.kind == "ssh":
        with remote_placement(plan, log_dir) as placement:
            yield placement
    else:
        with namespace_placement(plan, log_dir, pinning) as placement:
            yield placement


@contextmanager
def namespace_placement(plan: HostsPlan, log_dir: Path, pinning: Pinning) -> Iterator[Placement]:
    """The namespaces joined, their addresses allowed (addresses), Toxiproxy on the
    server host sharing the load tool's cores (it copies every byte), the link probed;
    Toxiproxy's CPU while the block ran goes into the manifest."""
    with ExitStack() as stack:
        topology = stack.enter_context(namespaces.namespaces(plan.load_hosts))
        addresses.namespace_addresses_up(topology.addresses, True)
        stack.callback(addresses.namespace_addresses_up, topology.addresses, False)
        proxy = stack.enter_context(
            toxiproxy.Toxiproxy(
                lambda: namespaces.entered(topology.server),
                log_dir / "toxiproxy.log",
                pinning.load_cpus,
            )
        )
        placement = NamespacePlacement(plan, topology, proxy)
        placement.measure_link()
        cpu_before, wall_before = _cpu_s(proxy.process.pid), time.monotonic()
        try:
            yield placement
        finally:
            seconds = time.monotonic() - wall_before
            placement.manifest["toxiproxy"]["cpu_pct"] = round(
                100 * (_cpu_s(proxy.process.pid) - cpu_before) / seconds, 1
            )


def _cpu_s(pid: int) -> float:
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return times.user + times.system
