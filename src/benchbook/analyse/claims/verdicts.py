"""Verdicts against the articles, by meaning: whether an article's figure reproduced
here, or why the comparison says something else, as a Judgement that holds what decided
it (words.verdicts says it). ``judge`` takes the rules in this order:

1. no figure in the article: nothing to judge;
2. a condition known to set the result differs from the article's (a link's Little's-law
   ceiling; a rate here set by something other than the servers compared — the load
   tool, the users' wait, a busy machine, nothing measured: rows.limits):
   "different conditions: not comparable", naming it — never "not reproduced";
3. the article measured something else, when reproducing that lands near the article's
   figure, or gives the side it timed instead (a failed call) near the article's time for
   it (Explanation.explains); one that does neither is named in the reason of whatever
   verdict follows;
4. no valid runs; too few runs to show any difference (while nothing else gives the
   session an interval);
5. the estimate within what an A/A control strays: not resolvable — decided first, since
   then no figure, the article's included, can be told from no difference;
6. "reproduced" when the article's figure lies inside the interval the answer prints for
   the next session (Replication.judged: the 95 % prediction interval, else this
   session's own interval) — the one interval a reader sees, page 1's chart draws and the
   glossary defines;
7. that interval holds 1: not reproduced, no difference that the next session keeps;
8. the same direction with another size, naming what differs; or the opposite direction.

How counting a session can move a verdict. Every rule reads the estimate (the mean of
the class's sessions' log ratios), the printed interval and the A/A band. A session equal
to the estimate leaves the mean where it is and narrows the prediction (one more degree
of freedom, √(1 + 1/k) smaller, no more scatter), so such sessions can move a verdict
once, from "reproduced" to a difference, as the interval narrows past the article's
figure, and never back (tests/test_verdict_invariance.py). Only data that move the mean
move it otherwise.
"""

import math
from dataclasses import dataclass, field, replace

from benchbook.analyse.claims.explanation import Explanation
from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.numbers.pairing import too_few
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.sessions.replication import Replication


@dataclass(frozen=True)
class Judgement:
    """A verdict and what decided it, at full precision: the article's figure, the
    condition that differs (DIFFERENT_CONDITIONS, in the words rows.limits or the notebook
    gave it), what the article measured instead (``explanation``: the reason where it
    explains the figure, else named beside the verdict), this session's comparison, the
    sessions behind the printed interval, the estimate and that interval (``low``–``high``),
    and for a difference whether it is the opposite direction or ``larger`` here, with the
    setup's ``differences`` from the article's."""

    verdict: Verdict
    article_ratio: float = math.nan
    condition: str = ""
    explanation: Explanation | None = None
    c: Comparison | None = None
    sessions: Replication = field(default_factory=Replication)
    estimate: float = math.nan
    low: float = math.nan
    high: float = math.nan
    opposite: bool = False
    larger: bool = False
    differences: str = ""


def judge(
    c: Comparison | None,
    article_ratio: float | None,
    set_by: str = "",
    measured_else: Explanation | None = None,
    differences: str = "",
    band: float | None = None,
    sessions: Replication | None = None,
    different_conditions: str = "",
) -> Judgement:
    """Whether the article's figure reproduced here, by meaning: the rules of the
    module's docstring, in their order."""
    if article_ratio is None:
        return Judgement(Verdict.NO_ARTICLE)
    if different_conditions or set_by:
        condition = different_conditions or set_by
        return Judgement(Verdict.DIFFERENT_CONDITIONS, article_ratio, condition)
    if measured_else is not None and measured_else.explains(article_ratio):
        return Judgement(Verdict.SOMETHING_ELSE, article_ratio, explanation=measured_else)
    judged = Judgement(Verdict.NO_VALID_RUNS, article_ratio, explanation=measured_else, c=c)
    if c is None or c.ratio != c.ratio:
        return judged
    sessions = sessions or Replication()
    low, high = sessions.judged(c)
    estimate = sessions.estimate(c)
    judged = replace(judged, sessions=sessions, estimate=estimate, low=low, high=high)
    if too_few(c) and sessions.predicted is None:
        return replace(judged, verdict=Verdict.TOO_FEW_RUNS)
    if sessions.within_band(c, band):
        return replace(judged, verdict=Verdict.NOT_RESOLVABLE)
    if low <= article_ratio <= high:
        return replace(judged, verdict=Verdict.REPRODUCED)
    if low <= 1 <= high:
        return replace(judged, verdict=Verdict.NOT_REPRODUCED)
    if (estimate > 1) == (article_ratio > 1):
        larger = abs(math.log(estimate)) > abs(math.log(article_ratio))
        return replace(judged, verdict=Verdict.SAME_DIRECTION, larger=larger,
                       differences=differences)  # fmt: skip
    return replace(judged, verdict=Verdict.NOT_REPRODUCED, opposite=True)
