"""A headline's answer in words across its sessions: pooled over this machine class where
three or more sessions make a model (with the prediction for the next session), "not yet
replicated" where they do not, and the other machine classes (across_classes)."""

import dataclasses
import math
from collections.abc import Mapping, Sequence
from functools import partial
from statistics import variance

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.sessions import levels
from benchbook.analyse.sessions.machine_classes import UNRECORDED
from benchbook.analyse.sessions.planner import (
    NEXT_SESSION,
    POOLED,
    components_from,
    floor,
    half_width,
)
from benchbook.analyse.sessions.replication import Replication
from benchbook.analyse.words.across_classes import statement
from benchbook.analyse.words.conclusions import metric, ranking, verdict


def sessions_text(sessions: Replication) -> str:
    """'7 sessions on this machine class', or for fewer than levels.MIN_SESSIONS 'one
    session: not yet replicated' (sessions_basis says what its interval is built from)."""
    if sessions.pooled is not None:
        return f"{sessions.sessions} sessions on this machine class"
    count = "one session" if sessions.sessions <= 1 else f"{sessions.sessions} sessions"
    return f"{count}: not yet replicated"


def sessions_basis(sessions: Replication) -> str:
    """What a not-yet-replicated headline's prediction is built from."""
    spread = sessions.spread
    if spread is None:
        return (
            "no other headline of this kind has two sessions, so its interval is this "
            "session's rounds alone, which leave out how far sessions move"
        )
    others = f"{spread.headlines} other headline{'s' if spread.headlines > 1 else ''}"
    where = "on this machine class"
    if spread.scope != levels.THIS_CLASS:
        where = "on every machine class (no other headline on this class has two sessions)"
    return (
        f"from this session's estimate and how far one session strays from the next "
        f"over {others} of this kind {where}"
    )


def aa_strays(band: float | None) -> str:
    """How far the same server measured twice strays here, as every sentence says it."""
    if band is None:
        return "what the same server measured twice strays here"
    return (
        f"the {fmt.ratio(band)} either way that the same server measured twice strays here "
        "(A/A control)"
    )


def brief(
    c: Comparison | None,
    a: str,
    b: str,
    column: str,
    unit: str,
    band: float | None,
    sessions: Replication,
) -> str:
    """The answer and its interval — pooled over this class's sessions where three or
    more make a model, else this session's, said to be one; a ratio inside the A/A band
    is no verdict at all."""
    if c is None:
        return "not ranked: no valid runs."
    pooled = sessions.pooled
    estimate = sessions.estimate(c)
    if sessions.significant(c) and sessions.within_band(c, band):
        return (
            f"**Not resolvable on this machine**: {a} vs {b} {fmt.ratio(estimate)} is within "
            f"{aa_strays(band)}."
        )
    if pooled is None:
        count = sessions_text(sessions).capitalize()
        alone = verdict(c, a, b, column, unit, brief=True) + f" {count}"
        if sessions.predicted is None:
            return alone + "."
        low, high = sessions.predicted.predict_low, sessions.predicted.predict_high
        span = (
            ranked_interval(estimate, low, high, column, unit)
            if sessions.significant(c)
            else fmt.interval(low, high)
        )  # on the scale the session's sentence ranks it on
        return f"{alone}; {next_session(span, low, high)}."
    interval = f"95 % CI {fmt.interval(pooled.low, pooled.high)}"
    model = sessions.predicted or pooled  # the prediction a verdict is judged on
    predicted = next_session(
        fmt.interval(model.predict_low, model.predict_high), model.predict_low, model.predict_high
    )
    over = f"{sessions.sessions} sessions on this machine class"
    if not sessions.significant(c):
        return (
            f"**No significant difference** in {metric(column, unit).name} between **{a}** "
            f"and **{b}** over {over}: {fmt.ratio(estimate)} ({interval}; {predicted})."
        )
    # The intervals on the ranking's own scale: '1.92× lower (… 95 % CI 1.88–1.96×)',
    # never '1.92× lower (95 % CI 0.511–0.532×)'.
    interval = f"95 % CI {ranked_interval(estimate, pooled.low, pooled.high, column, unit)}"
    predicted = next_session(
        ranked_interval(estimate, model.predict_low, model.predict_high, column, unit),
        model.predict_low,
        model.predict_high,
    )
    return f"{ranking(estimate, a, b, column, unit)} (over {over}: {interval}; {predicted})."


