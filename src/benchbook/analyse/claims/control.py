"""The A/A control of a comparison: one server measured as two targets in the same rounds,
whose ratio should be 1, so how far it strays is the smallest ratio the setup resolves."""

import math
from collections.abc import Callable

import pandas as pd

from benchbook.analyse.numbers.pairing import aa_band, comparison
from benchbook.analyse.rows.counted import counted_rows
from benchbook.analyse.sessions.kinds import kind_sessions
from benchbook.analyse.sessions.replication import replication, spread
from benchbook.runs.labels import aa_copy_of


def control_band(
    valid: pd.DataFrame,
    results: pd.DataFrame,
    column: str,
    experiment: str,
    select: Callable[[pd.DataFrame], pd.DataFrame] | None,
    current: set[str],
    pooled: bool = False,
) -> tuple[float | None, dict]:
    """The smallest ratio this setup resolves, from its A/A control, and the control's own
    figures: its estimate over this class's sessions (this session's alone below three)
    and the interval printed for it as for any headline (Replication.judged: the next
    session's prediction, borrowing the spread of the class's A/A controls below three
    sessions; else this session's CI). The band is that interval's farther end from 1:
    an estimate no farther than the next A/A session may stray is not resolvable. An
    estimate ``pooled`` over sessions is held against the control's pooled mean instead,
    where the control is pooled too: its 95 % CI's farther end (``figures``' pooled_low and
    pooled_high). This session's own band where the control has no interval. The control
    of the rows compared, else of the whole run (a selection, such as one pooled over
    paths, may leave it out); (None, {}) without a control."""
    control, chosen = aa_band(valid, column), select
    if control is None:
        control, chosen = aa_band(counted_rows(results, column), column), None
    if control is None:
        return None, {}
    original, band = control
    copy = aa_copy_of(original)
    rows = valid if chosen else counted_rows(results, column)
    c = comparison(rows, original, copy, column)
    runs = spread(experiment, original, copy, column, chosen, current)
    model = replication(c, runs, kinds=kind_sessions(column, control=True))
    if c is None or model.sessions == 0:
        return band, {}
    low, high = model.judged(c)
    figures = {"estimate": model.estimate(c), "low": low, "high": high, "level": c.ratio_confidence,
               "predicted": model.predicted is not None, "sessions": model.sessions}  # fmt: skip
    if pooled and model.pooled is not None:
        low, high = model.pooled.low, model.pooled.high
        figures |= {"pooled_low": low, "pooled_high": high}
    return math.exp(max(abs(math.log(low)), abs(math.log(high)))), figures
