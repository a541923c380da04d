"""The glossary's numbers come from the statistics the report uses, and every flag is in it."""

from itertools import combinations

from benchbook.analyse.words import glossary
from benchbook.analyse.words.flags import FLAG_MEANINGS


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
