"""The columns of a run's results.csv: one row per load-tool invocation, latency in ms."""

# Every row has these columns first; an experiment adds one column per factor (storage,
# workers, …) and what its tools and checks measure beyond these.
CORE_COLUMNS = [
    "run_id", "experiment", "repetition", "target", "server", "language", "variant",
    "request", "method", "endpoint",
    "tool", "tool_setting", "connections", "users", "threads", "duration_s", "requests", "rps",
    "bytes_per_s", "lat_mean_ms", "lat_stdev_ms", "lat_p50_ms", "lat_p75_ms", "lat_p90_ms",
    "lat_p99_ms", "lat_p999_ms", "lat_max_ms", "err_connect", "err_read", "err_write",
    "err_timeout", "non_2xx", "server_cpu_pct", "server_rss_mb", "server_cpu_ms_per_request",
    "client_cpu_pct",
    "headroom", "host_steal_pct",
    # What set the rate (runs.limits): what it read beyond the above, then its verdict.
    "foreign_cpu_pct", "foreign_processes", "busy_at_start", "server_cores", "client_cores",
    "cpus_shared", "server_waits", "server_delay_ms", "link_rtt_ms",
    "limit", "server_cpu_share", "client_cpu_share", "bound_share",
    "flags", "incident", "raw_path",
]  # fmt: skip

# Read as text whatever they hold (an empty cell is '', never NaN).
TEXT_COLUMNS = [
    "target", "server", "language", "variant", "request", "method", "endpoint", "tool",
    "tool_setting", "flags", "incident", "foreign_processes", "server_waits", "limit",
]  # fmt: skip

# The percentiles every row carries (the core columns); a tool may add more.
CORE_PERCENTILES = (0.5, 0.75, 0.9, 0.99, 0.999)

# What the ``tool`` column holds: the load tools of benchbook.measure.tools (a test keeps
# the two equal), so that a chart can tell a tool's label from a server's.
LOAD_TOOLS = ("bombardier", "ghz", "go-bench", "locust", "vegeta", "wrk")


def percentile_column(share: float) -> str:
    """The column of a latency percentile, in ms: 0.5 → lat_p50_ms, 0.999 → lat_p999_ms,
    1.0 → lat_p100_ms. Every tool and every analysis names percentiles this way."""
    digits = f"{100 * share:g}".replace(".", "")
    return f"lat_p{digits}_ms"
