"""Locust's stored output, read: a run's final statistics (``--json`` on stdout), its
latency percentiles, and the run second by second. benchbook.measure.tools.locust parses
rows with the same readers; the analyses read stored runs with them.

Final numbers come from ``--json`` on stdout, never from ``_stats.csv``, which misses
requests still being counted at exit (12-17 % of them in runs captured here), nor from
``--json-file``, which with ``--processes`` every worker writes too, so that an empty
worker array can end up in the file. Latency percentiles come from Locust's
response-time histogram, whose buckets are rounded (1 ms below 100 ms, 10 ms below 1 s,
100 ms above).
"""

import io
import json
from pathlib import Path

import pandas as pd

from benchbook.runs import outputs
from benchbook.runs.columns import percentile_column
from benchbook.runs.layout import REPO_ROOT

# The percentiles Locust prints (and articles quote): 50 % … 100 %.
LOCUST_PERCENTILES = (0.5, 0.66, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 0.9999, 1.0)


class LocustOutputError(ValueError):
    """Locust's stored output is not what a finished run leaves."""


STATS_KEYS = {"name", "method", "num_requests", "num_failures", "response_times"}


def final_stats(stdout: str) -> list[dict]:
    """The run's final statistics from Locust's ``--json`` stdout: one array per
    process (with ``--processes``, empty ones from the workers and the master's
    aggregate). Anything else in stdout, or more than one non-empty array, is an error
    rather than a guess."""
    arrays = json_arrays(stdout)
    if not arrays:
        raise LocustOutputError("no JSON statistics in Locust's output; was it run with --json?")
    for array in arrays:
        for entry in array:
            if not isinstance(entry, dict) or not STATS_KEYS <= set(entry):
                raise LocustOutputError(
                    f"Locust's output holds a JSON array that is not request statistics "
                    f"(an entry without {sorted(STATS_KEYS)}): {str(entry)[:200]}"
                )
    filled = [array for array in arrays if array]
    if len(filled) > 1:
        raise LocustOutputError(
            f"Locust's output holds {len(filled)} non-empty statistics arrays; expected one "
            "(the master's aggregate), so which is the run's total is unknown"
        )
    return filled[0] if filled else []


def json_arrays(text: str) -> list[list]:
    """The JSON arrays that make up ``text``, one after the other; any other content
    is an error naming where it starts."""
    decoder, arrays, position = json.JSONDecoder(), [], 0
    while (position := _skip_space(text, position)) < len(text):
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            value = None
        if not isinstance(value, list):
            raise LocustOutputError(
                f"Locust's stdout is not only JSON statistics: at character {position}: "
                f"{text[position : position + 120]!r}"
            )
        arrays.append(value)
    return arrays


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def history_path(stats_file: Path) -> Path:
    """``<prefix>_stats_history.csv`` beside ``<prefix>.json.txt``."""
    return stats_file.with_name(stats_file.name.removesuffix(".json.txt") + "_stats_history.csv")


def per_second(stats_file: Path) -> pd.DataFrame:
    """The run second by second, from its start: ``rps``, the requests completed in that
    second (exact counts from the final statistics; the last second is partial),
    ``users`` running, and ``p95_ms``, Locust's own p95 over the preceding 10 s (its
    history CSV, written every second). The files may be loose or packed (runs.outputs)."""
    entries = final_stats(outputs.read_text(stats_file))
    counts: dict[int, int] = {}
    for entry in entries:
        for second, count in entry["num_reqs_per_sec"].items():
            counts[int(second)] = counts.get(int(second), 0) + count
    history = pd.read_csv(
        io.BytesIO(outputs.read_bytes(history_path(stats_file))), na_values=["N/A"]
    )
    history = history[history["Name"] == "Aggregated"].set_index("Timestamp")
    seconds = sorted(set(counts) | set(history.index))
    return pd.DataFrame(
        {
            "t_s": [t - seconds[0] for t in seconds],
            "rps": [counts.get(t, 0) for t in seconds],
            "users": history["User Count"].reindex(seconds).ffill().fillna(0).astype(int).values,
            "p95_ms": history["95%"].reindex(seconds).values,
        }
    )


def steady_rps(stats_file: Path, settle_s: float) -> float:
    """Requests per second once every user is running and ``settle_s`` more has passed
    (their first requests, sent at start, no longer count), to the last whole second.
    NaN when the run was too short to settle."""
    series = per_second(stats_file)
    full = series.index[series["users"] == series["users"].max()]
    if full.empty:
        return float("nan")
    start = series.loc[full[0], "t_s"] + settle_s
    steady = series[(series["t_s"] >= start) & (series.index < series.index[-1])]
    return float(steady["rps"].mean()) if len(steady) else float("nan")


def response_times(entries: list[dict]) -> dict[float, int]:
    """Response time (ms, rounded as Locust rounds it) → count, all names pooled."""
    histogram: dict[float, int] = {}
    for e in entries:
        for value, count in e["response_times"].items():
            histogram[float(value)] = histogram.get(float(value), 0) + count
    return histogram


def with_locust_percentiles(results: pd.DataFrame) -> pd.DataFrame:
    """Locust runs' results plus a column per percentile Locust prints (50 % … 100 %),
    each computed from the run's raw statistics."""
    rows = []
    for raw_path in results["raw_path"]:
        histogram = response_times(final_stats(outputs.read_text(REPO_ROOT / raw_path)))
        total = sum(histogram.values())
        rows.append(
            {percentile_column(s): percentile_of(histogram, total, s) for s in LOCUST_PERCENTILES}
        )
    return results.assign(**pd.DataFrame(rows, index=results.index))


def percentile_table(results: pd.DataFrame) -> pd.DataFrame:
    """Locust's "Response time percentiles" table (ms) per target, each percentile the
    median over the runs, and the median request count."""
    data = with_locust_percentiles(results)
    columns = {percentile_column(s): f"{100 * s:g}%" for s in LOCUST_PERCENTILES}
    table = data.groupby("target", sort=False)[[*columns, "requests"]].median()
    return table.rename(columns=columns | {"requests": "# reqs"})


def percentile_of(histogram: dict[float, int], total: int, share: float) -> float | None:
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= share * total:
            return value
    return None
