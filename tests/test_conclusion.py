"""A notebook's Conclusion in one call: declared headlines built as findings.headline
builds them, the answer's parts filled from them and joined as the notebooks joined them
by hand, and the plain answer given the built headlines (constructed headlines, no runs)."""

from functools import partial

import pandas as pd
import pytest

from benchbook.analyse.findings import conclusion
from benchbook.analyse.findings.headlines import Headline


def built(brief: str, **fields: object) -> Headline:
    base = dict(label="a vs b", verdict="", brief=brief, ratio=2.0, ci_low=1.8, ci_high=2.2,
                ci_level=0.95, n="6 rounds", p=0.03, significant=True, article="4.9×",
                article_ratio=4.9, reproduced="reproduced", reproduced_why="inside",
                sides=("Go", "FastAPI"))  # fmt: skip
    return Headline(**(base | fields))


HEADLINES = [
    built("Go served 2×.", sides=("Go", "FastAPI (h11)")),
    built("Go served 4×.", sides=("Go", "FastAPI (uvloop)"), reproduced="not reproduced"),
]


def test_a_template_fills_headline_fields_and_leaves_other_braces_alone() -> None:
    part = (
        "First: {0.brief} Against the article's {1.article}: {1.reproduced} — {1.reproduced_why}."
    )
    assert conclusion.fill(part, HEADLINES) == (
        "First: Go served 2×. Against the article's 4.9×: not reproduced — inside."
    )
    # Text computed elsewhere passes through, braces and all.
    assert conclusion.fill("a set {x} and {0} stay", HEADLINES) == "a set {x} and {0} stay"
    assert conclusion.fill(conclusion.briefs, HEADLINES) == "Go served 2×. Go served 4×."


def test_one_article_figure_is_judged_against_each_second_side() -> None:
    assert conclusion.verdicts_by_side(HEADLINES) == (
        "Against the article's 4.9× — with FastAPI (h11): reproduced (inside); "
        "with FastAPI (uvloop): not reproduced (inside)."
    )
    assert conclusion.verdicts_by_side([]) == ""


def test_a_declared_headline_passes_its_claim_and_options_to_findings_headline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []
    monkeypatch.setattr(conclusion, "headline", lambda *a, **k: calls.append((a, k)) or "built")
    rows = pd.DataFrame({"target": ["go", "py"]})
    spec = conclusion.compare("go vs py", rows, "go", "py", "01_x", ("4.9×", 4.9), cross_check=True)
    assert spec.headline() == "built"
    (args, kwargs), = calls  # fmt: skip
    assert args[0] == "go vs py" and args[1] is rows and args[2:] == ("go", "py")
    assert kwargs == dict(experiment="01_x", article="4.9×", article_ratio=4.9, cross_check=True)
    # Without a claim: no article figure, as findings.headline's own defaults.
    assert conclusion.compare("l", rows, "go", "py", "01_x").article == ("", None)


def test_findings_joins_the_parts_as_the_notebooks_did(monkeypatch: pytest.MonkeyPatch) -> None:
    made = iter(HEADLINES)
    monkeypatch.setattr(conclusion, "headline", lambda *a, **k: next(made))
    rows = pd.DataFrame()
    specs = [
        conclusion.compare("a", rows, "a", "b", "x"),
        conclusion.compare("c", rows, "c", "d", "x"),
    ]
    plain = partial(lambda hs, tail: f"{len(hs)} headlines; {tail}", tail="and a tail")
    found = conclusion.findings(
        "99_not_an_article", "Title", "Question?", specs,
        answer=["Reads: {0.brief}", "", conclusion.briefs, "Computed {text}. "],
        plain=plain, also=["", "an answer no ratio carries"],
    )  # fmt: skip
    # An empty part leaves its double space, as string concatenation did; ends stripped.
    assert found.answer == "Reads: Go served 2×.  Go served 2×. Go served 4×. Computed {text}."
    assert found.headlines == HEADLINES and found.plain == "2 headlines; and a tail"
    assert found.also == ["an answer no ratio carries"] and found.source is None
    assert (found.experiment, found.title, found.question) == (
        "99_not_an_article",
        "Title",
        "Question?",
    )


def test_a_caution_two_briefs_share_is_said_once() -> None:
    """Two headlines against one Python side carry its flags' caution each (notebook 04's
    reads, quoted by a template): the answer gives it after the first."""
    note = "Caution: b's runs had throughput and latency that disagree (2 of 6 runs)."
    other = "Caution: c's runs were short (e.g. 3 of 6 runs)."
    headlines = [built(f"Go served 4×. {note}"), built(f"Go served 10×. {note}"),
                 built(f"Go served 3×. {other}")]  # fmt: skip
    text = conclusion.fill("Reads: {0.brief} The pair: {1.brief} Writes: {2.brief}", headlines)
    assert conclusion.cautions_once(text, headlines) == (
        f"Reads: Go served 4×. {note} The pair: Go served 10×. Writes: Go served 3×. {other}"
    )
