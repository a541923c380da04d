"""Notebook 03's rows, labelled by what each request asked for: the mode (sequential
``sc`` or goroutines ``cc``), the id and the work per lookup, read from the path it
loaded, so the comparisons group by them and every stored session is read the same way."""

from collections.abc import Callable

import pandas as pd

from benchbook.analyse.rows.counted import without_controls

_PATH = r"^/(?P<mode>sc|cc)/(?P<id>\d+)(?:\?work=(?P<work>\d+))?"


def label_paths(results: pd.DataFrame) -> pd.DataFrame:
    """mode (sc/cc), id and work, read from the path each row loaded (the A/A control's
    copy left out: it would count one path twice)."""
    results = without_controls(results)
    parts = results["endpoint"].str.extract(_PATH)
    return results.assign(
        mode=parts["mode"],
        id=parts["id"].astype(int),
        work=pd.to_numeric(parts["work"]).fillna(1).astype(int),
    )


def by_mode(results: pd.DataFrame) -> pd.DataFrame:
    """Every run labelled by its mode alone: the ids pooled."""
    labelled = label_paths(results)
    return labelled.assign(target=labelled["mode"])


def idle_and_heavy(work: int) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A headline's ``select``: by_mode's rows at one connection and ``work`` scans per
    lookup, where fan-out has an idle core to use and enough to do on it."""

    def select(results: pd.DataFrame) -> pd.DataFrame:
        rows = by_mode(results)
        return rows[(rows["connections"] == 1) & (rows["work"] == work)]

    return select
