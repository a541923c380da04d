"""The checks on the report's figures: a verdict against its interval and the article's
figure, bounds, inverses, scales, and one figure per claim."""

import re
from collections.abc import Iterator

from bs4 import Tag

from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.numbers import formatting as fmt
from benchbook.render.audit.reading import Defect, Report, check, number, text_of

# --- a verdict agrees with the interval it was judged on and the article's figure ----------

OUTSIDE = {Verdict.NOT_REPRODUCED, Verdict.SAME_DIRECTION}


@check("verdict")
def verdicts_agree_with_their_interval(report: Report) -> Iterator[Defect]:
    """'✓ reproduced — the article's 1.07× lies within 1.02–1.54×' beside 'the next session
    should give 1.13–1.40×': a verdict holds for the interval its badge names, and that
    interval is the one printed in its reason."""
    for badge in report.page.select(".repro-badge[data-article]"):
        verdict = Verdict.of(badge.get("data-verdict"))
        article, low, high = (float(badge[k]) for k in ("data-article", "data-low", "data-high"))
        where = str(badge.get("data-label", ""))
        inside = low <= article <= high
        if verdict is Verdict.REPRODUCED and not inside:
            yield Defect(
                "verdict", where, f"reproduced, yet {article:g} lies outside {low:g}–{high:g}"
            )
        if verdict in OUTSIDE and inside:
            yield Defect(
                "verdict", where, f"{verdict.label}, yet {article:g} lies inside {low:g}–{high:g}"
            )
        why = badge.find_next_sibling(class_="why")
        printed = fmt.interval(low, high)
        if verdict is Verdict.REPRODUCED and why is not None and printed not in text_of(why):
            yield Defect("verdict", where, f"its reason does not print the interval {printed}")


# --- every "at least" is a bound, and holds for every session it is over -------------------

AT_LEAST_RATIO = re.compile(r"at least (\d[\d.,]*)×")


@check("bound")
def bounds_hold(report: Report) -> Iterator[Defect]:
    """'at least 6.9×' came from one disturbed session where the others gave 2.2×: every
    'at least N×' is one of the headlines' bounds, and each bound lies at or below every
    session it is over (the badge's data-sessions)."""
    appendix = report.page.select_one("#appendix-headlines")
    bounds = set(AT_LEAST_RATIO.findall(text_of(appendix))) if appendix else set()
    for said in sorted(set(AT_LEAST_RATIO.findall(report.body_text)) - bounds):
        yield Defect("bound", "the report", f"'at least {said}×' is no headline's bound")
    for badge in report.page.select(".repro-badge[data-bound]"):
        bound = float(badge["data-bound"])
        over = [float(s) for s in str(badge.get("data-sessions", "")).split()]
        below = [s for s in over if s < bound]
        if below:
            lowest = fmt.ratio(min(below))
            yield Defect(
                "bound", str(badge.get("data-label", "")),
                f"at least {fmt.ratio(bound)}, yet a session it is over gave {lowest}",
            )  # fmt: skip
    bare = re.compile(r"(?<![\"'“‘])at least(?! ?(?:\d|twice|once|this\b|[a-z_]+_[a-z_]+))")
    for m in bare.finditer(report.body_text):
        yield Defect(
            "bound",
            "the report",
            f"'at least' with no bound: {m.string[max(0, m.start() - 40) : m.end() + 40]}",
        )
    if re.search(r"no significant difference \(at least", report.body_text, re.I):
        yield Defect("bound", "the report", "a bound called 'no significant difference'")


# --- an inverted figure is 1/x of the ratio beside it --------------------------------------

# "1.92× lower than … (ratio 0.522×": a ratio below 1 and the same ratio inverted.
INVERTED = re.compile(r"(?P<times>\d[\d.,]*)× lower than [^()]{0,160}?\(ratio (?P<ratio>[\d.]+)×")


