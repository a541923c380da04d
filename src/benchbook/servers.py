"""Build, start, verify and stop the servers named in the registry."""

import http.client
import re
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchbook.layout import REPO_ROOT
from benchbook.processes import ManagedProcess
from benchbook.registry import Endpoint, ServerSpec, Target, fill

READY_TIMEOUT_S = 30.0
STDERR_TAIL_LINES = 20


class ServerStartError(RuntimeError):
    """The server exited or never answered; the message carries its last log lines."""


class VerificationError(RuntimeError):
    """An endpoint did not give the response the registry requires."""


def build_server(spec: ServerSpec) -> None:
    """Run the registry's build command (cheap when nothing changed: go build caches)."""
    if not spec.build:
        return
    argv = fill(spec.build, {"port": 0})
    done = subprocess.run(argv, cwd=spec.dir, capture_output=True, text=True)
    if done.returncode != 0:
        raise ServerStartError(
            f"building {spec.name} failed: {' '.join(argv)} (in {spec.dir})\n{done.stderr}"
        )


def free_port() -> int:
    """A port that was free a moment ago on 127.0.0.1 (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class RunningServer:
    target: Target
    spec: ServerSpec
    port: int
    process: ManagedProcess
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.stop()

    def __enter__(self) -> "RunningServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def log_tail(path: Path, lines: int = STDERR_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log written)"


def start_server(
    spec: ServerSpec,
    target: Target,
    params: Mapping[str, float],
    log_path: Path,
    cpus: Sequence[int] | None = None,
    ready_timeout_s: float = READY_TIMEOUT_S,
) -> RunningServer:
    """Start the server and wait until it answers HTTP on its readiness path.

    Output goes to ``log_path`` so that a failure can quote it and nothing is lost.
    """
    port = free_port()
    values = {**params, "port": port}
    variant = spec.variants[target.variant] if target.variant else None
    argv = fill(spec.command, values) + (list(variant.args) if variant else [])
    env = {
        k: fill([v], values)[0] for k, v in {**spec.env, **(variant.env if variant else {})}.items()
    }
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        process = ManagedProcess(argv, cwd=REPO_ROOT, env=env, stdout=log, stderr=log, cpus=cpus)
    server = RunningServer(target, spec, port, process, log_path)
    try:
        _wait_ready(server, ready_timeout_s)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_ready(server: RunningServer, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not server.process.running():
            raise ServerStartError(
                f"{server.target.label} exited with code {server.process.popen.returncode} "
                f"before answering on port {server.port}. Command: "
                f"{' '.join(server.process.argv)}\nLast lines of {server.log_path}:\n"
                f"{log_tail(server.log_path)}"
            )
        try:
            _get(server.port, server.spec.ready_path, timeout_s=5.0)
            return
        except OSError:
            time.sleep(0.05)
    raise ServerStartError(
        f"{server.target.label} did not answer on port {server.port} within {timeout_s:g} s. "
        f"Last lines of {server.log_path}:\n{log_tail(server.log_path)}"
    )


def _get(port: int, path: str, timeout_s: float) -> tuple[int, str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout_s)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read().decode(errors="replace")
        return response.status, response.getheader("Content-Type", ""), body
    finally:
        conn.close()


def endpoint_problems(server: RunningServer, endpoint: Endpoint) -> list[str]:
    """What is wrong with one endpoint's response (empty when it is right)."""
    try:
        status, content_type, body = _get(server.port, endpoint.path, timeout_s=5.0)
    except OSError as err:
        return [f"GET {endpoint.path}: no response ({err})"]
    problems = []
    if status != endpoint.status:
        problems.append(f"GET {endpoint.path}: status {status}, expected {endpoint.status}")
    if endpoint.content_type and not content_type.startswith(endpoint.content_type):
        problems.append(
            f"GET {endpoint.path}: Content-Type {content_type!r}, "
            f"expected {endpoint.content_type!r}"
        )
    if endpoint.body is not None and body != endpoint.body:
        problems.append(f"GET {endpoint.path}: body {body[:200]!r}, expected {endpoint.body!r}")
    if endpoint.body_pattern is not None and not re.fullmatch(endpoint.body_pattern, body):
        problems.append(
            f"GET {endpoint.path}: body {body[:200]!r} does not match {endpoint.body_pattern!r}"
        )
    return problems


def path_problems(server: RunningServer, path: str) -> list[str]:
    """What is wrong with the response on ``path``: judged by the registry endpoint of
    that path, or, for a path the registry does not list, by its status being 2xx."""
    endpoint = next((e for e in server.spec.endpoints if e.path == path), None)
    if endpoint is not None:
        return endpoint_problems(server, endpoint)
    try:
        status, _, body = _get(server.port, path, timeout_s=5.0)
    except OSError as err:
        return [f"GET {path}: no response ({err})"]
    if not 200 <= status < 300:
        return [f"GET {path} answered {status} ({body[:200]!r})"]
    return []


def server_problems(server: RunningServer, load_paths: Sequence[str]) -> list[str]:
    """Every registry endpoint and every loaded path, checked once."""
    problems = [p for e in server.spec.endpoints for p in endpoint_problems(server, e)]
    listed = {e.path for e in server.spec.endpoints}
    return problems + [p for path in load_paths if path not in listed
                       for p in path_problems(server, path)]  # fmt: skip


def verify_server(server: RunningServer, load_paths: Sequence[str] = ()) -> None:
    """Check every registry endpoint and loaded path before any load: a broken server is
    never measured."""
    problems = server_problems(server, load_paths)
    if problems:
        raise VerificationError(
            f"{server.target.label} failed verification, so it is not benchmarked:\n  "
            + "\n  ".join(problems)
        )


class ResponseSampler:
    """Checks the loaded path about once a second while a load runs, on a connection of
    its own: a server can pass verification and then serve wrong answers under load.
    Only the first few problems are kept."""

    INTERVAL_S = 1.0
    KEEP = 3

    def __init__(self, server: RunningServer, path: str):
        self._server, self._path = server, path
        self.checked = 0
        self.problems: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._check, daemon=True)

    def _check(self) -> None:
        while not self._stop.wait(self.INTERVAL_S):
            if not self._server.process.running():
                return
            found = path_problems(self._server, self._path)
            self.checked += 1
            if found and len(self.problems) < self.KEEP:
                self.problems.append(f"during the run: {found[0]}")

    def __enter__(self) -> "ResponseSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def died_message(server: RunningServer, during: str) -> str:
    """'go-x exited with code 3 during repetition 1; last lines of its log: …'"""
    code = server.process.popen.poll()
    return (
        f"server {server.target.label} exited with code {code} during {during}; "
        f"last lines of its log ({server.log_path}):\n{log_tail(server.log_path, 8)}"
    )
