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

from benchbook.analyse.experiments.capacity import (
    CAPACITY,
    capacity_marks,
    capacity_of,
    capacity_runs,
    capacity_table,
    slo_per_target,
)
from benchbook.analyse.experiments.capacity_wording import (
    bound_reason,
    capacity_comparison,
    capacity_figures,
    capacity_label,
    capacity_sentence,
    stalls_and_capacity,
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
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.rows.counted import valid_rows
from benchbook.runs.columns import percentile_column

__all__ = [
    "CAPACITY",
    "LABELS",
    "OPEN_SHORT",
    "TIMED",
    "TIMED_SHORT",
    "bound_reason",
    "capacity_comparison",
    "capacity_figures",
    "capacity_label",
    "capacity_marks",
    "capacity_of",
    "capacity_runs",
    "capacity_sentence",
    "stalls_and_capacity",
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


def tail_sentence(freeze: pd.DataFrame, period_s: float, pause_s: float | None = None) -> str:
    """Page 1's sentence on the stall: whether what wrk timed at p90 and at p99 missed it,
    against the open loop (medians over the valid runs of freeze_runs' frame, as
    freeze_brief reads them), and why the p99 does or does not (the share of wrk's requests
    that met a pause against the 1 % above a p99; ``pause_s``: how long the server stops,
    said so that page 1 needs no notebook). '' without valid runs of both."""
    columns = {percentile_column(share): share for share in (0.9, 0.99)}
    medians = valid_rows(freeze).groupby("target")[list(columns)].median().rename(columns=columns)
    value = medians.reindex([OPEN, TIMED])  # NaN for a source without valid runs
    if value.isna().any(axis=None):
        return ""
    share = stalled_share(freeze[freeze["target"] == TIMED], period_s)
    said, hid = [], False
    for percentile, label in ((0.9, "p90"), (0.99, "p99")):
        timed, opened = float(value.loc[TIMED, percentile]), float(value.loc[OPEN, percentile])
        missed = missed_stall(opened, timed).startswith("missed")
        hid = hid or missed
        said.append(
            f"its {label} {'missed' if missed else 'showed'} it "
            f"({fmt.milliseconds(timed)} ms against the open loop's {fmt.milliseconds(opened)} ms)"
        )
    # stalled_share is an upper bound: at most one request per connection per pause
    why = (
        f"up to {fmt.percent(share, 1)} of wrk's requests could meet a pause, more than the 1 % "
        "a p99 leaves out"
        if share > 0.01
        else f"at most {fmt.percent(share, 1)} of wrk's requests met a pause, fewer than the 1 % "
        "a p99 leaves out"
    )
    lead = "hid part of" if hid else "saw"
    timed = "as wrk timed them (before its own correction, which the notebook weighs too)"
    stall = "the stall" if pause_s is None else (
        f"the stall of a server that stops for {1000 * pause_s:g} ms every "
        f"{1000 * period_s:,.0f} ms")  # fmt: skip
    return f"A closed loop {lead} {stall}: {timed}, {said[0]}, and {said[1]}; {why}."
