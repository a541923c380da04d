"""Notebook 05's reproduction of seed 001's loop: its HTTP side answered 404 to every call
and the loop only logged the errors, so what it timed was the failures. The table of
that loop's medians, the ratio it gives per operation, and the reason a verdict cites."""

import pandas as pd

from benchbook.analyse import formatting as fmt


def article_loop_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Median ns/op and errors/op per operation (rows) and transport (columns)."""
    columns = ["ns_per_op", "errors_per_op"]
    return rows.groupby(["operation", "transport"])[columns].median().unstack()


def http_over_grpc(table: pd.DataFrame, operation: str) -> float:
    """The loop's HTTP time per call over its gRPC time, as the article reported it."""
    return table.loc[operation, ("ns_per_op", "http")] / table.loc[operation, ("ns_per_op", "grpc")]


def timed_404s(table: pd.DataFrame, operation: str) -> str:
    """Why the article's figure for ``operation`` measured something else, with the ratio
    its own loop gives here against a backend that answers 404."""
    return (
        "its HTTP backend answered 404 to every call and its loop timed the failures "
        f"(reproduced here: {fmt.ratio(http_over_grpc(table, operation))} against a 404 "
        "backend)"
    )
