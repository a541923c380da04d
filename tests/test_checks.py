"""Validity flags from constructed rows (real triggers are in the wrk and notebook tests)."""

import pytest

from benchbook.measure.flags import flags_for
from benchbook.measure.sampling import steal_pct

CLEAN = dict(
    err_connect=0, err_read=0, err_write=0, err_timeout=0, non_2xx=0, client_cpu_pct=40.0,
    connections=100, rps=50_000.0, lat_mean_ms=2.0, duration_s=10.0, requests=500_000,
)  # fmt: skip


@pytest.mark.parametrize(
    ("change", "flag"),
    [
        ({"err_read": 3}, "errors"),
        ({"err_timeout": 1}, "timeouts"),
        ({"non_2xx": 10}, "non_2xx"),
        ({"client_cpu_pct": 95.0}, "client_bound"),
        ({"lat_mean_ms": 2.4}, "littles_law"),  # 50k/s × 2.4 ms = 120 in flight, not 100
        ({"lat_mean_ms": None}, "littles_law"),  # no latency at all: cannot hold
        ({"duration_s": 2.0}, "short_run"),
        ({"requests": 5_000}, "short_run"),
    ],
)
def test_each_flag_is_raised_by_its_condition(change, flag) -> None:
    assert flags_for(CLEAN, client_cores=1, closed_loop=True) == []
    assert flags_for(CLEAN | change, client_cores=1, closed_loop=True) == [flag]


def test_client_bound_is_relative_to_the_cores_the_tool_may_use() -> None:
    assert flags_for(CLEAN | {"client_cpu_pct": 150.0}, client_cores=2, closed_loop=True) == []
    assert "client_bound" in flags_for(CLEAN | {"client_cpu_pct": 185.0}, 2, closed_loop=True)


def test_client_bound_allows_for_cpu_the_host_stole() -> None:
    # With 20 % of the machine's time stolen a core gives at most 80 %: 75 % is 94 % of it.
    stolen = CLEAN | {"client_cpu_pct": 75.0, "host_steal_pct": 20.0}
    assert "client_bound" in flags_for(stolen, client_cores=1, closed_loop=True)
    assert "client_bound" not in flags_for(stolen | {"host_steal_pct": 0.0}, 1, closed_loop=True)


def test_littles_law_is_only_checked_for_closed_loops() -> None:
    assert flags_for(CLEAN | {"lat_mean_ms": 9.0}, client_cores=1, closed_loop=False) == []


def test_steal_share_of_host_cpu_time() -> None:
    # 50 of 200 jiffies stolen between the two readings: a quarter of the machine's time.
    assert steal_pct((100, 1000), (150, 1200)) == 25.0
    assert steal_pct((5, 10), (5, 10)) == 0.0


@pytest.mark.parametrize(
    ("headroom", "ceiling_is_tools", "flagged"),
    [
        (0.95, True, True),  # at the tool's own ceiling
        (0.85, True, False),  # below 90 % of it
        (0.95, False, False),  # the calibration hit the server's limit, not the tool's
        (None, True, False),  # no calibration on this machine
    ],
)
def test_near_tool_ceiling_needs_a_ceiling_that_was_the_tools(
    headroom, ceiling_is_tools, flagged
) -> None:
    row = CLEAN | {"headroom": headroom}
    flags = flags_for(row, client_cores=1, closed_loop=True, ceiling_is_tools=ceiling_is_tools)
    assert ("near_tool_ceiling" in flags) == flagged


@pytest.mark.parametrize(
    ("change", "flagged"),
    [
        # 100 connections: Little's law's gap exactly ±15 % is within tolerance, beyond is not
        ({"rps": 1_000.0, "lat_mean_ms": 115.0}, False),
        ({"rps": 1_000.0, "lat_mean_ms": 85.0}, False),  # 0.85 - 1 is -0.15000000000000002
        ({"rps": 1_000.0, "lat_mean_ms": 115.1}, True),
        ({"rps": 1_000.0, "lat_mean_ms": 84.9}, True),
    ],
)
def test_littles_law_at_exactly_fifteen_percent(change, flagged) -> None:
    flags = flags_for(CLEAN | change, client_cores=1, closed_loop=True)
    assert ("littles_law" in flags) == flagged


@pytest.mark.parametrize(
    ("cpu_pct", "steal_pct", "cores", "flagged"),
    [
        (90.0, 0.0, 1, True),  # exactly 90 % of one core
        (89.9, 0.0, 1, False),
        (180.0, 0.0, 2, True),  # exactly 90 % of two
        (87.3, 3.0, 1, True),  # exactly 90 % of the 97 % the host left
        (87.2, 3.0, 1, False),
    ],
)
def test_client_bound_at_exactly_ninety_percent(cpu_pct, steal_pct, cores, flagged) -> None:
    row = CLEAN | {"client_cpu_pct": cpu_pct, "host_steal_pct": steal_pct}
    assert ("client_bound" in flags_for(row, client_cores=cores, closed_loop=True)) == flagged
