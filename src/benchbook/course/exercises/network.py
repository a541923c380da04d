"""Lesson 07's exercises: Little's law with the link's round trip in it. With ``c``
requests in flight, each taking the server ``W0`` (its time with nothing added, at the
same ``c``) plus the round trip ``d`` the link adds, a closed loop serves at most
``c / (W0 + d)`` requests per second, whatever language or protocol serves it: Go's
seed-000 server at 100 in flight over 10 ms, and Go's lead over FastAPI answering the
health check over 10 ms.

Each exercise measures as the notebook does: on two network namespaces (a server host
and a load host, which need root and Linux) that the harness makes and removes, joined by
a link Toxiproxy shapes. It measures twice, once with nothing added (``W0``, the model's
input) and once over the shaped link (the measurement); ``d`` is the round trip the
link probe measured there beyond the one it measured with nothing added.
"""

from dataclasses import dataclass

from benchbook import measure
from benchbook.analyse.experiments import network
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring
from benchbook.measure.experiment_plan import PlannedRun

NOTEBOOK = "07_network"
GO_IODELAY, DELAY_MS = "go-iodelay", 1  # seed 000's Go server and its simulated I/O
GO_HTTP, PYTHON_HTTP = "go-governance-http", "python-governance-http"  # seed 001, HTTP/JSON
HEALTH = "HealthCheck"
PROBED_RTT = "RTT measured, median (ms)"  # network.link_table's column


def round_trip_rate(in_flight: int, own_time_s: float, round_trip_s: float) -> float:
    """Little's law over a link: ``in_flight`` requests, each taking ``own_time_s`` (with
    nothing added) plus ``round_trip_s``, in requests per second."""
    if in_flight < 1 or own_time_s < 0 or round_trip_s < 0 or own_time_s + round_trip_s <= 0:
        raise ValueError(f"in flight {in_flight}, {own_time_s} s own time, {round_trip_s} s RTT")
    return in_flight / (own_time_s + round_trip_s)


def lead_over_link(own_time_a_s: float, own_time_b_s: float, round_trip_s: float) -> float:
    """a's requests per second ÷ b's at the same requests in flight over the same link:
    (b's own time + the round trip) ÷ (a's own time + the round trip). The in-flight
    count cancels, and the longer the round trip, the nearer to 1."""
    return round_trip_rate(1, own_time_a_s, round_trip_s) / round_trip_rate(
        1, own_time_b_s, round_trip_s
    )


@dataclass(frozen=True)
class OverTheLink:
    """The same servers measured with nothing added (``near``) and over the shaped link
    (``far``), each on namespace hosts of its own."""

    near: PlannedRun
    far: PlannedRun

    @property
    def round_trip_s(self) -> float:
        """What the link added, as its probe measured it: the far run's round trip minus
        the near one's (the path's own: two stacks, the veth pair, the proxy)."""
        probed = network.link_table([self.near, self.far])[PROBED_RTT]
        return max(0.0, float(probed.iloc[1] - probed.iloc[0])) / 1000

    def own_time_s(self, target: str, in_flight: int) -> float:
        """``W0``: a request's time with nothing added, by Little's law from the near
        run's median rate (in flight ÷ req/s)."""
        return in_flight / measuring.median(self.near.results(), target, "rps")

    def rps(self, target: str) -> float:
        """The median requests per second over the shaped link."""
        return measuring.median(self.far.results(), target, "rps")


def over_the_link(
    name: str, settings: Settings, added_rtt: str, **experiment: object
) -> OverTheLink:
    """``experiment`` measured as ``exercise_<name>_0ms`` and ``exercise_<name>_<added_rtt>``,
    each on network-namespace hosts (root) with that much round trip added. As in the
    notebook's quick settings, each server starts once per run, not once per round: two
    runs of two servers then stay near a minute and a half in class."""
    near, far = (
        measuring.run(
            f"{name}_{rtt}",
            settings,
            hosts=measure.hosts("netns", added_rtt=rtt),
            restart=False,
            **experiment,
        )
        for rtt in ("0ms", added_rtt)
    )
    return OverTheLink(near, far)


