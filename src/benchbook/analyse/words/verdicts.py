"""The words of a verdict against an article (claims.verdicts.Judgement): the reason a
reader needs beside its label, and the figure of what the article measured instead."""

from collections.abc import Mapping

from benchbook.analyse.claims.explanation import EXPLAINS_WITHIN, WIDENED_BECAUSE, Explanation
from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.claims.verdicts import Judgement
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import count_text
from benchbook.analyse.numbers.stats import ALPHA
from benchbook.analyse.sessions.replication import Replication
from benchbook.analyse.words.sessions import sessions_text


def verdict_and_reason(judged: Judgement) -> tuple[str, str]:
    """The verdict's label, as the findings store it, and its reason in words."""
    return judged.verdict.label, reason(judged)


def reason(j: Judgement) -> str:
    """Why the verdict is what it is, with the figures that decided it."""
    if j.verdict is Verdict.NO_ARTICLE:
        return "the article gives no ratio of these two to compare"
    article = fmt.ratio(j.article_ratio)
    if j.verdict is Verdict.DIFFERENT_CONDITIONS:
        return f"{j.condition}; {article} in the article"
    if j.verdict is Verdict.SOMETHING_ELSE and j.explanation is not None:
        return explanation_reason(j.explanation)
    if j.verdict is Verdict.NO_VALID_RUNS:
        return "no valid runs to compare"
    unexplained = _unexplained(j.explanation, article)
    if j.verdict is Verdict.TOO_FEW_RUNS and j.c is not None:
        return (
            f"{count_text(j.c)} runs cannot show any difference at p < {ALPHA} "
            f"({article} in the article): run more repetitions{unexplained}"
        )
    if j.verdict is Verdict.NOT_RESOLVABLE:
        return (
            f"{fmt.ratio(j.estimate)} is within what an A/A control strays here; {article} in "
            f"the article{unexplained}"
        )
    where = f"{_judged_on(j.sessions)}, {fmt.interval(j.low, j.high)}"
    if j.verdict is Verdict.REPRODUCED:
        caveat = _beside_the_mean(j.sessions, j.article_ratio)
        return f"the article's {article} lies within {where}{caveat}{unexplained}"
    if j.verdict is Verdict.SAME_DIRECTION:
        size = "larger" if j.larger else "smaller"
        why = f"the article's {article} lies outside {where}, {size} here"
        if j.differences:
            why = (
                f"{why}; where its setup here differs from the article's, that may explain "
                f"it: {j.differences}"
            )
        return why + unexplained
    if j.opposite:
        return f"the opposite direction to the article's {article}{unexplained}"
    return (
        f"{where} holds 1: no difference that the next session keeps; {article} in the "
        f"article{unexplained}"
    )


def explanation_figure(e: Explanation) -> str:
    """'88× (95 % CI 62–126×; 6 sessions on this machine class)' — the one wording of
    the reproduction, in its reason and in a verdict it does not explain."""
    if e.sessions is None:
        return fmt.ratio(e.reproduced)
    interval = fmt.ci(e.low, e.high, e.level)
    return f"{fmt.ratio(e.reproduced)} ({interval}; {sessions_text(e.sessions)})"


def explanation_reason(e: Explanation) -> str:
    """What the article measured instead and what reproducing it gives here."""
    if e.reproduced != e.reproduced:
        return f"{e.clause} (no valid reproduction here)"
    return f"{e.clause}; reproducing it here gives {explanation_figure(e)}{e.detail}"


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
        return f"the 95 % prediction interval for the next session ({sessions_text(sessions)})"
    return f"this session's interval ({sessions_text(sessions)})"


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
        f"{differs}{of} gives {explanation_figure(measured_else)} here, an interval "
        f"that does not reach the article's {article} even with each end moved "
        f"{fmt.ratio(EXPLAINS_WITHIN)} outward ({WIDENED_BECAUSE}): it does not explain this "
        f"figure{measured_else.detail}"
    )


def control_sentence(resolvable: float, control: Mapping) -> str:
    """What an A/A control resolves, from its own figures (findings' ``control``: its
    estimate and the interval printed for it; empty: this session's band alone)."""
    if not control:
        return (
            f" An A/A control (one server measured as two targets in the same rounds) "
            f"strayed up to {fmt.ratio(resolvable)} from itself in this session: ratios "
            "closer to 1 than that are not resolvable on this machine."
        )
    over = "this session" if control["sessions"] <= 1 else f"{control['sessions']} sessions"
    interval = fmt.interval(control["low"], control["high"])
    where = (
        f"the next session's A/A should give {interval} (95 % prediction interval)"
        if control["predicted"]
        else f"its {fmt.level(control['level'])} {interval}"
    )
    which = "ratios"
    if "pooled_low" in control:  # pooled estimates, held against the A/A's pooled mean
        mean = fmt.ci(control["pooled_low"], control["pooled_high"], 0.95)
        over, which = f"{over} ({mean})", f"ratios pooled over {control['sessions']} sessions"
    return (
        f" An A/A control (one server measured as two targets in the same rounds) gave "
        f"{fmt.ratio(control['estimate'])} over {over}; {where}: {which} no farther from 1 "
        f"than {fmt.ratio(resolvable)} are not resolvable on this machine."
    )
