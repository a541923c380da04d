"""Verdicts against the articles, by meaning: whether an article's figure reproduced
here, or why the comparison says something else, with the reason a reader needs.
``reproduction`` takes the rules in this order:

1. no figure in the article: nothing to judge;
2. a condition known to set the result differs from the article's (a link's Little's-law
   ceiling; a rate here set by something other than the servers compared — the load
   tool, the users' wait, a busy machine, nothing measured: rate_limits):
   "different conditions: not comparable", naming it — never "not reproduced";
3. the article measured something else, when reproducing that lands near the article's
   figure (Explanation.explains); one that does not is named in the reason of whatever
   verdict follows;
4. no valid runs; too few runs to show any difference (while nothing else gives the
   session an interval);
5. the estimate within what an A/A control strays: not resolvable — decided first, since
   then no figure, the article's included, can be told from no difference;
6. "reproduced" when the article's figure lies inside the interval the verdict is judged
   on (Replication.judged);
7. that interval holds 1: not reproduced, no difference that the next session keeps;
8. the same direction with another size, naming what differs; or the opposite direction.

Why counting a session cannot flip a verdict. Every rule reads only the estimate (the mean
of the class's sessions' log ratios), the judged interval and the A/A band. The judged
interval is the mean ± t · S · √2: S is how far one session lies from its headline's mean,
pooled over the class's OTHER headlines of the same kind, and √2 makes it as wide as the
prediction from one session at every k. A session equal to the estimate leaves the mean
where it is and does not enter S, so all three stay put and so does the verdict; k identical
sessions have one mean and one S, so one verdict. Only data that move the mean move a
verdict. (Two exceptions, named in the reason: with three or more machine classes the
verdict uses the prediction for a new class, and where no other headline of the kind has
two sessions, the headline's own prediction, which does narrow as sessions agree.)
"""

import math

from benchbook.analyse import formatting as fmt
from benchbook.analyse.explanation import Explanation
from benchbook.analyse.pairing import count_text, too_few
from benchbook.analyse.replication import Replication
from benchbook.analyse.stats import ALPHA, Comparison

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
SOMETHING_ELSE = "the article measured something else"
NO_ARTICLE = "no article figure"
TOO_FEW_RUNS = "too few runs"
SAME_DIRECTION = "same direction, different size"
DIFFERENT_CONDITIONS = "different conditions: not comparable"
NOT_RESOLVABLE = "not resolvable on this machine"
NO_VALID_RUNS = "no valid runs"


def reproduction(
    c: Comparison | None,
    article_ratio: float | None,
    set_by: str = "",
    measured_else: Explanation | None = None,
    differences: str = "",
    band: float | None = None,
    sessions: Replication | None = None,
    different_conditions: str = "",
) -> tuple[str, str]:
    """Whether the article's figure reproduced here, by meaning, and why: the rules of
    the module's docstring, in their order."""
    if article_ratio is None:
        return NO_ARTICLE, "the article gives no figure to compare"
    article = fmt.ratio(article_ratio)
    if different_conditions or set_by:
        reason = different_conditions or set_by
        return DIFFERENT_CONDITIONS, f"{reason}; {article} in the article"
    if measured_else is not None and measured_else.explains(article_ratio):
        return SOMETHING_ELSE, measured_else.why
    unexplained = _unexplained(measured_else, article)
    if c is None or c.ratio != c.ratio:
        return NO_VALID_RUNS, "no valid runs to compare"
    sessions = sessions or Replication()
    low, high = sessions.judged(c)
    if too_few(c) and sessions.predicted is None and sessions.verdict is None:
        return TOO_FEW_RUNS, (
            f"{count_text(c)} runs cannot show any difference at p < {ALPHA} "
            f"({article} in the article): run more repetitions{unexplained}"
        )
    estimate = sessions.estimate(c)
    if sessions.within_band(c, band):
        return NOT_RESOLVABLE, (
            f"{fmt.ratio(estimate)} is within what an A/A control strays here; {article} in "
            f"the article{unexplained}"
        )
    where = f"{_judged_on(sessions)}, {fmt.interval(low, high)}"
    if low <= article_ratio <= high:
        return REPRODUCED, f"the article's {article} lies within {where}{unexplained}"
    if low <= 1 <= high:
        return NOT_REPRODUCED, (
            f"{where} holds 1: no difference that the next session keeps; {article} in the "
            f"article{unexplained}"
        )
    if (estimate > 1) == (article_ratio > 1):
        size = "larger" if abs(math.log(estimate)) > abs(math.log(article_ratio)) else "smaller"
        why = f"the article's {article} lies outside {where}, {size} here"
        if differences:
            why = f"{why}; what differs: {differences}"
        return SAME_DIRECTION, why + unexplained
    return NOT_REPRODUCED, f"the opposite direction to the article's {article}{unexplained}"


def _judged_on(sessions: Replication) -> str:
    """What the judged interval is, in words (Replication.judged's cases, in its order)."""
    if sessions.across is not None:
        return "the prediction interval for a new machine class"
    if sessions.verdict is not None:
        return f"the prediction interval for one session on this machine class ({sessions.text()})"
    if sessions.predicted is not None:
        return f"the prediction interval for the next session ({sessions.text()})"
    return f"this session's interval ({sessions.text()})"


def _unexplained(measured_else: Explanation | None, article: str) -> str:
    """'; what the article timed instead gives 0.88× (95 % CI …; 6 sessions on this
    machine class) here, not 3.1×: …' ('' without one)."""
    if measured_else is None:
        return ""
    return (
        f"; what the article timed instead gives {measured_else.figure()} here, not "
        f"{article}: it does not explain this figure"
    )
