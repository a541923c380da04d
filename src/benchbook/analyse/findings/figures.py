"""How page 1 prints a headline's figure: its estimate (pooled over this machine class's
sessions where they make a model, else this session's) with its intervals, on the scale its
sentence ranks it on, or a bound; and whether the first side was ahead. The answers
(answers) and the note under them (answer_note) read figures only from here."""

from benchbook.analyse.findings.headlines import Headline
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.words import bounds
from benchbook.analyse.words.findings_format import LOWER_BOUND
from benchbook.analyse.words.sessions import next_session_brief, ranked_estimate, ranked_interval


def figure(h: Headline) -> str:
    """'7.8× (95 % CI 7.4–8.2×; next session 6.9–8.8×)': pooled over this class's sessions
    where three or more make a model, with the interval the next session should fall in
    (the one its verdict is judged on: a narrow CI of the mean says little of one more
    session), else this session's; a bound as bounds.figure words it."""
    if h.reproduced_why == LOWER_BOUND:
        return bounds.figure(h.ratio, h.sessions)
    if h.pooled_ratio is not None:
        interval = fmt.interval(h.pooled_low, h.pooled_high)
        return f"{fmt.ratio(h.pooled_ratio)} (95 % CI {interval}{_next_session(h)})"
    if h.ratio is None:
        return "no comparison"
    if h.ci_low is None or h.ci_high is None:
        return fmt.ratio(h.ratio)
    return f"{fmt.ratio(h.ratio)} ({fmt.level(h.ci_level)} {fmt.interval(h.ci_low, h.ci_high)})"


def ranked(h: Headline) -> str:
    """``figure`` on the scale the headline's own sentence ranks it on, so one fact reads
    one way: '17 % (95 % CI 16–19 %)' for a rate below the other's, '1.06× lower (95 % CI
    1.03–1.08×)' for a time below the other's; otherwise as ``figure``."""
    value = estimate(h)
    pooled = h.pooled_ratio is not None
    low, high = (h.pooled_low, h.pooled_high) if pooled else (h.ci_low, h.ci_high)
    if value is None or value >= 1 or low is None or high is None or not h.significant:
        return figure(h)
    level = fmt.level(0.95 if pooled else h.ci_level)
    return (
        f"{ranked_estimate(value, h.metric)} ({level} "
        f"{ranked_interval(value, low, high, h.metric)}{_next_session(h, value)})"
    )


def _next_session(h: Headline, ranked_as: float | None = None) -> str:
    """'; next session 6.9–8.8×' for a pooled headline with a prediction interval ('' for
    others), on the scale of the ratio ``ranked_as`` where the figure is ranked."""
    if h.pooled_ratio is None or h.predict_low is None or h.predict_high is None:
        return ""
    low, high = h.predict_low, h.predict_high
    if ranked_as is None:
        return "; " + next_session_brief(fmt.interval(low, high), low, high)
    return "; " + next_session_brief(ranked_interval(ranked_as, low, high, h.metric), low, high)


def estimate(h: Headline) -> float | None:
    """The ratio a reader should quote: pooled where there is a model, else this session's."""
    return h.pooled_ratio if h.pooled_ratio is not None else h.ratio


def ahead(h: Headline) -> bool:
    """The first side is significantly ahead: a rate higher, a time lower (or a bound) —
    never where something other than the sides compared set the rates (``set_by``)."""
    value = estimate(h)
    if value is None or h.set_by:
        return False
    if h.reproduced_why == LOWER_BOUND:
        return True
    higher = value > 1
    return h.significant and (higher if h.metric in ("rps", "") else not higher)


def apart(h: Headline) -> str:
    """What set a headline's rates when the sides it compares did not, as a sentence."""
    return f"{h.set_by[0].upper()}{h.set_by[1:]}."
