"""Toxiproxy (Shopify, MIT; pinned in servers/go/tools/go.mod) on the server host: the
link's far end. Every server a load host reaches goes through a proxy of its own, which
adds the experiment's delay, jitter and rate limit ("toxics") to what the server sends
back. The kernel of these machines has no netem, so the link's shape lives here.

Its API listens on the server host's loopback; the harness calls it from inside that
host (``inside``).
"""

import http.client
import json
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from benchbook.measure.processes import ManagedProcess, reach
from benchbook.measure.servers import free_port
from benchbook.measure.tools.base import go_binary_version
from benchbook.runs.layout import built_tool

READY_TIMEOUT_S = 10.0
BINARY = "toxiproxy-server"


class ToxiproxyError(RuntimeError):
    """Toxiproxy did not start or refused a configuration; its answer is in the message."""


def version() -> str:
    return go_binary_version(built_tool(BINARY))


class Toxiproxy:
    """A running toxiproxy-server; stop() (or the block of ``with``) ends it."""

    def __init__(
        self,
        inside: Callable[[], AbstractContextManager],
        log_path: Path,
        cpus: Sequence[int] | None,
    ):
        self.inside = inside  # enters the server host, where the API listens
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(log_path, "wb")
        with inside():
            self.api_port = free_port()
            self.process = ManagedProcess(
                [str(built_tool(BINARY)), "-host", "127.0.0.1", "-port", str(self.api_port)],
                stdout=self._log,
                stderr=self._log,
                cpus=cpus,
            )
            reach(self.api_port)
        self.log_path = log_path
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.process.running():
                raise ToxiproxyError(f"toxiproxy-server exited; its log is {self.log_path}")
            try:
                self._call("GET", "/version")
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise ToxiproxyError(f"toxiproxy-server did not answer in {READY_TIMEOUT_S:g} s")

    def _call(self, method: str, path: str, body: dict | None = None) -> object:
        with self.inside():
            conn = http.client.HTTPConnection("127.0.0.1", self.api_port, timeout=5)
            try:
                conn.request(method, path, json.dumps(body) if body is not None else None,
                             {"Content-Type": "application/json"})  # fmt: skip
                response = conn.getresponse()
                text = response.read().decode(errors="replace")
            finally:
                conn.close()
        if response.status >= 300:
            raise ToxiproxyError(f"toxiproxy {method} {path} {body}: {response.status} {text}")
        return json.loads(text) if text.strip().startswith(("{", "[")) else text

    def proxy(self, name: str, listen: str, upstream: str, toxics: Sequence[dict]) -> None:
        """A proxy listening on ``listen`` (address:port) of the server host, forwarding
        to ``upstream`` with ``toxics`` on it."""
        self._call("POST", "/proxies", {"name": name, "listen": listen, "upstream": upstream,
                                        "enabled": True})  # fmt: skip
        for toxic in toxics:
            self._call("POST", f"/proxies/{name}/toxics", toxic)

    def delete(self, name: str) -> None:
        if self.process.running():
            self._call("DELETE", f"/proxies/{name}")

    def toxics(self, name: str) -> list[dict]:
        """The toxics as Toxiproxy reports them (what the manifest records)."""
        answer = self._call("GET", f"/proxies/{name}/toxics")
        return answer if isinstance(answer, list) else []

    def stop(self) -> None:
        self.process.stop()
        self._log.close()

    def __enter__(self) -> "Toxiproxy":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