# A prediction interval whose high end is this many times its low end says nothing a reader
# can use of the next session (two sessions far apart, judged by t with one degree of
# freedom, reach "71,567,596,892× lower to 18,905,077× higher").
UNINFORMATIVE_FOLD = 10_000


def next_session(interval: str, low: float, high: float) -> str:
    """The prediction for the next session (``interval``: low–high as the sentence ranks
    it), worded one way wherever it is printed: with its level, since it is the interval a
    verdict is judged on; said to tell nothing where it spans UNINFORMATIVE_FOLD or more."""
    if high >= low * UNINFORMATIVE_FOLD:
        return (
            "these sessions differ too much to say what the next should give (its 95 % "
            f"prediction interval spans over {UNINFORMATIVE_FOLD:,}-fold)"
        )
    return f"the next session should give {interval} (95 % prediction interval)"


def next_session_brief(interval: str, low: float, high: float) -> str:
    """next_session for a short figure: 'next session 6.9–8.8×', or that it tells nothing."""
    if high >= low * UNINFORMATIVE_FOLD:
        return f"next session: no telling, its range spans over {UNINFORMATIVE_FOLD:,}-fold"
    return f"next session {interval}"


def ranked_interval(ratio: float, low: float, high: float, column: str, unit: str = "") -> str:
    """An interval on the scale ranking() words its ratio in: a share ('51–53 %') where a
    rate below 1 reads '52 % of', inverted ('1.88–1.96× lower') where a time below 1 reads
    '1.92× lower' (from 'N× lower' to 'M× higher' where it reaches above 1), the ratio's
    own scale otherwise."""
    m = metric(column, unit)
    if ratio >= 1:
        return fmt.interval(low, high)
    if m.higher_is_better:
        return fmt.share_interval(low, high)
    if high > 1:  # lower at one end, higher at the other: '0.970–1.13× lower' would mislead
        return f"{fmt.ratio(1 / low)} lower to {fmt.ratio(high)} higher"
    return fmt.interval(1 / high, 1 / low) + " lower"


def ranked_estimate(ratio: float, column: str, unit: str = "") -> str:
    """A ratio on the scale ranking() words it in: '52 %' for a rate below 1, '1.92×
    lower' for a time below 1 (from the unrounded ratio), '1.3×' otherwise."""
    m = metric(column, unit)
    if ratio >= 1:
        return fmt.ratio(ratio)
    return fmt.share(ratio) if m.higher_is_better else f"{fmt.ratio(1 / ratio)} lower"


def pooled_sentence(
    estimate: float,
    interval: tuple[float, float],
    predicted: tuple[float, float],
    column: str,
    unit: str = "",
) -> str:
    """'1.85× lower (95 % CI 1.64–2.08×); the next session should give 1.46–2.33× (95 %
    prediction interval)': a pooled headline's estimate and both intervals, ranked (a share,
    a time 'lower') where its CI excludes 1, as its answer words it; the one wording of them
    wherever they print (here, and the sessions appendix)."""
    low, high = interval
    ranked = not low <= 1 <= high

    def span(lo: float, hi: float) -> str:
        return ranked_interval(estimate, lo, hi, column, unit) if ranked else fmt.interval(lo, hi)

    figure = ranked_estimate(estimate, column, unit) if ranked else fmt.ratio(estimate)
    return f"{figure} (95 % CI {span(low, high)}); {next_session(span(*predicted), *predicted)}"


