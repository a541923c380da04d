"""wrk's stored output, read: the measurement columns of a row from the line our Lua
reporter (measure/tools/wrk_report.lua) prints. benchbook.measure.tools.wrk parses rows
with it; a session import re-parses stored raw outputs with it (benchbook.store), which
imports nothing of the harness.
"""

import json

from benchbook.runs.columns import CORE_PERCENTILES, percentile_column

TOOL = "wrk"  # the ``tool`` column of the rows this reader's output gave
MARKER = "BENCHBOOK_WRK "


class WrkOutputError(ValueError):
    """wrk output without exactly one line of our reporter."""


def parse_wrk_output(text: str) -> dict[str, float | int | None]:
    """The measurement columns of a tidy row, from wrk's output with our reporter's line.

    wrk counts statuses above 399 as ``errors.status`` (our ``non_2xx``) and still counts
    those responses in its request total; requests slower than ``--timeout`` are only
    counted as timeouts and are missing from the latency histogram.
    """
    lines = [line for line in text.splitlines() if line.startswith(MARKER)]
    if len(lines) != 1:
        raise WrkOutputError(
            f"expected one '{MARKER.strip()}' line from the Lua reporter, found {len(lines)}; "
            "was wrk run with -s wrk_report.lua?"
        )
    data = json.loads(lines[0][len(MARKER) :])
    duration_s = data["duration_us"] / 1e6
    lat = data["latency_us"]

    def ms(us: float | None) -> float | None:
        return None if us is None else us / 1000

    return {
        "duration_s": duration_s,
        "requests": data["requests"],
        "rps": data["requests"] / duration_s,
        "bytes_per_s": data["bytes"] / duration_s,
        "lat_mean_ms": ms(lat["mean"]),
        "lat_stdev_ms": ms(lat["stdev"]),
        **{percentile_column(s): ms(lat["percentiles"][f"{100 * s:g}"]) for s in CORE_PERCENTILES},
        "lat_max_ms": ms(lat["max"]),
        "err_connect": data["errors"]["connect"],
        "err_read": data["errors"]["read"],
        "err_write": data["errors"]["write"],
        "err_timeout": data["errors"]["timeout"],
        "non_2xx": data["errors"]["status"],
    }
