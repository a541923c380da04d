"""Services a server depends on (Redis): started before it on their own loopback port,
ready when they answer, emptied before each measured run, sampled like the server, and
stopped with the run on every path (they are ManagedProcesses like everything else).

A service kind is a small client class that knows how to ask the service whether it is
ready, empty it and count its keys; adding a kind is one class in KINDS.
"""

import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import redis

from benchbook.measure.processes import ManagedProcess, reach
from benchbook.measure.registry import ServiceSpec, fill
from benchbook.runs.layout import REPO_ROOT

READY_TIMEOUT_S = 15.0


class ServiceError(RuntimeError):
    """A service would not start or answer; the message carries its last log lines."""


class ServiceClient(Protocol):
    def ready(self) -> bool: ...  # answers at all

    def empty(self) -> None: ...  # forget every key (before each measured run)

    def count(self, pattern: str) -> int: ...  # keys matching a pattern

    def close(self) -> None: ...


class RedisClient:
    """Redis through redis-py: PING for readiness, FLUSHALL to empty it."""

    def __init__(self, port: int):
        self._redis = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)

    def ready(self) -> bool:
        try:
            return bool(self._redis.ping())
        except redis.exceptions.ConnectionError:
            return False

    def empty(self) -> None:
        self._redis.flushall()

    def count(self, pattern: str) -> int:
        return sum(1 for _ in self._redis.scan_iter(match=pattern, count=1000))

    def persistence(self) -> dict[str, object]:
        """What Redis says about its append-only file (durability runs)."""
        info = self._redis.info("persistence")
        return {key: info[key] for key in ("aof_enabled", "aof_rewrites") if key in info}

    def close(self) -> None:
        self._redis.close()


KINDS = {"redis": RedisClient}


@dataclass
class RunningService:
    spec: ServiceSpec
    port: int
    process: ManagedProcess
    client: ServiceClient
    log_path: Path
    params: Mapping[str, str]

    def stop(self) -> None:
        self.client.close()
        self.process.stop()

    def __enter__(self) -> "RunningService":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_service(
    spec: ServiceSpec,
    params: Mapping[str, str],
    port: int,
    data_dir: Path,
    log_path: Path,
    cpus: Sequence[int] | None = None,
) -> RunningService:
    """Start the service on 127.0.0.1:``port`` and wait until it answers."""
    if spec.kind not in KINDS:
        raise ValueError(
            f"service {spec.name}: unknown kind {spec.kind!r}; known: {', '.join(KINDS)}"
        )
    unknown = set(params) - set(spec.params)
    if unknown:
        raise ValueError(
            f"service {spec.name}: unknown parameter(s) {', '.join(sorted(unknown))}; "
            f"valid choices: {', '.join(spec.params)}"
        )
    values = {**spec.params, **params}
    argv = fill(spec.command, {**values, "port": port, "data_dir": data_dir})
    if shutil.which(argv[0]) is None:
        raise ServiceError(
            f"service {spec.name}: {argv[0]} is not installed (it is in .ci/system-tools, "
            "which `make setup` runs)"
        )
    data_dir.mkdir(parents=True, exist_ok=True)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        process = ManagedProcess(argv, cwd=REPO_ROOT, stdout=log, stderr=log, cpus=cpus)
    reach(port)
    service = RunningService(spec, port, process, KINDS[spec.kind](port), log_path, values)
    try:
        _wait_ready(service)
    except BaseException:
        service.stop()
        raise
    return service


def _wait_ready(service: RunningService) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if not service.process.running():
            raise ServiceError(
                f"service {service.spec.name} exited with code "
                f"{service.process.popen.returncode} before answering on port {service.port}. "
                f"Command: {' '.join(service.process.argv)}\n{_tail(service.log_path)}"
            )
        if service.client.ready():
            return
        time.sleep(0.05)
    raise ServiceError(
        f"service {service.spec.name} did not answer on port {service.port} within "
        f"{READY_TIMEOUT_S:g} s\n{_tail(service.log_path)}"
    )


def _tail(path: Path, lines: int = 12) -> str:
    try:
        text = "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        text = "(no log written)"
    return f"Last lines of {path}:\n{text}"