def across(
    c: Comparison | None,
    sessions: Replication,
    column: str,
    unit: str = "",
    runs: Sequence[dict] = (),
    go_side: str = "",
    limit: str = "",
) -> tuple[str, str]:
    """What the sessions say beyond this one, in two parts: the pooled estimate and the
    prediction for the next session on this class, or that it is not yet replicated (for
    the verdict, which then points to the second); and the other machine classes
    (across_classes.statement, for the sessions appendix; ``runs``: spread's rows,
    ``go_side`` and ``limit``: whether and why not the speed-reference model applies). A
    difference is worded on the scale its brief ranks it on (brief), so a headline prints
    one interval one way wherever it appears."""
    if c is None or sessions.sessions == 0:
        return "", ""
    pooled, predicted = sessions.pooled, sessions.predicted
    ranked = sessions.significant(c)

    def span(low: float, high: float) -> str:
        if not ranked:
            return fmt.interval(low, high)
        return ranked_interval(sessions.estimate(c), low, high, column, unit)

    if pooled is None and predicted is not None:
        # What it borrows is said once, beside the headline in Appendix B: in every
        # verdict it would make each conclusion table twice as long.
        interval = span(predicted.predict_low, predicted.predict_high)
        text = (
            f" {sessions_text(sessions).capitalize()}; "
            f"{next_session(interval, predicted.predict_low, predicted.predict_high)}; "
            "Appendix B says what "
            "it is built from."
        )
        spread = (predicted.predict_low, predicted.predict_high)
    elif pooled is None:
        text = f" {sessions_text(sessions).capitalize()}; {sessions_basis(sessions)}."
        spread = (c.ratio_low, c.ratio_high)
    else:
        intervals = (pooled.low, pooled.high), (predicted.predict_low, predicted.predict_high)
        text = (
            f" Over {sessions.sessions} sessions on this machine class: "
            f"{pooled_sentence(pooled.estimate, *intervals, column, unit)}."
        )
        spread = (predicted.predict_low, predicted.predict_high)

    other_class = partial(_other_class, ranked=ranked, column=column, unit=unit)
    others = statement(
        sessions.estimate(c), spread, sessions.machine_class, runs, sessions.others, go_side,
        limit, other_class,
    ).strip()  # fmt: skip
    return text + (" Other machine classes: Appendix C." if others else ""), others


def _other_class(estimate: float, low: float, high: float, ranked: bool, column: str,
                 unit: str) -> str:  # fmt: skip
    """Another class's figures, on the scale this class's sentence ranks on (``ranked``)."""
    if not ranked:
        return f"{fmt.ratio(estimate)} ({fmt.interval(low, high)})"
    return (
        f"{ranked_estimate(estimate, column, unit)} "
        f"({ranked_interval(estimate, low, high, column, unit)})"
    )


def levels_sentence(spread: Sequence[Mapping], tau: float | None = None) -> str:
    """Where a headline's width comes from, in words (``tau``: the pooled model's spread
    between sessions, used where given): its two variances, what twice the
    rounds per session would narrow (which depends on them), what one more session would
    (which, at a given number of sessions, does not) and the floor; '' below two
    sessions. Shares of each interval's width, not new widths: the printed intervals stay
    the one statement of the widths."""
    c = components_from(spread)
    if c is None:
        return ""
    if tau is not None:  # the pooled model's own τ, so that one spread is said one way
        c = dataclasses.replace(c, session_var=tau**2)
    rounds = f"one round's ratio varies by {sd_text(c.round_var)} within a session"
    sessions = (
        f"sessions on this machine class differ by {sd_text(c.session_var)} beyond their rounds"
        if c.session_var > 0
        else "sessions on this machine class differ no more than their rounds explain"
    )
    k, n = c.sessions, c.rounds

    def narrower(interval: str, rounds: int, sessions: int) -> float:
        now = half_width(c, interval, n, k)
        return 1 - math.log1p(half_width(c, interval, rounds, sessions)) / math.log1p(now)

    doubled = narrower(NEXT_SESSION, 2 * n, k)  # the same share for both intervals
    low = floor(c, NEXT_SESSION)
    never = (
        f"; no number of rounds or sessions takes the next session's below ±{fmt.share_point(low)}"
        if low > 0 else ""
    )  # fmt: skip
    return (
        f"Where its width comes from (standard deviations, {k} sessions of {n} rounds): "
        f"{rounds}, and {sessions}. Twice the rounds per session would narrow both intervals "
        f"by {fmt.share_point(doubled)}; one more session narrows them as it does any headline of "
        f"{k} sessions (the pooled one by {fmt.share_point(narrower(POOLED, n, k + 1))}, the next "
        f"session's by {fmt.share_point(narrower(NEXT_SESSION, n, k + 1))}){never}."
        + classes_sentence(spread)
    )


