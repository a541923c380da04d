"""Validity flags: what makes a row's numbers suspect, attached to every row (the
thresholds and the flags that invalidate a row are benchbook.runs.flags', which the
analysis reads too; the load tool's limit and Little's law are part of the rule of what
set a rate, benchbook.runs.limits, whose figures these flags name)."""

from collections.abc import Mapping

from benchbook.runs.flags import (
    NEAR_CEILING_HEADROOM,
    SHARE_DIGITS,
    SHORT_RUN_REQUESTS,
    SHORT_RUN_S,
)
from benchbook.runs.limits import (
    CLIENT_BOUND_SHARE,
    LITTLES_LAW_TOLERANCE,
    at_least,
    client_share,
    littles_law_gap,
    number,
)


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
    # A core the hypervisor steals from cannot give 100 %: client_share compares with
    # what it could.
    if at_least(client_share({**row, "client_cores": client_cores}), CLIENT_BOUND_SHARE):
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
