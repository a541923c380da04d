"""Notebook 04's URL shortener: the writes table beside what each store promises, and
what the author's Locust wait did to the rate (Little's law with the wait in it)."""

import pandas as pd

from benchbook.analyse import formatting as fmt
from benchbook.analyse.tables import summary_table
from benchbook.runs.durations import parse_duration

WRITE_COLUMNS = ["runs", "req/s", "req/s CI", "p99 ms", "server CPU %", "flags"]


def mean_wait_s(wait: str) -> float:
    """The mean of a "10-9000ms" wait in seconds (a bare number in the range is taken in
    the unit at its end, as Locust's between() reads it)."""
    low, high = (
        parse_duration("wait", part + ("ms" if part.isdigit() else "")) for part in wait.split("-")
    )
    return (low + high) / 2


def writes_table(results: pd.DataFrame) -> pd.DataFrame:
    """Each write target's summary with the store's commits per request, durability and
    ids: a rate is only comparable with what the store promised for it."""
    kept = ["store_commits_per_request", "durability", "ids"]
    return summary_table(results)[WRITE_COLUMNS].join(
        results.groupby("target", sort=False)[kept].first()
    )


def wait_sentence(waiting: pd.DataFrame, users: int) -> str:
    """What the users sent once running against what Little's law predicts from their wait
    alone (conclusions.waiting_users' table), or that the runs were too short to say."""
    steady = waiting["measured req/s"].median()
    share = waiting["measured/predicted"].median()
    if steady != steady:  # NaN: no run settled
        return "The Locust runs were too short to settle (see the Little's-law section)."
    return (
        f"Under Locust with the author's wait, {users} users sent {steady:,.0f} req/s once "
        f"running, {fmt.percent(share)} of what Little's law predicts from the wait alone: "
        "the wait, "
        "not Locust, set the rate."
    )