def classes_sentence(spread: Sequence[Mapping]) -> str:
    """The third level, where sessions under the same conditions come from several machine
    classes: how far the classes' mean ratios differ (one standard deviation of the
    means, which also carries each class's own session scatter); '' with one class."""
    by_class: dict[str, list[float]] = {}
    for r in spread:
        if r.get("same_conditions") and r.get("machine_class") not in ("", None, UNRECORDED):
            if (r.get("ratio") or 0) > 0:
                by_class.setdefault(r["machine_class"], []).append(math.log(r["ratio"]))
    if len(by_class) < 2:
        return ""
    means = [sum(logs) / len(logs) for logs in by_class.values()]
    sessions = sum(len(logs) for logs in by_class.values())
    return (
        f" Between machine classes, the mean ratios of {len(means)} classes ({sessions} "
        f"sessions) differ by {sd_text(variance(means))}: a session on another class is "
        f"predicted from that class's own sessions and speed references, not from this "
        f"class's interval."
    )


def sd_text(variance: float) -> str:
    """A log-scale variance as the ±% of one standard deviation on the ratio."""
    return "±" + fmt.share_point(math.expm1(math.sqrt(variance)))


def _leaning(what: str, spread: levels.Spread, elsewhere: str) -> str:
    """', with how far machines differ over 5 other headlines of this kind on this class':
    the spread a statement leaned on (``elsewhere``: where it came from when not this class)."""
    where = "on this class" if spread.scope == levels.THIS_CLASS else elsewhere
    others = spread.headlines
    return (
        f", with how far {what} differ over {others} other headline"
        f"{'s' if others != 1 else ''} of this kind {where}"
    )


def _statement(opening: str, estimate: float, low: float, high: float, basis: str,
               ranked: bool, column: str, unit: str) -> str:  # fmt: skip
    """'<opening> should give 6.1–9.8× (95 % prediction interval; <basis>).', ranked as the
    headline's answer ranks it."""
    span = ranked_interval(estimate, low, high, column, unit) if ranked else fmt.interval(low, high)
    return f"{opening} should give {span} (95 % prediction interval; {basis})."


def another_machine(sessions: Replication, ranked: bool, column: str, unit: str = "") -> str:
    """'A session on another machine of this class should give 6.1–9.8× (95 % prediction
    interval; from its sessions on 2 machines, with how far machines differ over 5 other
    headlines of this kind on this class)': sessions.machines' statement, ranked as the
    headline's answer ranks it; '' without one."""
    statement = sessions.another_machine
    if statement is None:
        return ""
    machines = f"its sessions on {statement.machines} machines"
    basis = f"from {'this machine alone' if statement.machines == 1 else machines}"
    if statement.borrowed is not None:
        basis += _leaning(
            "machines", statement.borrowed, "on the classes that have two machines or more"
        )
    return _statement("A session on another machine of this class", statement.estimate,
                      statement.low, statement.high, basis, ranked, column, unit)  # fmt: skip


def another_session(sessions: Replication, ranked: bool, column: str, unit: str = "") -> str:
    """'Another session on this machine should give 7.0–7.6× (95 % prediction interval;
    from its 2 sessions here, with how far sessions on one machine differ over 14 other
    headlines of this kind on this class)': sessions.machines' statement for this session's
    machine, ranked as the headline's answer ranks it; '' without one."""
    statement = sessions.another_session
    if statement is None:
        return ""
    count, model = statement.sessions, statement.model
    basis = "from this session alone" if count == 1 else f"from its {count} sessions here"
    if statement.leaned is not None:
        basis += _leaning("sessions on one machine", statement.leaned, "on every class")
    elif count > 1:
        basis += " alone"
    return _statement("Another session on this machine", model.estimate, model.predict_low,
                      model.predict_high, basis, ranked, column, unit)  # fmt: skip
