"""The notebooks' headline comparisons, as a class's results state them: the ratio of
two targets' medians in a student's run (course.class_results), each side chosen as the
notebook's own Conclusion chooses it (its ``select``)."""

import re
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from benchbook.analyse.display.ceilings import by_tool_setting
from benchbook.analyse.display.tables import of_tool
from benchbook.analyse.experiments.coordinated_omission import (
    OPEN_SHORT,
    TIMED_SHORT,
    timed_vs_open_loop,
)
from benchbook.analyse.experiments.fan_out import by_mode, idle_and_heavy
from benchbook.analyse.experiments.grpc_http import calls
from benchbook.analyse.rows.counted import valid_rows, without_controls
from benchbook.runs.wrk_output import TOOL as WRK


@dataclass(frozen=True)
class Headline:
    """A notebook's headline comparison as a ratio of medians: ``a``'s median of
    ``column`` over ``b``'s, in the rows ``select`` names (the notebook's own select),
    for each experiment matching the pattern ``experiment``."""

    experiment: str  # an fnmatch pattern: 07_network_rtt* is one ratio per link
    label: str
    a: str
    b: str
    column: str = "rps"
    select: Callable[[pd.DataFrame], pd.DataFrame] | None = None


# The notebooks' headline comparisons (their Conclusion cells' conclusion.compare), at
# their default parameters; the ones a ratio of two medians states. A side a student's
# run lacks (other parameters) shows as missing, never as another comparison.
HEADLINES = (
    Headline("00_load_generators", "wrk vs Locust HttpUser, one Go server", WRK,
             "locust HttpUser x1", select=by_tool_setting),
    Headline("00_load_generators", "wrk vs Locust FastHttpUser, one Go server", WRK,
             "locust FastHttpUser x1", select=by_tool_setting),
    Headline("01_io_concurrency", "Go vs FastAPI (uvloop+httptools)", "go-iodelay",
             "python-iodelay uvloop+httptools"),
    Headline("01_io_concurrency", "Go vs FastAPI (asyncio+h11)", "go-iodelay",
             "python-iodelay asyncio+h11"),
    Headline("02_hello_world_locust", "Go vs FastAPI under Locust", "go-hello", "python-hello"),
    Headline("02_hello_world_wrk", "Go vs FastAPI under wrk", "go-hello", "python-hello",
             select=of_tool(WRK)),
    Headline("03_goroutine_fanout", "sequential (sc) vs goroutines (cc), ids pooled", "sc",
             "cc", select=by_mode),
    Headline("03_goroutine_fanout_crossover", "goroutines (cc) vs sequential (sc), work "
             "10000, 1 connection", "cc", "sc", select=idle_and_heavy(10000)),
    Headline("04_url_shortener_get", "Go vs Python (gunicorn, 4 workers), both on Redis",
             "go-shortener redis get",
             "python-shortener redis workers=4 get"),
    Headline("04_url_shortener_post", "Go on Bolt vs Go on Redis, create",
             "go-shortener bolt create", "go-shortener redis create"),
    Headline("05_grpc_vs_http_gobench", "Python backend, HealthCheck: HTTP vs gRPC",
             "Python backend, HTTP/JSON, HealthCheck", "Python backend, gRPC, HealthCheck",
             "ns_per_op", calls),
    Headline("05_grpc_vs_http_gobench", "Go backend, HealthCheck: HTTP vs gRPC",
             "Go backend, HTTP/JSON, HealthCheck", "Go backend, gRPC, HealthCheck",
             "ns_per_op", calls),
    Headline("06_open_loop_freeze", "freeze server: what wrk timed vs the open loop",
             TIMED_SHORT, OPEN_SHORT, "lat_p90_ms", timed_vs_open_loop),
    Headline("07_network_rtt*", "Go vs FastAPI (uvloop+httptools) over the link",
             "go-iodelay", "python-iodelay uvloop+httptools"),
    Headline("07_network_rtt*", "Python backend over the link: HTTP/JSON vs gRPC",
             "python-governance-http HealthCheck", "python-governance-grpc HealthCheck",
             "lat_p50_ms"),
)  # fmt: skip


def quantity(column: str) -> str:
    """What a column holds, as a table names it: 'req/s', 'ns per call', 'p90 latency, ms'."""
    if column == "rps":
        return "req/s"
    if column == "ns_per_op":
        return "ns per call"
    if match := re.fullmatch(r"lat_(p\d+)_ms", column):
        return f"{match[1]} latency, ms"
    return column


def headline_ratio(headline: Headline, rows: pd.DataFrame) -> float | None:
    """``headline.a``'s median over ``headline.b``'s in ``rows`` (valid rounds, the A/A
    copy left out, the headline's select); None when a side has no rounds."""
    rows = without_controls(valid_rows(rows))
    if headline.select is not None:
        try:
            rows = headline.select(rows)
        except (KeyError, ValueError):  # a run without the columns the select reads
            return None
    if headline.column not in rows:
        return None
    medians = []
    for side in (headline.a, headline.b):
        values = pd.to_numeric(rows.loc[rows["target"] == side, headline.column], "coerce")
        if values.dropna().empty:
            return None
        medians.append(float(values.median()))
    a, b = medians
    return a / b if b else None
