"""Notebook 06's analysis, in one import: what a closed loop's percentiles do not see,
and how much load a server takes before its tail latency breaks an objective.

- coordinated_omission: the freeze server (a stop-the-world pause of P every T) under an
  open and a closed loop, beside what the pause model predicts for an open loop;
- offered_load: latency against offered load (the "hockey stick"), at rates around each
  server's own closed-loop maximum;
- capacity and capacity_wording: a latency objective (SLO) on p99, the highest rate at
  which each server still meets it (its capacity at that SLO), compared between servers.
"""

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
    OPEN_SHORT,
    TIMED,
    TIMED_SHORT,
    freeze_brief,
    freeze_percentiles,
    freeze_runs,
    freeze_sentences,
    freeze_table,
    pause_mean_ms,
    pause_model,
    timed_vs_open_loop,
)
from benchbook.analyse.experiments.offered_load import (
    closed_loop_maxima,
    load_table,
    offered_rates,
)

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
    "timed_vs_open_loop",
]
