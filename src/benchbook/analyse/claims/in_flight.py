"""A claim about requests in flight: what capped two servers when few requests were in
flight (Little's law: a server can serve at most in flight ÷ the time each request takes),
with nothing added to the round trip and over the farthest link notebook 07 measured."""

from dataclasses import dataclass


@dataclass(frozen=True)
class InFlightLimit:
    """What capped two servers with few requests in flight: with nothing added, the time
    each request took (Little's law: in flight ÷ rate), of which the simulated I/O it waits
    is a part; over the far link, the round trip as well. The medians are one session's,
    without an interval."""

    in_flight: int
    wait_ms: float  # the simulated I/O every request waits, with nothing added
    near: tuple[float, float]  # each side's median req/s with nothing added
    far_rtt: int  # the largest round trip added (ms)
    far: tuple[float, float]  # each side's median req/s there
    far_caps: tuple[float, float]  # Little's law req/s there, lowest and highest of the two

    @property
    def near_ratio(self) -> float:
        return self.near[0] / self.near[1]

    @property
    def far_ratio(self) -> float:
        return self.far[0] / self.far[1]
