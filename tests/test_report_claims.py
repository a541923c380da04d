"""What the rendered report says, checked on the report as committed (report/index.html and
report/report.pdf, which `make report` writes): every kind of render.audit's checks (the
auditor `make audit` runs), and what only this report's structure shows — an answer box
says each sentence once, the note under the answers is true of each answer, the held-out
table adds up. Each test reads the rendered files only, so it checks whatever rendering
is committed; the kinds of defect it names were found by reading the report as a student
would.
"""

import re
from functools import cache

import pytest
from bs4 import BeautifulSoup

from benchbook.render import audit
from benchbook.render.audit import text_of
from benchbook.runs.layout import REPO_ROOT

REPORT = REPO_ROOT / "report"
HTML, PDF = REPORT / "index.html", REPORT / "report.pdf"

pytestmark = pytest.mark.skipif(
    not HTML.exists() or not PDF.exists(), reason="no rendered report (make report writes it)"
)


@cache
def page() -> BeautifulSoup:
    """The HTML report as a reader sees it on screen."""
    return audit.Report.read(REPORT).page


def test_the_committed_report_passes_its_audit() -> None:
    """Every kind of render.audit's checks, on the HTML and the PDF (`make audit`)."""
    defects = audit.audit(audit.Report.read(REPORT))
    assert not defects, "\n".join(map(str, defects[:20]))


def test_no_answer_box_says_a_sentence_twice() -> None:
    """Notebook 07's box printed its trend in the plain answer and again after it."""
    repeated = []
    for box in page().select("aside.answer-box"):
        sentences = [
            sentence
            for paragraph in box.select("p")
            for sentence in re.split(r"(?<=[.])\s+(?=[A-Z])", text_of(paragraph))
            if len(sentence) > 40
        ]
        repeated += [
            a for i, a in enumerate(sentences) for b in sentences[i + 1 :] if a in b or b in a
        ]
    assert not repeated, repeated


# --- the note under the answers is true of every answer ------------------------------------

CONDITION = re.compile(r"(?:waits?|adding|over|at \+)\s?\d+ ms|\ba \d+ ms sleep")
FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?\s?(?:×|%|ms\b|req/s)|\d[\d,]{3,} of [\d,]+")


def listed(note: str, claim: str) -> set[int] | None:
    """The answers a sentence of the note names for a claim ('Answers 2, 3 and 5 give …'):
    None when no sentence makes it, every answer for 'Each answer'."""
    match = re.search(rf"(Each answer|Answers? [\d, and]+?) gives? {claim}", note)
    if not match:
        return None
    if match[1] == "Each answer":
        return set(range(1, 10_000))
    return {int(n) for n in re.findall(r"\d+", match[1])}


def test_the_note_under_the_answers_is_true_of_every_answer() -> None:
    """'Each answer gives the estimate pooled … and its 95 % interval' stood above answers
    of one session without an interval: each sentence of the note must hold of the answers
    it names, and an answer with a figure outside a pooled interval must be named."""
    answers = [text_of(p) for p in page().select("ol.answers p.plain-answer")]
    note = text_of(page().select_one("p.summary-note"))
    pooled = listed(note, "the estimate pooled") or set()
    bound = listed(note, "a lower bound") or set()
    unpooled = (listed(note, "figures of one session") or set()) | (
        listed(note, "pooled estimates without their intervals") or set()
    )
    wrong = []
    for number_, answer in enumerate(answers, 1):
        if number_ in pooled and "95 % CI" not in answer:
            wrong.append(f"answer {number_} is said to be pooled but gives no interval")
        if number_ in bound and "at least" not in answer:
            wrong.append(f"answer {number_} is said to give a bound but gives none")
        rest = re.sub(r"\d[\d.,]*× \(95 % CI [^)]*\)|at least \d[\d.,]*×", "", answer)
        if FIGURE.search(CONDITION.sub("", rest)) and number_ not in unpooled:
            wrong.append(f"answer {number_} gives figures the note does not say are unpooled")
    assert not wrong, wrong


# --- the prediction rule, checked on the stored sessions ------------------------------------

HELD = re.compile(r"it held (?P<inside>\d+) of (?P<total>\d+) \((?P<share>\d+) %; 95 % CI")


def test_the_rule_is_checked_on_every_class_with_its_sessions() -> None:
    """The held-out check the report prints: a row per machine class (sessions pooled, of
    sessions left out, of them from 1–2 sessions, inside), adding up to the
    total its sentence states."""
    table = page().select_one("table.held-out-table")
    assert table is not None
    rows = [[text_of(td) for td in tr.select("td")] for tr in table.select("tbody tr")]
    assert rows, "no machine class in the held-out table"
    inside_total = left_total = 0
    for name, sessions, left, borrowed, inside in rows:
        assert name and int(sessions) > 0
        assert int(borrowed) <= int(left)
        if int(left):
            count, share = re.fullmatch(r"(\d+) \((\d+) %\)", inside).groups()  # type: ignore[union-attr]
            assert int(count) <= int(left) and int(share) == round(100 * int(count) / int(left))
            inside_total, left_total = inside_total + int(count), left_total + int(left)
        else:
            assert inside == "—"
    note = text_of(page().select_one("p.held-out"))
    if left_total:
        held = HELD.search(note)
        assert held, note
        assert (int(held["inside"]), int(held["total"])) == (inside_total, left_total)
