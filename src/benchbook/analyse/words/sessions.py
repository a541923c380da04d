"""A headline's answer in words across its sessions: pooled over this machine class where
three or more sessions make a model (with the prediction for the next session), "not yet
replicated" where they do not, and the other machine classes (across_classes)."""

from collections.abc import Sequence

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.sessions.replication import Replication
from benchbook.analyse.words.across_classes import statement
from benchbook.analyse.words.conclusions import metric, ranking, verdict


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
            f"the ±{(band - 1) * 100:.0f} % that the same server measured twice strays here "
            "(A/A control)."
        )
    if pooled is None:
        alone = verdict(c, a, b, column, unit, brief=True) + f" {sessions.text().capitalize()}"
        if sessions.predicted is None:
            return alone + "."
        low, high = sessions.predicted.predict_low, sessions.predicted.predict_high
        span = (
            ranked_interval(estimate, low, high, column, unit)
            if sessions.significant(c)
            else fmt.interval(low, high)
        )  # on the scale the session's sentence ranks it on
        return f"{alone}; {next_session(span)}."
    interval = f"95 % CI {fmt.interval(pooled.low, pooled.high)}"
    model = sessions.predicted or pooled  # the prediction a verdict is judged on
    predicted = next_session(fmt.interval(model.predict_low, model.predict_high))
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
        ranked_interval(estimate, model.predict_low, model.predict_high, column, unit)
    )
    return f"{ranking(estimate, a, b, column, unit)} (over {over}: {interval}; {predicted})."


def next_session(interval: str) -> str:
    """The prediction for the next session, worded one way wherever it is printed: with its
    level, since it is the interval a verdict is judged on."""
    return f"the next session should give {interval} (95 % prediction interval)"


def ranked_interval(ratio: float, low: float, high: float, column: str, unit: str = "") -> str:
    """An interval on the scale ranking() words its ratio in: a share ('51–53 %') where a
    rate below 1 reads '52 % of', inverted ('1.88–1.96×') where a time below 1 reads
    '1.92× lower', the ratio's own scale otherwise."""
    m = metric(column, unit)
    if ratio >= 1:
        return fmt.interval(low, high)
    if m.higher_is_better:
        return fmt.share_interval(low, high)
    return fmt.interval(1 / high, 1 / low)


def ranked_estimate(ratio: float, column: str, unit: str = "") -> str:
    """A ratio on the scale ranking() words it in: '52 %' for a rate below 1, '1.92×
    lower' for a time below 1 (from the unrounded ratio), '1.3×' otherwise."""
    m = metric(column, unit)
    if ratio >= 1:
        return fmt.ratio(ratio)
    return fmt.share(ratio) if m.higher_is_better else f"{fmt.ratio(1 / ratio)} lower"


def across(
    c: Comparison | None,
    sessions: Replication,
    column: str,
    unit: str = "",
    runs: Sequence[dict] = (),
    go_side: str = "",
    limit: str = "",
) -> str:
    """What the sessions say beyond this one: the pooled estimate and the prediction for
    the next session on this class, or that it is not yet replicated; and the other
    machine classes (across_classes.statement; ``runs``: spread's rows, ``go_side`` and
    ``limit``: whether and why not the speed-reference model applies). A difference is
    worded on the scale its brief ranks it on (brief), so a headline prints one interval
    one way wherever it appears."""
    if c is None or sessions.sessions == 0:
        return ""
    pooled, predicted = sessions.pooled, sessions.predicted
    ranked = sessions.significant(c)

    def figure(ratio: float) -> str:
        return ranked_estimate(ratio, column, unit) if ranked else fmt.ratio(ratio)

    def span(low: float, high: float) -> str:
        if not ranked:
            return fmt.interval(low, high)
        return ranked_interval(sessions.estimate(c), low, high, column, unit)

    if pooled is None and predicted is not None:
        # What it borrows is said once, beside the headline in Appendix B: in every
        # verdict it would make each conclusion table twice as long.
        interval = span(predicted.predict_low, predicted.predict_high)
        text = (
            f" {sessions.text().capitalize()}; {next_session(interval)}; Appendix B says what "
            "it is built from."
        )
        spread = (predicted.predict_low, predicted.predict_high)
    elif pooled is None:
        text = f" {sessions.text().capitalize()}; {sessions.basis()}."
        spread = (c.ratio_low, c.ratio_high)
    else:
        text = (
            f" Over {sessions.sessions} sessions on this machine class: "
            f"{figure(pooled.estimate)} (95 % CI {span(pooled.low, pooled.high)}); "
            f"{next_session(span(predicted.predict_low, predicted.predict_high))}."
        )
        spread = (predicted.predict_low, predicted.predict_high)
    return text + statement(
        sessions.estimate(c), spread, sessions.machine_class, runs, sessions.others, go_side, limit
    )
