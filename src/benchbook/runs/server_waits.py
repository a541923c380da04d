"""A wait a server adds to each request it answers, as the registry declares it
(``waits`` in servers.toml): a sleep standing for I/O, a disk sync per write. Such a
server holds each request for that long whatever its CPU does, so with N requests in
flight its rate is N ÷ how long it holds each one (benchbook.runs.limits: "requests in
flight"); a row records what it waited and for how long."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Waits:
    """A wait the server adds to each request it answers (``waits`` in servers.toml): what
    it is ("a {delay_ms} ms sleep"), its length in ms where it has a fixed one, and the
    requests it applies to (all of them when none are named). With its requests in
    flight, such a server's rate is theirs ÷ how long it holds each one (runs.limits)."""

    what: str
    ms: str | None = None  # may hold {param} placeholders
    requests: tuple[str, ...] = ()

    @classmethod
    def from_entry(cls, entry: Mapping | None) -> "Waits | None":
        if entry is None:
            return None
        return cls(entry["what"], entry.get("ms"), tuple(entry.get("requests", ())))

    def resolved(self, params: Mapping[str, object], requests: Sequence[str]) -> tuple[str, float]:
        """(what it waits, its ms or 0) for a load of ``requests`` with ``params``: ('', 0)
        when it waits on none of them."""
        if self.requests and not set(requests) & set(self.requests):
            return "", 0.0
        fill = {k: f"{v:g}" if isinstance(v, float) else str(v) for k, v in params.items()}
        ms = float(self.ms.format(**fill)) if self.ms else 0.0
        if self.ms and ms == 0:
            return "", 0.0  # a sleep of 0 ms (the delay server as a plain one) is no wait
        return self.what.format(**fill), ms
