"""Which runs a model of a server may be fitted to: not those whose rate the load tool,
not the server, set (runs.limits' load tool: the tool at its CPU limit or near its most;
and, offered a rate, a tool that fell short of it), nor those a busy machine set. There
the numbers describe the tool or the other work; a model fitted to them would put that
into the server's parameters. Each fit counts what it left out, so the report can say so
beside it."""

import pandas as pd

from benchbook.runs.limits import Limit

RATE_SHORTFALL = "rate_shortfall"  # the open-loop tool did not send the rate it was set
NOT_THE_SERVERS = (str(Limit.LOAD_TOOL), str(Limit.MACHINE))


def tool_limited(rows: pd.DataFrame, also: tuple[str, ...] = ()) -> pd.Series:
    """Which rows the load tool or a busy machine set (or that carry a flag of ``also``)."""
    limited = rows["limit"].isin(NOT_THE_SERVERS) if "limit" in rows else False
    flagged = rows["flags"].fillna("").str.contains("|".join(also)) if also else False
    return pd.Series(limited | flagged, index=rows.index, dtype=bool)
