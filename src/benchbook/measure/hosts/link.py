"""The link between a load host and the server host: the shape asked for (added round
trip, jitter, rate limit), the Toxiproxy toxics that give it, and what it measured.

The probe measures the link itself, without any server: a one-byte ping-pong at
concurrency 1 through a proxy with the link's toxics to an echo service on the server
host (the unloaded round-trip time), then a bulk transfer the other way (the capacity a
response stream can reach). A row whose bytes per second reach NETWORK_BOUND_SHARE of
that capacity is flagged ``network_bound``: the link, not the server, set its pace.
"""

import socket
import statistics
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass

from benchbook.runs.durations import parse_duration

NETWORK_BOUND_SHARE = 0.80
PROBE_ROUND_TRIPS = 40  # after PROBE_WARMUP unrecorded ones
PROBE_WARMUP = 5
CAPACITY_BYTES = 32 * 2**20
_CHUNK = 64 * 2**10


@dataclass(frozen=True)
class LinkShape:
    """What the link adds to every round trip: ``added_rtt_ms`` on the way back (one
    direction, so a 1 ms round trip needs no half milliseconds), ``jitter_ms`` around
    it, and at most ``rate_kb_s`` kilobytes per second back (None: no limit)."""

    added_rtt_ms: int = 0
    jitter_ms: int = 0
    rate_kb_s: int | None = None

    @classmethod
    def from_params(cls, added_rtt: object, jitter: object, rate_kb_s: object) -> "LinkShape":
        rtt_ms = parse_duration("added_rtt", added_rtt, allow_zero=True) * 1000
        jitter_ms = parse_duration("jitter", jitter, allow_zero=True) * 1000
        for name, value in (("added_rtt", rtt_ms), ("jitter", jitter_ms)):
            if value != round(value):
                raise ValueError(f"{name}: {value:g} ms; Toxiproxy delays in whole milliseconds")
        if jitter_ms > rtt_ms:
            raise ValueError(f"jitter: {jitter_ms:g} ms is more than added_rtt ({rtt_ms:g} ms)")
        if rate_kb_s is not None and (not isinstance(rate_kb_s, int) or rate_kb_s < 1):
            raise ValueError(f"rate_kb_s: {rate_kb_s!r}; a whole number of KB/s ≥ 1, or None")
        return cls(int(rtt_ms), int(jitter_ms), rate_kb_s)

    def toxics(self) -> list[dict]:
        """Toxiproxy's toxics for this shape, on the downstream (server → client) side."""
        toxics = []
        if self.added_rtt_ms:
            toxics.append({"name": "added_rtt", "type": "latency", "stream": "downstream",
                           "toxicity": 1.0, "attributes": {"latency": self.added_rtt_ms,
                                                            "jitter": self.jitter_ms}})  # fmt: skip
        if self.rate_kb_s:
            toxics.append({"name": "rate", "type": "bandwidth", "stream": "downstream",
                           "toxicity": 1.0, "attributes": {"rate": self.rate_kb_s}})  # fmt: skip
        return toxics

    def describe(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class LinkProbe:
    rtt_ms_median: float
    rtt_ms_p90: float
    rtt_ms_min: float
    round_trips: int
    capacity_mb_s: float  # megabytes (10^6 bytes) per second, server → load host

    def network_bound(self, bytes_per_s: float | None) -> bool:
        return bool(bytes_per_s) and bytes_per_s >= NETWORK_BOUND_SHARE * self.capacity_mb_s * 1e6


class EchoService:
    """What the probe talks to on the server host: answers each byte with one byte,
    and a "C" with CAPACITY_BYTES of data."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))  # in the namespace the caller entered
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                payload = b"\0" * _CHUNK
                while byte := conn.recv(1):
                    if byte == b"C":
                        for _ in range(CAPACITY_BYTES // _CHUNK):
                            conn.sendall(payload)
                    else:
                        conn.sendall(byte)

    def close(self) -> None:
        self.sock.close()


def probe(address: str, port: int, load_side: Callable[[], AbstractContextManager]) -> LinkProbe:
    """Measure the link from a load host (``load_side`` enters it) to ``address:port``,
    a proxy in front of an EchoService."""
    with load_side():
        sock = socket.create_connection((address, port), timeout=10)
    with sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        times = []
        for i in range(PROBE_WARMUP + PROBE_ROUND_TRIPS):
            start = time.perf_counter()
            sock.sendall(b"p")
            if sock.recv(1) != b"p":
                raise ConnectionError(f"the link probe to {address}:{port} got a wrong answer")
            if i >= PROBE_WARMUP:
                times.append((time.perf_counter() - start) * 1000)
        sock.sendall(b"C")
        received = len(sock.recv(1 << 20))  # the clock starts after the first bytes: no RTT
        start = time.perf_counter()
        counted_from = received
        while received < CAPACITY_BYTES:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError(f"the link probe to {address}:{port} was cut")
            received += len(chunk)
        seconds = time.perf_counter() - start
    times.sort()
    return LinkProbe(
        rtt_ms_median=round(statistics.median(times), 3),
        rtt_ms_p90=round(times[int(0.9 * (len(times) - 1))], 3),
        rtt_ms_min=round(times[0], 3),
        round_trips=len(times),
        capacity_mb_s=round((received - counted_from) / seconds / 1e6, 1),
    )
