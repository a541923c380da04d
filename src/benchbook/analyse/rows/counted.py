"""Which rows count: the runs whose numbers measure their target (valid: no invalid flag,
runs.flags), those whose limit lets them count for a column (runs.limits), the columns
derived from them, and how many runs carry each flag and limit."""

from collections import Counter
from collections.abc import Sequence

import pandas as pd

from benchbook.analyse.numbers.stats import summarize
from benchbook.runs.flags import is_valid
from benchbook.runs.labels import is_aa_copy
from benchbook.runs.limits import NOT_COUNTED, Limit


def with_derived(results: pd.DataFrame) -> pd.DataFrame:
    """The results plus derived columns: ``errors`` (connect + read + write),
    ``timeouts_per_million`` requests and ``headroom_pct``. Rows are grouped by their
    ``target`` label, which a notebook may relabel (e.g. to pool several paths)."""
    out = results.copy()
    out["errors"] = out[["err_connect", "err_read", "err_write"]].sum(axis=1)
    out["timeouts_per_million"] = out["err_timeout"] / out["requests"] * 1e6
    out["headroom_pct"] = 100 * out["headroom"]
    return out


def without_controls(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of the targets themselves, without an A/A control's copy (which would
    count one server twice wherever rows are grouped by server, path or mode)."""
    return results[~results["target"].astype(str).map(is_aa_copy)]


def valid_rows(results: pd.DataFrame) -> pd.DataFrame:
    """Rows whose numbers measure the server doing its job (runs.flags.INVALID_FLAGS)."""
    return results[results["flags"].fillna("").map(is_valid)]


# Flags that change what a number means (short_run only makes rare percentiles rough).
SUSPECT_FLAGS = (
    "errors", "timeouts", "non_2xx", "client_bound", "near_tool_ceiling", "littles_law",
    "bad_response", "server_died", "data_loss", "rate_shortfall", "workers_exhausted",
    "network_bound", "busy_machine",
)  # fmt: skip

RATE_COLUMNS = ("rps",)  # what a run's limit sets: a rate (a latency is judged otherwise)


def not_counted(column: str) -> tuple[Limit, ...]:
    """The limits whose rows do not count for ``column`` (runs.limits): a busy machine's
    always, and nothing-at-its-limit's for a rate."""
    return NOT_COUNTED if column in RATE_COLUMNS else (Limit.MACHINE,)


def counted_rows(rows: pd.DataFrame, column: str = "rps") -> pd.DataFrame:
    """The valid rows whose limit lets them count for ``column``: a row a busy machine
    set, or (for a rate) that nothing measured limited, says nothing about its target."""
    valid = valid_rows(rows)
    if "limit" not in valid:
        return valid
    return valid[~valid["limit"].isin([str(limit) for limit in not_counted(column)])]


def medians_with_ci(
    results: pd.DataFrame, column: str, by: Sequence[str] = ("target",), every_valid: bool = False
) -> pd.DataFrame:
    """Median of ``column`` and its CI per group of ``by``, in order of appearance, over
    the rows that count for it (counted_rows), as the tables beside a chart count them;
    over every valid row with ``every_valid`` (a chart that shows what no limit set)."""
    rows = []
    kept = valid_rows(results) if every_valid else counted_rows(results, column)
    for keys, group in with_derived(kept).groupby(list(by), sort=False):
        s = summarize(group[column])
        rows.append(
            {**dict(zip(by, keys, strict=True)), "median": s.median, "low": s.low,
             "high": s.high, "n": s.n}
        )  # fmt: skip
    # No row counts (a busy machine's every run, say): an empty table with its columns.
    return pd.DataFrame(rows, columns=[*by, "median", "low", "high", "n"])


def limit_counts(valid: pd.DataFrame) -> str:
    """'server 5/6, machine 1/6': what set the rate of how many valid runs (runs.limits),
    most first."""
    if "limit" not in valid or valid.empty:
        return ""
    counts = valid["limit"].fillna("").astype(str).value_counts()
    return ", ".join(f"{limit} {n}/{len(valid)}" for limit, n in counts.items() if limit)


def _flag_runs(flags: pd.Series) -> Counter[str]:
    """How many of these runs carry each flag (runs.flags: ';'-separated per run)."""
    return Counter(flag for cell in flags.fillna("") for flag in filter(None, str(cell).split(";")))


def flag_counts(flags: pd.Series) -> str:
    """'littles_law 2/5, short_run 5/5': how many of a target's runs carry each flag."""
    counts = _flag_runs(flags)
    return ", ".join(f"{flag} {counts[flag]}/{len(flags)}" for flag in sorted(counts))


def suspect_flags(results: pd.DataFrame, target: str) -> dict[str, tuple[int, int]]:
    """Each flag of SUSPECT_FLAGS that a target's runs carry → (runs carrying it, runs)."""
    flags = results.loc[results["target"] == target, "flags"]
    counts = _flag_runs(flags)
    return {flag: (counts[flag], len(flags)) for flag in sorted(counts) if flag in SUSPECT_FLAGS}
