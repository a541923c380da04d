"""Which runs a model of a server may be fitted to: not those where the load tool, not
the server, was the limit (verdicts.TOOL_LIMIT_FLAGS: the tool at its CPU limit or near
its most; and, offered a rate, a tool that fell short of it). There the numbers describe
the tool; a model fitted to them would put the tool's limit into the server's
parameters. Each fit counts what it left out, so the report can say so beside it."""

import pandas as pd

from benchbook.analyse.verdicts import TOOL_LIMIT_FLAGS

RATE_SHORTFALL = "rate_shortfall"  # the open-loop tool did not send the rate it was set


def tool_limited(rows: pd.DataFrame, also: tuple[str, ...] = ()) -> pd.Series:
    """Which rows carry a flag of TOOL_LIMIT_FLAGS (or of ``also``)."""
    return rows["flags"].fillna("").str.contains("|".join(TOOL_LIMIT_FLAGS + also))
