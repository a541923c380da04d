"""Lesson 07's exercise models without servers: Little's law over a link, Go's lead as a
ratio of two such rates, and the inputs an exercise reads from its two runs (the probe's
round trips, each server's time with nothing added)."""

from types import SimpleNamespace

import pandas as pd
import pytest

from benchbook.course.exercises import network


def test_little_s_law_puts_the_round_trip_into_every_request() -> None:
    """100 in flight, 5 ms each with nothing added, 10 ms more on the link:
    100 / 15 ms ≈ 6,667 req/s; with nothing added, 100 / 5 ms."""
    assert network.round_trip_rate(100, 0.005, 0.010) == pytest.approx(100 / 0.015)
    assert network.round_trip_rate(100, 0.005, 0.0) == pytest.approx(20_000)


@pytest.mark.parametrize(
    ("in_flight", "own_s", "rtt_s"), [(0, 0.001, 0.01), (10, -0.001, 0.01), (10, 0.0, 0.0)]
)
def test_a_rate_without_requests_or_time_is_refused(
    in_flight: int, own_s: float, rtt_s: float
) -> None:
    with pytest.raises(ValueError):
        network.round_trip_rate(in_flight, own_s, rtt_s)


def test_the_same_round_trip_shrinks_a_lead_toward_one() -> None:
    """Go 0.3 ms, FastAPI 0.7 ms per request: 2.33× with nothing added, (0.7 + 10) /
    (0.3 + 10) ≈ 1.04× over 10 ms, nearer 1 the longer the round trip."""
    assert network.lead_over_link(0.0003, 0.0007, 0.0) == pytest.approx(0.7 / 0.3)
    assert network.lead_over_link(0.0003, 0.0007, 0.010) == pytest.approx(10.7 / 10.3)
    leads = [network.lead_over_link(0.0003, 0.0007, d) for d in (0.001, 0.01, 0.1)]
    assert leads == sorted(leads, reverse=True) and leads[-1] > 1


def fake_run(added_ms: int, probed_ms: float, rps: dict[str, float]) -> SimpleNamespace:
    """What OverTheLink reads of a stored run: its link (asked and probed) and its rows."""
    hosts = {"link": {"measured": {"rtt_ms_median": probed_ms, "rtt_ms_p90": probed_ms,
                                   "capacity_mb_s": 1000.0}},
             "toxiproxy": {}}  # fmt: skip
    rows = pd.DataFrame({"target": list(rps), "rps": list(rps.values())})
    return SimpleNamespace(
        manifest=lambda: {"hosts": hosts},
        plan=lambda: SimpleNamespace(hosts={"link": {"added_rtt_ms": added_ms}}),
        results=lambda: rows,
        run_id=f"rtt{added_ms}",
    )


def test_the_round_trip_is_what_the_probe_measured_beyond_the_unshaped_path() -> None:
    """Probed 0.1 ms with nothing added and 10.3 ms over the link: d = 10.2 ms. W0 at 100
    in flight from 20,000 req/s with nothing added: 5 ms."""
    link = network.OverTheLink(
        fake_run(0, 0.1, {"go": 20_000.0}),  # type: ignore[arg-type]
        fake_run(10, 10.3, {"go": 6_500.0}),  # type: ignore[arg-type]
    )
    assert link.round_trip_s == pytest.approx(0.0102)
    assert link.own_time_s("go", 100) == pytest.approx(0.005)
    assert link.rps("go") == 6_500.0
    with pytest.raises(ValueError, match="no rounds of 'python'"):
        link.own_time_s("python", 100)
