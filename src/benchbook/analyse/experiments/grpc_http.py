"""Notebook 05's per-call rows (go test -bench's Ops benchmark), named by backend,
transport and operation, so a headline reads the same rows from every stored session."""

import pandas as pd

# A transport as a reader knows it.
TRANSPORTS = {"http": "HTTP/JSON", "grpc": "gRPC"}


def _backend_and_transport(frame: pd.DataFrame) -> pd.Series:
    """'Python backend, gRPC' for the rows of backend 'python' over transport 'grpc'."""
    transport = frame["transport"].map(lambda t: TRANSPORTS.get(t, t))
    return frame["backend"].str.capitalize() + " backend, " + transport


def calls(frame: pd.DataFrame) -> pd.DataFrame:
    """The per-operation rows of a stored run, named by backend, transport and operation
    ('Python backend, gRPC, HealthCheck'), as a sentence names them."""
    ops = frame[frame["benchmark"] == "Ops"]
    return ops.assign(target=_backend_and_transport(ops) + ", " + ops["operation"])


# go test -bench's measures per call, as a reader reads them.
MEASURES = {
    "ns_per_op": "time per call (ns)",
    "bytes_per_op": "bytes per call",
    "allocs_per_op": "allocations per call",
}


def article_versus_here(article: pd.DataFrame, ops: pd.DataFrame) -> pd.DataFrame:
    """The article's time, bytes and allocations per call (its published rows) beside the
    medians measured here on the same Python backend, operation by operation."""
    per_call = article[article["metric"].str.endswith("_per_op")].copy()
    per_call[["operation", "measure"]] = per_call["metric"].str.split("_", n=1, expand=True)
    versus = per_call.pivot_table(
        index=["operation", "measure"], columns="side", values="value", aggfunc="first"
    )
    measured = list(MEASURES)
    ours = (
        ops[ops["backend"] == "python"]
        .melt(id_vars=["operation", "transport"], value_vars=measured, var_name="measure")
        .groupby(["operation", "measure", "transport"])["value"]
        .median()
        .unstack()
    )
    both = versus.add_prefix("article ").join(ours.add_prefix("here "), how="left")
    return both.rename(index=MEASURES, level="measure")


def by_backend_and_transport(frame: pd.DataFrame) -> pd.DataFrame:
    """Each row named by its backend and transport ('Python backend, gRPC'): the bars and
    curves that put the four servers side by side for one operation."""
    return frame.assign(target=_backend_and_transport(frame))


def with_microseconds(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows with their time per call in µs too (``us_per_op``), the unit a table of
    calls that take tens to hundreds of µs reads best in."""
    return frame.assign(us_per_op=frame["ns_per_op"] / 1000)
