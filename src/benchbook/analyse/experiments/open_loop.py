"""Notebook 06's analysis, in one import: what a closed loop's percentiles do not see,
and how much load a server takes before its tail latency breaks an objective.

- coordinated_omission: the freeze server (a stop-the-world pause of P every T) under an
  open and a closed loop, beside what the pause model predicts for an open loop;
- offered_load: latency against offered load (the "hockey stick"), at rates around each
  server's own closed-loop maximum;
- capacity and capacity_wording: a latency objective (SLO) on p99, the highest rate at
  which each server still meets it (its capacity at that SLO), compared between servers;
- tail_sentence (here): what wrk timed against the open loop at p99, for page 1.
"""

import pandas as pd

from benchbook.analyse import formatting as fmt
from benchbook.analyse.experiments.capacity import (
    CAPACITY,
    capacity_marks,
    capacity_runs,
    capacity_table,
    slo_per_target,
)
from benchbook.analyse.experiments.capacity_wording import (
    bound_reason,
    capacity_comparison,
    capacity_label,
    capacity_sentence,
)
from benchbook.analyse.experiments.coordinated_omission import (
    LABELS,
    OPEN,
    OPEN_SHORT,
    TIMED,
    TIMED_SHORT,
    freeze_brief,
    freeze_percentiles,
    freeze_runs,
    freeze_sentences,
    freeze_table,
    missed_stall,
    pause_mean_ms,
    pause_model,
    stalled_share,
    timed_vs_open_loop,
)
from benchbook.analyse.experiments.offered_load import (
    closed_loop_maxima,
    load_table,
    offered_rates,
)
from benchbook.analyse.tables import valid_rows
from benchbook.measure.tools.base import percentile_column

__all__ = [
    "CAPACITY",
    "LABELS",
    "OPEN_SHORT",
    "TIMED",
    "TIMED_SHORT",
    "bound_reason",
    "capacity_comparison",
    "capacity_label",
    "capacity_marks",
    "capacity_runs",
    "capacity_sentence",
    "capacity_table",
    "closed_loop_maxima",
    "freeze_brief",
    "freeze_percentiles",
    "freeze_runs",
    "freeze_sentences",
    "freeze_table",
    "load_table",
    "offered_rates",
    "pause_mean_ms",
    "pause_model",
    "slo_per_target",
    "tail_sentence",
    "timed_vs_open_loop",
]


def tail_sentence(freeze: pd.DataFrame, period_s: float) -> str:
    """What wrk timed (before its fill-in) against the open loop at p99, then at p90, for
    page 1: medians over the valid runs of freeze_runs' frame, as freeze_brief reads them,
    with why the stall does or does not reach a closed loop's p99 (the share of wrk's
    requests that met a pause against the 1 % above it). '' without valid runs of both."""
    columns = {percentile_column(share): share for share in (0.9, 0.99)}
    medians = valid_rows(freeze).groupby("target")[list(columns)].median().rename(columns=columns)
    value = medians.reindex([OPEN, TIMED])  # NaN for a source without valid runs
    if value.isna().any(axis=None):
        return ""
    timed, opened = float(value.loc[TIMED, 0.99]), float(value.loc[OPEN, 0.99])
    verdict = missed_stall(opened, timed)
    share = stalled_share(freeze[freeze["target"] == TIMED], period_s)
    how = "matched" if verdict.startswith("was close") else verdict + " against"
    more = share > 0.01
    reach = "so the stall can reach a closed loop's p99 too" if more else "so its p99 can miss it"
    return (
        f"At p99, what wrk timed ({fmt.milliseconds(timed)} ms) {how} the open loop's "
        f"({fmt.milliseconds(opened)} ms): {share:.1%} of wrk's requests met a pause, "
        f"{'more' if more else 'fewer'} than the 1 % above a p99, {reach}; at p90 "
        f"wrk timed {fmt.milliseconds(value.loc[TIMED, 0.9])} ms against the open loop's "
        f"{fmt.milliseconds(value.loc[OPEN, 0.9])} ms."
    )
