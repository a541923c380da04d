"""The note under page 1's answers, made true of each answer: which kind of figure each
answer prints — a headline's estimate pooled over this machine class's sessions with its
interval, a pooled estimate without it, a lower bound, or one session's figure (a count, a
time, a ratio of medians) — read from the answer as printed and its headlines."""

import dataclasses
import re
from collections.abc import Mapping, Sequence

from benchbook.analyse.findings.figures import figure, ranked
from benchbook.analyse.findings.headlines import Headline
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.words.findings_format import LOWER_BOUND

# A figure in an answer: a ratio, a share, a time, a rate, or a count of a measured
# total ("12,797 of 48,471"; "3 of 3 comparisons" counts headlines, not a measurement).
FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?\s?(?:×|%|ms\b|req/s)|\d[\d,]{3,} of [\d,]+")
# A condition, not a result: "waits 1 ms", "adding 10 ms", "at +1 ms", "a 1 ms sleep".
CONDITION = re.compile(r"(?:waits?|adding|over|at \+)\s?\d+ ms|\ba \d+ ms sleep")
# A ratio the answer itself marks as one session's: "1.02× (838 vs 819 req/s; one session's
# medians)", whatever pooled figure it happens to equal.
MARKED_ONE_SESSION = re.compile(r"\d[\d.,]*×\s\([^()]*one session's medians\)")
POOLED, POOLED_BARE, BOUND, ONE_SESSION = (
    "pooled",
    "pooled, no interval",
    "bound",
    "one session",
)


def headline_from_json(data: Mapping) -> Headline:
    """A headline as a findings output stores it (Findings.as_json), back as a Headline;
    a field it lacks (a hand-made findings output may give only a label and a verdict) is
    None."""
    fields = dataclasses.fields(Headline)
    required = {
        f.name: None
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    names = {f.name for f in fields}
    return Headline(**(required | {key: value for key, value in data.items() if key in names}))


def figure_kinds(plain: str, headlines: Sequence[Headline]) -> set[str]:
    """What kinds of figure an answer gives: a headline's estimate pooled over sessions
    with its interval (POOLED), a lower bound (BOUND), and any other figure — a headline's
    one-session estimate, a count, a time, a ratio of medians — which is one session's
    (ONE_SESSION)."""
    kinds, rest = set(), plain
    for h in headlines:
        # as figure prints it, or on the scale its sentence ranks it on ('1.50× lower')
        shown = next((f for f in (figure(h), ranked(h)) if f in rest), None)
        if shown is None:
            continue
        rest = rest.replace(shown, "")
        if h.reproduced_why == LOWER_BOUND and h.ratio is None:  # "no lower bound: …"
            continue
        if h.reproduced_why == LOWER_BOUND:
            kinds.add(BOUND)
        else:
            kinds.add(POOLED if h.pooled_ratio is not None else ONE_SESSION)
    if MARKED_ONE_SESSION.search(rest):
        kinds.add(ONE_SESSION)
        rest = MARKED_ONE_SESSION.sub("", rest)
    for h in headlines:
        value = h.pooled_ratio if h.pooled_ratio is not None else h.ratio
        if value is None:
            continue
        # a ratio prints with its "×": "2 runs of 15 s" is no bare 15×
        printed = "|".join(re.escape(fmt.ratio(v).rstrip("×")) for v in {value, 1 / value})
        bare = re.compile(rf"(?<![\d.,])(?:{printed})(?=×)")
        if bare.search(rest):
            rest = bare.sub("", rest)
            kinds.add(POOLED_BARE if h.pooled_ratio is not None else ONE_SESSION)
    if FIGURE.search(CONDITION.sub("", rest)):
        kinds.add(ONE_SESSION)
    return kinds


def answers_note(kinds: Sequence[set[str]]) -> str:
    """The note under page 1's answers, true of each answer (their figure_kinds, in
    order): which give pooled estimates, which bounds, which one session's figures."""
    by_kind = {
        kind: [i for i, found in enumerate(kinds, 1) if kind in found]
        for kind in (POOLED, POOLED_BARE, BOUND, ONE_SESSION)
    }
    claims = {
        POOLED: "the estimate pooled over this machine class's sessions, its 95 % CI and the "
        "range the next session should fall in (its 95 % prediction interval, on which the "
        "verdict against the article is judged); the chart adds the article's figure.",
        POOLED_BARE: "pooled estimates without their intervals, which Appendix B prints.",
        BOUND: 'a lower bound ("at least"): one side was held back (by the server it loaded, '
        "or by its load tool), so each session's runs put the gap above its own bound; the "
        "figure is the lowest of those, and a later session may give a lower one.",
        ONE_SESSION: "figures of one session (counts, times, ratios of medians, a session's "
        "own interval), not pooled over sessions: another session will give other values.",
    }
    return " ".join(
        f"{_subject(by_kind[kind], len(kinds))} {claim}"
        for kind, claim in claims.items()
        if by_kind[kind]
    )


def _subject(found: Sequence[int], every: int) -> str:
    """'Each answer gives', 'Answer 3 gives', 'Answers 2, 4 and 6 give'."""
    if len(found) == every:
        return "Each answer gives"
    listed = [str(n) for n in found]
    if len(listed) == 1:
        return f"Answer {listed[0]} gives"
    return f"Answers {', '.join(listed[:-1])} and {listed[-1]} give"
