"""Build, start, verify and stop the servers named in the registry."""

import http.client
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchbook.measure.processes import ManagedProcess, current_host, reach
from benchbook.measure.registry import ServerSpec, Target, fill
from benchbook.runs.layout import REPO_ROOT

READY_TIMEOUT_S = 30.0
STDERR_TAIL_LINES = 20


class ServerStartError(RuntimeError):
    """The server exited or never answered; the message carries its last log lines."""


def build_server(spec: ServerSpec) -> None:
    """Run the registry's build command (cheap when nothing changed: go build and cargo
    build cache), once its language's toolchain is known to be on PATH."""
    if not spec.build:
        return
    if spec.toolchain is not None and spec.toolchain.missing():
        raise ServerStartError(
            f"building {spec.name} needs {spec.toolchain.program}, which is not on PATH: "
            f"install {spec.toolchain.install}"
        )
    argv = fill(spec.build, {"port": 0})
    done = subprocess.run(argv, cwd=spec.dir, capture_output=True, text=True)
    if done.returncode != 0:
        raise ServerStartError(
            f"building {spec.name} failed: {' '.join(argv)} (in {spec.dir})\n{done.stderr}"
        )


def free_port() -> int:
    """A port that was free a moment ago on 127.0.0.1 (the OS picks it), of the host
    processes start on now (processes.processes_on)."""
    if (host := current_host()) is not None:
        return host.free_port()
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
    placeholders: Mapping[str, object] | None = None,
) -> RunningServer:
    """Start the server and wait until it answers HTTP on its readiness path.

    ``placeholders`` fill what the harness set up for it ({redis_port}, {data_dir}).
    Output goes to ``log_path`` so that a failure can quote it and nothing is lost.
    """
    port = free_port()
    values = {**params, **(placeholders or {}), "port": port}
    variant = spec.variants[target.variant] if target.variant else None
    argv = fill(spec.command, values) + (fill(variant.args, values) if variant else [])
    env = {
        k: fill([v], values)[0] for k, v in {**spec.env, **(variant.env if variant else {})}.items()
    }
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        process = ManagedProcess(argv, cwd=REPO_ROOT, env=env, stdout=log, stderr=log, cpus=cpus)
    reach(port)
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
            if server.spec.grpc:  # HTTP/2 only: accepting a connection is its readiness
                socket.create_connection(("127.0.0.1", server.port), timeout=5.0).close()
            else:
                _answers(server.port, server.spec.ready_path)
            return
        except OSError:
            time.sleep(0.05)
    raise ServerStartError(
        f"{server.target.label} did not answer on port {server.port} within {timeout_s:g} s. "
        f"Last lines of {server.log_path}:\n{log_tail(server.log_path)}"
    )


def _answers(port: int, path: str) -> None:
    """Any HTTP answer on ``path`` (OSError while the server is not listening yet)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5.0)
    try:
        conn.request("GET", path)
        conn.getresponse().read()
    finally:
        conn.close()


def died_message(server: RunningServer, during: str) -> str:
    """'go-x exited with code 3 during repetition 1; last lines of its log: …'"""
    code = server.process.popen.poll()
    return (
        f"server {server.target.label} exited with code {code} during {during}; "
        f"last lines of its log ({server.log_path}):\n{log_tail(server.log_path, 8)}"
    )