def round_trip_100(settings: Settings) -> Outcome:
    """Go's seed-000 server (1 ms of simulated I/O) at 100 in flight over a link adding
    10 ms: Little's law gives 100 / (W0 + d), W0 measured at 100 in flight with nothing
    added."""
    in_flight, added_ms = 100, 10
    link = over_the_link(
        "07_round_trip_100",
        settings,
        f"{added_ms}ms",
        servers=[GO_IODELAY],
        loads=measure.tool("wrk", connections=in_flight, threads=1, duration=settings.duration),
        server_params={"delay_ms": DELAY_MS},
    )
    own_s, rtt_s = link.own_time_s(GO_IODELAY, in_flight), link.round_trip_s
    return Outcome(
        measured=link.rps(GO_IODELAY),
        model=round_trip_rate(in_flight, own_s, rtt_s),
        model_name=f"Little's law, {in_flight} in flight / ({own_s * 1000:.2f} ms with nothing "
        f"added + {rtt_s * 1000:.2f} ms round trip)",
        measured_how=f"Go (seed 000, {DELAY_MS} ms of I/O) at {in_flight} in flight over a link "
        f"adding {added_ms} ms, {measuring.rounds(settings)}",
        run_id=link.far.run_id,
    )


def go_lead_10ms(settings: Settings) -> Outcome:
    """Seed 001's HTTP/JSON backends, Go and FastAPI, answering the health check at 10 in
    flight over a link adding 10 ms: Little's law for each gives Go's lead as
    (FastAPI's W0 + d) / (Go's W0 + d), each W0 measured with nothing added."""
    in_flight, added_ms = 10, 10
    servers = [GO_HTTP, PYTHON_HTTP]
    link = over_the_link(
        "07_go_lead_10ms",
        settings,
        f"{added_ms}ms",
        servers=servers,
        loads=measure.tool("wrk", connections=in_flight, threads=1, duration=settings.duration),
        requests={server: [HEALTH] for server in servers},
    )
    go, python = f"{GO_HTTP} {HEALTH}", f"{PYTHON_HTTP} {HEALTH}"
    go_s, python_s = link.own_time_s(go, in_flight), link.own_time_s(python, in_flight)
    rtt_s = link.round_trip_s
    return Outcome(
        measured=link.rps(go) / link.rps(python),
        model=lead_over_link(go_s, python_s, rtt_s),
        model_name=f"Little's law for each, ({python_s * 1000:.2f} + {rtt_s * 1000:.2f} ms) / "
        f"({go_s * 1000:.2f} + {rtt_s * 1000:.2f} ms): FastAPI's time with nothing added plus "
        "the round trip over Go's",
        measured_how=f"Go ÷ FastAPI req/s, GET /health at {in_flight} in flight over a link "
        f"adding {added_ms} ms, ratio of medians, {measuring.rounds(settings)}",
        run_id=link.far.run_id,
    )


EXERCISES = [
    Exercise(
        key="07.round_trip_100",
        notebook=NOTEBOOK,
        title="Little's law with the round trip, 100 in flight",
        variable="round_trip_rps",
        unit="req/s",
        # With W0 at 100 in flight the model lands within about a tenth. W0 at the
        # notebook's own in_flight (10) is shorter, as fewer requests wait their turn
        # with nothing added: a prediction from it lands a fifth to a quarter high, still
        # inside; 100 / 10 ms (the server's time left out) lands outside.
        tolerance=0.3,
        explain="the model's W0 is a request's time at 100 in flight with nothing added; "
        "how does it compare with the 1 ms the server waits, and with W0 at the notebook's "
        "10 in flight? Where could a request spend the rest, and why does it still spend "
        "it once the link adds 10 ms?",
        measure=round_trip_100,
    ),
    Exercise(
        key="07.go_lead_10ms",
        notebook=NOTEBOOK,
        title="Go's lead over FastAPI across 10 ms",
        variable="go_lead_ratio",
        unit="× (Go's req/s ÷ FastAPI's)",
        # The model takes each server's W0 at the same 10 in flight, as the notebook's
        # Little's law table does: it lands within about a tenth (FastAPI's own time grows
        # a little over the link). A student who sees the round trip dominate both is
        # inside; the lead with nothing added is far outside.
        tolerance=0.2,
        explain="with nothing added Go's lead was large; over the link, what share of each "
        "request's time is the round trip, for each server, and why does the same round "
        "trip shrink the lead? Is what is left of it Go's speed, or the link's?",
        measure=go_lead_10ms,
    ),
]
