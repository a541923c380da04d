"""The glossary's numbers come from the statistics the report uses, every flag and every
term the report prints is in it, and page 1 links "at least" to it only as a lower bound."""

import re
from itertools import combinations

import pytest
from markupsafe import Markup

from benchbook.analyse.claims import bounds
from benchbook.analyse.findings import answer_note
from benchbook.analyse.numbers import stats
from benchbook.analyse.words import bounds as bound_words
from benchbook.analyse.words import glossary, models
from benchbook.analyse.words.flags import FLAG_MEANINGS
from benchbook.render.templates import TEMPLATE_DIR, glossary_links, markdown_inline, term_anchor


def test_the_smallest_p_values_are_those_of_complete_separation() -> None:
    # 4+4 runs: of the C(8, 4) = 70 ways to split the values, two put one side above
    assert sum(1 for _ in combinations(range(8), 4)) == 70
    assert glossary.smallest_p_two_samples(4, 4) == 2 / 70
    assert glossary.smallest_p_two_samples(2, 2) == 2 / 6  # never below 0.05
    assert glossary.smallest_p_paired(6) == 2 / 64


def test_the_terms_page_1_uses_are_explained_with_computed_numbers() -> None:
    terms = dict(glossary.terms())
    for term in ("round", "session", "machine class", "prediction interval", "p-value",
                 "A/A control", "lower bound", "closed and open loop", "GOMAXPROCS"):  # fmt: skip
        assert term in terms, term
    assert "4+4 runs give at best p = 0.029" in terms["p-value"]
    assert "6 paired rounds p = 0.031" in terms["p-value"]


def test_every_flag_is_in_the_glossary() -> None:
    assert [flag for flag, _ in glossary.flags()] == list(FLAG_MEANINGS)
    assert "(at 90 % of its cores or more)" in dict(glossary.flags())["client_bound"]


def test_every_term_the_report_is_checked_for_is_explained() -> None:
    explained = {term for term, _ in glossary.terms()}
    assert {term for _, term in glossary.TERMS_IN_USE} <= explained


def test_an_interval_is_defined_by_its_procedure_not_as_holding_the_truth() -> None:
    meaning = dict(glossary.terms())["interval (95 % CI)"]
    assert "procedure" in meaning and "holds the true ratio 95 times" not in meaning


# --- the terms the report prints, and "at least" linked only as a ratio's lower bound -------

NEW_TERMS = {
    "Tukey's and Moses' methods": (stats.PAIRED_ESTIMATOR, stats.ESTIMATOR),
    "between-session SD τ (Paule–Mandel estimate)": (
        "these sessions differ by τ\xa0=\xa00.245 on the log scale (about ±28 %; the "
        "Paule–Mandel estimate)",
    ),
    "empirical Bayes": ("as many degrees of freedom as their spreads agree (empirical Bayes)",),
    "sitting": ("The same checks by machine (one boot of one host) and sitting",),
    "ns/op": ("its 3.1× (1,051,034 vs 339,873 ns/op)",),
    "Kingman's G/G/1 (ca²)": (models.QUEUE_ASSUMES,),
}


@pytest.mark.parametrize("term", NEW_TERMS)
def test_the_reports_statistical_terms_are_explained_where_it_prints_them(term: str) -> None:
    """Terms the report printed undefined ('Paule–Mandel estimate', τ, Kingman's ca²): each
    is in the glossary, and its pattern finds it in the words that print it."""
    assert dict(glossary.terms())[term]
    pattern = dict((t, p) for p, t in glossary.TERMS_IN_USE)[term]
    for printed in NEW_TERMS[term]:
        assert re.search(pattern, printed), printed


def test_the_terms_in_the_reports_templates_are_found_by_their_patterns() -> None:
    source = "".join(p.read_text(encoding="utf-8") for p in TEMPLATE_DIR.glob("*.j2"))
    uses = dict((t, p) for p, t in glossary.TERMS_IN_USE)
    for term in ("between-session SD τ (Paule–Mandel estimate)", "sitting"):
        assert re.search(uses[term], source), term


def test_every_term_has_an_anchor_of_its_own() -> None:
    anchors = [term_anchor(term) for term, _ in glossary.terms()]
    assert len(set(anchors)) == len(anchors)
    assert "term-x" not in anchors  # a term with no letter an id keeps


def linked(html: str) -> list[str]:
    return re.findall(r'<a class="term" href="#term-lower-bound">([^<]*)</a>', html)


BOUND = bounds.Bound(value=22.0, sessions=5, here=31.0, spread=1.2)
A_RATIOS_BOUND = {
    "figure": f"Against the same server, wrk reached {bound_words.figure(22.0, 5)} Locust's rate.",
    "one session": f"Go took {bound_words.figure(1.65, 1)} the load of FastAPI.",
    "sentence": str(
        markdown_inline(bound_words.sentence(BOUND, ("wrk", "Locust"), "requests per second", "w"))
    ),
    "the note": answer_note.answers_note([{answer_note.BOUND}]),
}
NOT_A_RATIOS_BOUND = {
    "records": "Go net/http + Redis lost at least 10,134 of 45,007 URLs confirmed with 201.",
    "records bolded": "<strong>Go</strong> lost at least 10,134 (at most about 10,316).",
    "a time": "each request took about 1.74 ms, at least 1.74× the 1 ms it waits, and so",
    "a rate": "wrk: at least 76,701 req/s (held back by the server)",
    "a level": "at most about 74 lost (at least 95 %; 4 runs' sample bounds summed)",
    "a bare ratio": "it reached at least 22× its rate",  # no bound names its sessions
}


@pytest.mark.parametrize("case", A_RATIOS_BOUND)
def test_at_least_is_linked_where_it_is_a_ratios_lower_bound(case: str) -> None:
    text = A_RATIOS_BOUND[case]
    assert linked(str(glossary_links(Markup(text)))) == ["at least"], text


@pytest.mark.parametrize("case", NOT_A_RATIOS_BOUND)
def test_at_least_is_not_linked_where_it_bounds_no_ratio(case: str) -> None:
    """'lost at least 10,134' records, 'at least 1.74× the 1 ms it waits': no lower bound
    of a ratio a load tool or a server held back, so no link to that term."""
    text = NOT_A_RATIOS_BOUND[case]
    assert linked(str(glossary_links(Markup(text)))) == [], text
    assert not re.search(glossary.LOWER_BOUND_USE, text)  # nor counted as its use


def test_only_the_first_bound_of_an_answer_is_linked_after_a_records_at_least() -> None:
    answer = (
        f"Redis lost at least 10,134 records; wrk reached {bound_words.figure(22.0, 5)} Locust's "
        f"rate and {bound_words.figure(5.2, 5)} FastHttpUser's (95 % CI 1.2–1.4×)."
    )
    html = str(glossary_links(Markup(answer)))
    assert linked(html) == ["at least"]
    assert "lost at least 10,134" in html and 'lower-bound">at least</a> 22×' in html
    assert '<a class="term" href="#term-interval">95 % CI</a>' in html


def test_a_time_worded_lower_links_to_its_convention_once() -> None:
    answer = "HTTP/JSON took less time (1.85× lower, 95 % CI 1.6–2.1×); gRPC 1.50× lower."
    html = str(glossary_links(Markup(answer)))
    assert re.findall(r'href="#term-n-lower">([^<]*)</a>', html) == ["1.85× lower"]
    assert html.endswith("gRPC 1.50× lower.")
