"""Which CPUs the servers get and which the load tool gets."""

import os

from benchbook.runs.experiment import Pinning


def plan_pinning(pin_cpus: bool) -> Pinning:
    """Half the CPUs for the servers, half for the load tool. Pinning a Go server also
    sets its GOMAXPROCS, which the runtime derives from the CPU affinity it starts with;
    a server's services run on the server's CPUs."""
    cpus = sorted(os.sched_getaffinity(0))
    if not pin_cpus or len(cpus) < 2:
        return Pinning(None, None)
    half = len(cpus) // 2
    return Pinning(tuple(cpus[:half]), tuple(cpus[half:]))


def load_cores(pin_cpus: bool = True) -> int:
    """How many cores the load tool gets (its processes' default, e.g. Locust's)."""
    pinning = plan_pinning(pin_cpus)
    return len(pinning.load_cpus or os.sched_getaffinity(0))
