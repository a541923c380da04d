"""Verdicts against the articles, by meaning: whether an article's figure reproduced
here, or why the comparison says something else, with the reason a reader needs.
``reproduction`` takes the rules in this order:

1. no figure in the article: nothing to judge;
2. a condition known to set the result differs from the article's (a link's Little's-law
   ceiling; a rate here set by something other than the servers compared — the load
   tool, the users' wait, a busy machine, nothing measured: rows.limits):
   "different conditions: not comparable", naming it — never "not reproduced";
3. the article measured something else, when reproducing that lands near the article's
   figure (Explanation.explains); one that does not is named in the reason of whatever
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

from benchbook.analyse.claims.explanation import EXPLAINS_WITHIN, WIDENED_BECAUSE, Explanation
from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import count_text, too_few
from benchbook.analyse.numbers.stats import ALPHA, Comparison
from benchbook.analyse.sessions.replication import Replication


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
        return Verdict.NO_ARTICLE.label, "the article gives no ratio of these two to compare"
    article = fmt.ratio(article_ratio)
    if different_conditions or set_by:
        reason = different_conditions or set_by
        return Verdict.DIFFERENT_CONDITIONS.label, f"{reason}; {article} in the article"
    if measured_else is not None and measured_else.explains(article_ratio):
        return Verdict.SOMETHING_ELSE.label, measured_else.why
    unexplained = _unexplained(measured_else, article)
    if c is None or c.ratio != c.ratio:
        return Verdict.NO_VALID_RUNS.label, "no valid runs to compare"
    sessions = sessions or Replication()
    low, high = sessions.judged(c)
    if too_few(c) and sessions.predicted is None:
        return Verdict.TOO_FEW_RUNS.label, (
            f"{count_text(c)} runs cannot show any difference at p < {ALPHA} "
            f"({article} in the article): run more repetitions{unexplained}"
        )
    estimate = sessions.estimate(c)
    if sessions.within_band(c, band):
        return Verdict.NOT_RESOLVABLE.label, (
            f"{fmt.ratio(estimate)} is within what an A/A control strays here; {article} in "
            f"the article{unexplained}"
        )
    where = f"{_judged_on(sessions)}, {fmt.interval(low, high)}"
    if low <= article_ratio <= high:
        caveat = _beside_the_mean(sessions, article_ratio)
        return Verdict.REPRODUCED.label, (
            f"the article's {article} lies within {where}{caveat}{unexplained}"
        )
    if low <= 1 <= high:
        return Verdict.NOT_REPRODUCED.label, (
            f"{where} holds 1: no difference that the next session keeps; {article} in the "
            f"article{unexplained}"
        )
    if (estimate > 1) == (article_ratio > 1):
        size = "larger" if abs(math.log(estimate)) > abs(math.log(article_ratio)) else "smaller"
        why = f"the article's {article} lies outside {where}, {size} here"
        if differences:
            why = (
                f"{why}; where its setup here differs from the article's, that may explain "
                f"it: {differences}"
            )
        return Verdict.SAME_DIRECTION.label, why + unexplained
    return (
        Verdict.NOT_REPRODUCED.label,
        f"the opposite direction to the article's {article}{unexplained}",
    )


def _beside_the_mean(sessions: Replication, article_ratio: float) -> str:
    """Where a session can give the article's figure but the class's mean cannot be it (the
    pooled 95 % CI leaves it out), a caveat that changes what 'reproduced' means."""
    pooled = sessions.pooled
    if pooled is None or pooled.low <= article_ratio <= pooled.high:
        return ""
    side = "above" if pooled.low > article_ratio else "below"
    return (
        f", though the mean of this class's sessions, {fmt.ratio(pooled.estimate)} (95 % CI "
        f"{fmt.interval(pooled.low, pooled.high)}), lies {side} it: a session can give the "
        "article's figure, but the average here differs from it"
    )


def _judged_on(sessions: Replication) -> str:
    """What the judged interval is, in words (Replication.judged's cases): the one the
    answer prints beside it."""
    if sessions.predicted is not None:
        return f"the 95 % prediction interval for the next session ({sessions.text()})"
    return f"this session's interval ({sessions.text()})"


def _unexplained(measured_else: Explanation | None, article: str) -> str:
    """'; the article's own measurement differs from this one (its HTTP backend answered
    404 …), but reproducing it, HTTP's time per call over gRPC's, gives 0.88× (95 % CI …;
    6 sessions on this machine class) here, an interval that …' ('' without one)."""
    if measured_else is None:
        return ""
    differs = (
        f"; the article's own measurement differs from this one ({measured_else.clause}), but "
        "reproducing it"
        if measured_else.clause
        else "; what the article timed instead"
    )
    of = f", {measured_else.of}," if measured_else.of else ""
    return (
        f"{differs}{of} gives {measured_else.figure()} here, an interval "
        f"that does not reach the article's {article} even with each end moved "
        f"{fmt.ratio(EXPLAINS_WITHIN)} outward ({WIDENED_BECAUSE}): it does not explain this "
        "figure"
    )
