"""Validity flags: what makes a row's numbers suspect, attached to every row."""

from collections.abc import Mapping

# A closed loop keeps `connections` requests in flight, so by Little's law
# connections ≈ rps × mean latency. Beyond this relative gap, time is being spent
# somewhere the latency histogram does not see (load tool, timeouts, dropped samples).
LITTLES_LAW_TOLERANCE = 0.15
CLIENT_BOUND_SHARE = 0.90  # of the cores the load tool may use
NEAR_CEILING_HEADROOM = 0.90  # of the tool setting's calibrated ceiling (notebook 00)
SHORT_RUN_S = 5.0
SHORT_RUN_REQUESTS = 10_000  # below this, p99.9 rests on fewer than 10 samples
# Shares are compared rounded to this many digits, so a gap of exactly 15 % (or a load
# tool at exactly 90 %) falls on the same side of the line whatever float rounding did.
SHARE_DIGITS = 9

# Flags that make a row's numbers not a measurement of the server doing its job: such
# rows are kept and shown, but never ranked or summarised with the valid ones.
INVALID_FLAGS = ("bad_response", "server_died", "data_loss")


def is_valid(flags: str) -> bool:
    return not any(flag in INVALID_FLAGS for flag in flags.split(";"))


def littles_law_gap(
    connections: float, rps: float, mean_latency_ms: float | None, think_ms: float = 0.0
) -> float | None:
    """Relative gap between the connections implied by Little's law and `connections`:
    each connection is busy for a response time plus its think time per request."""
    if not mean_latency_ms or not connections:
        return None
    return rps * (mean_latency_ms + think_ms) / 1000 / connections - 1


def number(value: object) -> float | None:
    return None if value is None or value == "" else float(value)


def flags_for(
    row: Mapping[str, object], client_cores: int, closed_loop: bool, ceiling_is_tools: bool = False
) -> list[str]:
    """Every flag that applies to one tidy row (see FLAG_MEANINGS). ``ceiling_is_tools``:
    the ceiling behind ``headroom`` was the tool's own limit, not the server's."""
    flags = []
    if sum(int(row[k] or 0) for k in ("err_connect", "err_read", "err_write")):
        flags.append("errors")
    if int(row["err_timeout"] or 0):
        flags.append("timeouts")
    if int(row["non_2xx"] or 0):
        flags.append("non_2xx")
    # A core the hypervisor steals from cannot give 100 %: compare with what it could.
    available_pct = 100 - float(row.get("host_steal_pct") or 0)
    client_share = float(row["client_cpu_pct"] or 0) / (available_pct * client_cores)
    if round(client_share, SHARE_DIGITS) >= CLIENT_BOUND_SHARE:
        flags.append("client_bound")
    headroom = number(row.get("headroom"))
    if ceiling_is_tools and headroom is not None and headroom >= NEAR_CEILING_HEADROOM:
        flags.append("near_tool_ceiling")
    if closed_loop:
        # What the tool timed: wrk 4 pads its reported mean with requests it never sent.
        mean = number(row.get("lat_mean_uncorrected_ms")) or number(row["lat_mean_ms"])
        gap = littles_law_gap(
            float(row["connections"]), float(row["rps"]), mean, number(row.get("think_ms")) or 0.0
        )
        if gap is None or round(abs(gap), SHARE_DIGITS) > LITTLES_LAW_TOLERANCE:
            flags.append("littles_law")
    if float(row["duration_s"]) < SHORT_RUN_S or int(row["requests"]) < SHORT_RUN_REQUESTS:
        flags.append("short_run")
    return flags
