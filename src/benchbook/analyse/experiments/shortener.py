"""Notebook 04's URL shortener: the writes table beside what each store promises, and
what the author's Locust wait did to the rate (Little's law with the wait in it)."""

import pandas as pd

from benchbook.analyse.display.tables import summary_table
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import comparison
from benchbook.analyse.rows.counted import counted_rows, valid_rows, with_derived
from benchbook.runs.durations import parse_duration
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.locust_output import steady_rps

WRITE_COLUMNS = ["runs", "req/s", "req/s CI", "CI level", "p99 ms", "server CPU %", "flags"]
# A Locust rate this close to what the users' wait allows (or above it) was set by the wait.
REACHED = 0.95


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


def workers_caveat(results: pd.DataFrame, many: str, one: str, workers: int) -> str:
    """Whether a read ratio against aiohttp with ``workers`` gunicorn workers (``many``, the
    article's count) is against its best setting: '' when one worker (``one``) served
    measurably less in this session's runs (or was not measured: one worker count), else
    what one did."""
    c = None if many == one else comparison(counted_rows(with_derived(results)), many, one)
    if c is None or (c.significant and c.ratio > 1):
        return ""
    one_did, lead = (
        (f"served {fmt.ratio(1 / c.ratio)} as much", "is")
        if c.significant
        else ("was not measurably slower", "may be")
    )
    return (
        f"aiohttp ran the article's {workers} gunicorn workers; with 1 it {one_did} in this "
        f"session's runs, so Go's lead over aiohttp's best setting {lead} smaller"
    )


def wait_sentence(waiting: pd.DataFrame, users: int) -> str:
    """What the users sent once running against what Little's law predicts from their wait
    (waiting_users' table: the range over its servers, as it prints them), or that the
    runs were too short to say."""
    measured, share = waiting["measured req/s"].dropna(), waiting["measured/predicted"].dropna()
    if measured.empty:  # no run settled
        return "The Locust runs were too short to settle (see the Little's-law section)."
    rates = fmt.count_range(measured)
    low, high = share.min(), share.max()
    # each end as the table's ratio rounds it (1.21 → 121 %), not to two figures
    shares = fmt.percent(low) if fmt.percent(low) == fmt.percent(high) else (
        f"{fmt.percent(low).removesuffix(' %')}–{fmt.percent(high)}")  # fmt: skip
    reached = low >= REACHED
    # a short run need not sit on the long-run rate; say where these did, not why
    side = "above it in every run" if low > 1 else "below it in every run" if high < 1 else (
        "on both sides of it")  # fmt: skip
    return (
        f"Under Locust with the author's wait, in this session's runs {users} users sent {rates} "
        "req/s once running, "
        f"{shares} of the long-run rate Little's law gives for users that wait (users ÷ "
        f"(mean wait + mean response); runs this short need not match it, and these were "
        f"{side})"
        + (": the rate was the wait's, so the wait, not Locust, set it." if reached else ".")
    )


def waiting_users(results: pd.DataFrame, mean_wait_s: float) -> pd.DataFrame:
    """Little's law for users that wait: U users, each sending one request per (mean
    wait + mean response time), send U ÷ that many requests per second in the long run.
    Per target: the prediction from the measured response time, and the rate measured
    once every user was running and past its first wait (steady_rps)."""
    rows = []
    for target, runs in valid_rows(results).groupby("target", sort=False):
        users = runs["users"].median()
        response_s = runs["lat_mean_ms"].median() / 1000
        steady = [steady_rps(REPO_ROOT / raw, mean_wait_s + response_s) for raw in runs["raw_path"]]
        rows.append(
            {
                "target": target,
                "users": users,
                "mean wait s": mean_wait_s,
                "mean response ms": 1000 * response_s,
                "predicted req/s": users / (mean_wait_s + response_s),
                "measured req/s": pd.Series(steady).median(),
            }
        )
    table = pd.DataFrame(rows).set_index("target")
    table["measured/predicted"] = table["measured req/s"] / table["predicted req/s"]
    return table
