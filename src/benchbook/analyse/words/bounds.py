"""A lower bound in words (claims.bounds holds its numbers): 'at least N×' as an answer's
figure, the sentence of a headline or of one session's capacities, or why no bound holds.
The one place a bound is worded."""

import pandas as pd

from benchbook.analyse.claims.bounds import AT_MOST, Bound
from benchbook.analyse.numbers import formatting as fmt


def sessions_text(sessions: int) -> str:
    """'over 8 sessions on this machine class' or 'in this one session'."""
    if sessions <= 1:
        return "in this one session"
    return f"over {sessions} sessions on this machine class"


def figure(value: float | None, sessions: int) -> str:
    """A bound as a figure of an answer: 'at least 13× (the lowest of 8 sessions on this
    machine class)'; without one, why none holds (its lowest run does not clear the other
    side's highest by more than the other side's runs differ), so that a session's own
    ratio printed elsewhere is not read as one."""
    if value is None or value != value:
        over = "in this session" if sessions <= 1 else f"over {sessions} sessions"
        return (
            f"no lower bound on their ratio: the load tool held the first back, and {over} its "
            "lowest run does not clear the other's highest by more than the other's own runs "
            "differ"
        )
    if sessions <= 1:
        return f"at least {fmt.ratio_at_least(value)} (one session)"
    lowest = f"the lowest of {sessions} sessions on this machine class"
    return f"at least {fmt.ratio_at_least(value)} ({lowest})"


def sentence(
    bound: Bound,
    names: tuple[str, str],
    measure: str,
    why: str,
    runs: str = "",
    spread_of: str = "its highest over its lowest",
    ends: tuple[str, str] | None = None,
) -> str:
    """The bound in words, or why there is none: the one place a bound is worded. ``runs``:
    this session's two runs the bound is the ratio of, worded ('9,540 vs 5,240 req/s');
    ``spread_of``: what b's own spread is the ratio of; ``ends``: what each of those runs
    is, where not a's lowest run and b's highest (a capacity's: the rates around it)."""
    a, b = names
    first, second = ends or (f"its lowest run of {a}", f"its highest of {b}")
    # the runs after a colon where they end a clause, in brackets after this session's ratio
    listed = f": {runs}" if runs else ""
    bracketed = f" ({first} vs {second}: {runs})" if runs else ""
    here = f"this session alone: {fmt.ratio(bound.here)}{bracketed}"
    if not bound.informative:
        where = f"in this session{listed}"
        if bound.sessions > 1:
            where = f"the lowest of {bound.sessions} sessions on this machine class; {here}"
        # below 1, a's lowest run lies under b's highest: no bound above 1 at all
        how_far = (
            f"below {b}'s highest, at {fmt.share(bound.value)} of it ({where}), so these runs "
            "bound nothing above 1"
            if bound.value < 1
            else f"{fmt.ratio(bound.value)} {b}'s highest ({where}), no farther than {b}'s own "
            f"runs differ ({fmt.ratio(bound.spread)}, {spread_of}), so the runs "
            "show the tool's limit, not the servers'"
        )
        return (
            f"**No lower bound measurable** between **{a}** and **{b}** on {measure}: the load "
            f"tool was the limit ({why}); {a}'s lowest run lay {how_far}."
        )
    how = f"{first} over {second}{listed}"
    if bound.sessions > 1:
        how = f"the lowest session's bound: {first} over {second}; {here}"
    return (
        f"**{a}** reached **at least {fmt.ratio_at_least(bound.value)} the {measure}** of **{b}** "
        f"{sessions_text(bound.sessions)} ({how}): {why}."
    )


def capacity_session(here: float, names: tuple[str, str], measure: str, why: str, runs: str) -> str:
    """One session's bound between two capacities at an SLO, a's held down by the load
    tool: the least a's lowest run can have reached over the most b's best can have. It is
    not the claim: the headline's, over the class's sessions, is the Conclusion's."""
    a, b = names
    return (
        f"**{a}** against **{b}**, {measure}: only a lower bound, as the load tool "
        f"held {a} down ({why}); in this session the least {a}'s lowest run can have "
        f"reached (the last rate at which it met the SLO) lay {fmt.ratio_at_least(here)} "
        f"the most {b}'s best run can have reached, the rate at which it broke the SLO "
        f"({runs}; the bound over this machine class's sessions is the Conclusion's)."
    )


def placed_ends(valid: pd.DataFrame, column: str, names: tuple[str, str]) -> tuple[str, str] | None:
    """What a bound's two runs are where the values were placed between two rates (a
    capacity at an SLO: claims.bounds.AT_MOST): the last rate a's lowest run met and the
    rate at which b's best run broke it; None for plain values."""
    if column + AT_MOST not in valid:
        return None
    a, b = names
    return (f"the last rate {a}'s lowest run met its SLO at",
            f"the rate at which {b}'s best run broke it")  # fmt: skip
