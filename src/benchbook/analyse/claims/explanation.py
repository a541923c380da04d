"""An article's figure explained by something else it measured, and when that holds.

The side measurement that decides such a verdict (notebook 05's loop against a 404
backend) is a headline of its own: its sessions on this machine class are pooled the way
a headline's are (replication), so one session's number (72× in one, 89× in another)
never decides a verdict by itself.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.sessions import levels
from benchbook.analyse.sessions.replication import replication

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
    """What the article measured instead (``clause``; ``why`` adds what reproducing it
    gives) and the ratio that reproducing it gives here (``reproduced``): pooled over this
    machine class's sessions where they make a model, else this session's, with its
    interval (``low``–``high`` at ``level``) and the sessions behind it (``sessions``:
    replication's words); ``of`` names the ratio, first side over second
    ("HTTP's time per call over gRPC's")."""

    why: str
    reproduced: float
    low: float = math.nan
    high: float = math.nan
    level: float = math.nan
    sessions: str = ""
    of: str = ""
    clause: str = ""

    def explains(self, article_ratio: float) -> bool:
        """The article's figure lies within the interval printed beside the reproduction
        (``figure``), widened by EXPLAINS_WITHIN each way for the machines between: judged
        on what the reader sees. Sessions added narrow the interval, so a verdict may move
        once, from explained to not, never back."""
        low, high = self.low / EXPLAINS_WITHIN, self.high * EXPLAINS_WITHIN
        return low <= article_ratio <= high  # False for a missing interval (NaN)

    def figure(self) -> str:
        """'88× (95 % CI 62–126×; 6 sessions on this machine class)' — the one wording of
        the reproduction, in its reason and in a verdict it does not explain."""
        if not self.sessions:
            return fmt.ratio(self.reproduced)
        interval = fmt.ci(self.low, self.high, self.level)
        return f"{fmt.ratio(self.reproduced)} ({interval}; {self.sessions})"


def measured_instead(
    clause: str, c: Comparison | None, runs: Sequence[dict], of: str = ""
) -> Explanation:
    """The side measurement ``c`` (this session's comparison) pooled with its stored
    sessions (``runs``: replication.spread's rows) as an Explanation whose reason is
    ``clause`` followed by what reproducing it gives here (``of``: Explanation's)."""
    if c is None or c.ratio != c.ratio:
        return Explanation(f"{clause} (no valid reproduction here)", math.nan, of=of, clause=clause)
    sessions = replication(c, runs)
    model = sessions.pooled
    if model is None:
        values = (c.ratio, c.ratio_low, c.ratio_high, c.ratio_confidence)
    else:
        values = (model.estimate, model.low, model.high, levels.CONFIDENCE)
    found = Explanation("", *values, sessions=sessions.text(), of=of, clause=clause)
    return replace(found, why=f"{clause}; reproducing it here gives {found.figure()}")
