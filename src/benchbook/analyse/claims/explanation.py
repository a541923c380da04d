"""An article's figure explained by something else it measured, and when that holds.

The side measurement that decides such a verdict (notebook 05's loop against a 404
backend) is a headline of its own: its sessions on this machine class are pooled the way
a headline's are (replication), so one session's number (72× in one, 89× in another)
never decides a verdict by itself. Its words are words.verdicts'.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.sessions import levels
from benchbook.analyse.sessions.replication import Replication, replication

# Machines of one kind differ by 20–30 % between CPU generations: a figure measured on
# the article's machine is explained by a reproduction here whose interval, widened by
# this factor each way, holds it.
EXPLAINS_WITHIN = 1.3
# Why, in the words of every verdict that widens by it.
WIDENED_BECAUSE = (
    "the article's machine, another CPU, may give such a ratio 20–30 % higher or lower"
)


@dataclass(frozen=True)
class Explanation:
    """What the article measured instead (``clause``, in words) and the ratio that
    reproducing it gives here (``reproduced``; NaN without a valid reproduction): pooled
    over this machine class's sessions where they make a model, else this session's,
    with its interval (``low``–``high`` at ``level``) and the sessions behind it
    (``sessions``); ``of`` names the ratio, first side over second ("HTTP's time per call
    over gRPC's"); ``detail``: the figures on each side, beside the article's, in the
    experiment's words (where the ratio's gap comes from, not why)."""

    clause: str
    reproduced: float = math.nan
    low: float = math.nan
    high: float = math.nan
    level: float = math.nan
    sessions: Replication | None = None
    of: str = ""
    detail: str = ""
    # The side the article timed instead (a failed call), its time here (this session's
    # median) and in the article, in one unit: NaN where the explanation names no side.
    timed: float = math.nan
    article_timed: float = math.nan

    def explains(self, article_ratio: float) -> bool:
        """The article's figure lies within the interval printed beside the reproduction
        (words.verdicts.explanation_figure), widened by EXPLAINS_WITHIN each way for the
        machines between: judged on what the reader sees. Sessions added narrow the
        interval, so a verdict may move once, from explained to not, never back. Or the
        side the article timed instead takes here what it took there, within the same
        factor: then the article's figure is that side's time, whatever the other side
        costs on another machine."""
        low, high = self.low / EXPLAINS_WITHIN, self.high * EXPLAINS_WITHIN
        side = (
            self.article_timed / EXPLAINS_WITHIN
            <= self.timed
            <= self.article_timed * EXPLAINS_WITHIN
        )
        return low <= article_ratio <= high or side  # False for missing figures (NaN)


def measured_instead(
    clause: str,
    c: Comparison | None,
    runs: Sequence[dict],
    of: str = "",
    detail: str = "",
    article_timed: float = math.nan,
) -> Explanation:
    """The side measurement ``c`` (this session's comparison) pooled with its stored
    sessions (``runs``: replication.spread's rows) as an Explanation of ``clause``
    (``of``, ``detail``: Explanation's; ``article_timed``: what the article reports for
    c's first side, the one it timed instead, in c's unit)."""
    if c is None or c.ratio != c.ratio:
        return Explanation(clause, of=of)
    sessions = replication(c, runs)
    model = sessions.pooled
    if model is None:
        values = (c.ratio, c.ratio_low, c.ratio_high, c.ratio_confidence)
    else:
        values = (model.estimate, model.low, model.high, levels.CONFIDENCE)
    return Explanation(clause, *values, sessions=sessions, of=of, detail=detail,
                       timed=c.median_a, article_timed=article_timed)  # fmt: skip