def _rounding(printed: str) -> tuple[float, float]:
    """The values that print as ``printed`` ('0.0017' → 0.00165–0.00175)."""
    value = number(printed)
    half = 0.5 * 10 ** -len(printed.partition(".")[2])
    return value - half, value + half


def _inverse_agrees(times: str, ratio: str) -> bool:
    """Some one ratio prints as ``ratio`` and its inverse as ``times``: the inverse of
    the unrounded ratio passes, one of a ratio from another sentence does not."""
    low, high = _rounding(ratio)
    times_low, times_high = _rounding(times)
    return low > 0 and times_low <= 1 / low and times_high >= 1 / high


@check("inverse")
def inverses_agree(report: Report) -> Iterator[Defect]:
    """'2.1× lower than … (ratio 0.522×)': an inverse printed beside its ratio is 1/x of a
    value that prints as that ratio."""
    for m in INVERTED.finditer(report.body_text):
        if not _inverse_agrees(m["times"], m["ratio"]):
            yield Defect("inverse", "the report", f"{m['times']}× lower beside ratio {m['ratio']}×")


# "N× lower/higher than …'s (over 8 sessions on this machine class: 95 % CI a–b×"; an
# interval that names its scale ("(ratio 0.522×, 95 % CI …") is on that scale.
BESIDE_ITS_INTERVAL = re.compile(
    r"(?P<n>\d[\d.,]*)× (?:lower|higher) than [^()]{0,160}?\((?!ratio )[^()]{0,80}?95 % CI "
    r"(?P<low>\d[\d.,]*)–(?P<high>\d[\d.,]*)(?P<unit>×)"
)
# "served 18 % of … (over 7 sessions on this machine class: 95 % CI 18–19 %".
SHARE_BESIDE_ITS_INTERVAL = re.compile(
    r"served (?P<n>\d[\d.]*) % of [^()]{0,160}?\([^()]{0,80}?95 % CI "
    r"(?P<low>\d[\d.,]*)–(?P<high>\d[\d.,]*) ?(?P<unit>×|%)"
)


@check("scale")
def figures_on_their_intervals_scale(report: Report) -> Iterator[Defect]:
    """'1.92× lower (95 % CI 0.511–0.532×)' and 'served 18 % of … (95 % CI 0.18–0.19×)'
    mix two scales: an interval printed beside a figure is on its scale and holds it."""
    for pattern, unit in ((BESIDE_ITS_INTERVAL, "×"), (SHARE_BESIDE_ITS_INTERVAL, "%")):
        for m in pattern.finditer(report.body_text):
            if m["unit"] != unit or not number(m["low"]) <= number(m["n"]) <= number(m["high"]):
                yield Defect("scale", "the report", m[0][-120:])


# --- one claim prints one figure wherever it appears ---------------------------------------

NEXT_SESSION = re.compile(r"the next session should give (\d[\d.,]*–\d[\d.,]*)×")


@check("same figure")
def one_claim_one_figure(report: Report) -> Iterator[Defect]:
    """One headline's next-session interval printed as 0.0020–0.012× in its conclusion
    and 82.3–492× in its answer: every element of one headline (data-label) prints one
    next-session interval, and page 1's answers are the answer boxes' text."""
    printed: dict[str, set[str]] = {}
    for element in report.page.select("[data-label]"):
        holder = element.find_parent(["li", "tr", "div"]) or element
        for interval in NEXT_SESSION.findall(text_of(holder)):
            printed.setdefault(str(element["data-label"]), set()).add(interval)
    for label, intervals in sorted(printed.items()):
        if len(intervals) > 1:
            yield Defect("same figure", label, f"next-session intervals {sorted(intervals)}")

    def bare(element: Tag) -> str:
        return re.sub(r"\s+", "", element.get_text())

    boxes = [bare(box) for box in report.page.select("aside.answer-box")]
    for answer in report.page.select("ol.answers p.plain-answer"):
        if not any(bare(answer) in box for box in boxes):
            yield Defect("same figure", "page 1", f"an answer no box gives: {text_of(answer)[:80]}")
