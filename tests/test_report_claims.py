"""What the rendered report says, checked on the report as committed (report/index.html and
report/report.pdf, which `make report` writes): one figure prints one value wherever it
appears, every "at least" is a bound, every term it uses is in its glossary, no raw pandas
output reaches a reader, no table runs off its page, and the note under the answers is true
of each answer. Each test reads the rendered files only, so it checks whatever rendering is
committed; the kinds of defect it names were found by reading the report as a student would.
"""

import base64
import re
from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from pypdf import PdfReader

from benchbook.analyse import formatting as fmt
from benchbook.analyse import glossary
from benchbook.runs.layout import REPO_ROOT

REPORT = REPO_ROOT / "report"
HTML, PDF = REPORT / "index.html", REPORT / "report.pdf"

pytestmark = pytest.mark.skipif(
    not HTML.exists() or not PDF.exists(), reason="no rendered report (make report writes it)"
)


@cache
def page() -> BeautifulSoup:
    """The HTML report as a reader sees it on screen: no scripts, styles or print-only notes."""
    soup = BeautifulSoup(HTML.read_text(encoding="utf-8"), "html.parser")
    for hidden in soup.select("script, style, .print-note, .print-only"):
        hidden.decompose()
    return soup


def text_of(element: object) -> str:
    """An element's text with its whitespace collapsed, as it reads: without the spaces
    that separating its elements puts inside brackets and quotes around a link
    ('( 95 % CI …)', '" at least "')."""
    text = re.sub(r"\s+", " ", element.get_text(" ")).strip()  # type: ignore[attr-defined]
    text = re.sub(r"\( ", "(", re.sub(r" \)", ")", text))
    return re.sub(r'" ([^"]*?) "', r'"\1"', text)


@cache
def body_text() -> str:
    """Every visible word of the report outside its glossary."""
    soup = BeautifulSoup(str(page()), "html.parser")
    for element in soup.select("#glossary"):
        element.decompose()
    return text_of(soup)


def number(text: str) -> float:
    return float(text.replace(",", ""))


# --- a figure printed in two places prints the same value ---------------------------------

# "1.92× lower than … (ratio 0.522×": a time ratio below 1 and the same ratio inverted.
INVERTED = re.compile(r"(?P<times>\d[\d.,]*)× lower than [^()]{0,160}?\(ratio (?P<ratio>[\d.]+)×")
# "N× lower/higher than …'s (over 8 sessions on this machine class: 95 % CI a–b×"; an
# interval that names its scale ("(ratio 0.522×, 95 % CI …") is on that scale.
BESIDE_ITS_INTERVAL = re.compile(
    r"(?P<n>\d[\d.,]*)× (?:lower|higher) than [^()]{0,160}?\((?!ratio )[^()]{0,80}?95 % CI "
    r"(?P<low>\d[\d.,]*)–(?P<high>\d[\d.,]*)×"
)


def test_a_ratio_and_its_inverse_print_the_same_value() -> None:
    """'1.91× lower (ratio 0.522×)' beside '1.92× lower' for the same 0.522× read as two
    results: the inverse printed must be the inverse of the ratio printed."""
    pairs = [(m["times"], m["ratio"]) for m in INVERTED.finditer(body_text())]
    assert pairs, "the report words no time ratio below 1: this check has nothing to read"
    wrong = [
        f"{times}× lower beside ratio {ratio}×"
        for times, ratio in pairs
        if f"{times}×" != fmt.ratio(1 / number(ratio))
    ]
    assert not wrong, wrong


# "served 18 % of … (over 7 sessions on this machine class: 95 % CI 18–19 %".
SHARE_BESIDE_ITS_INTERVAL = re.compile(
    r"served (?P<n>\d[\d.]*) % of [^()]{0,160}?\([^()]{0,80}?95 % CI "
    r"(?P<low>\d[\d.,]*)–(?P<high>\d[\d.,]*) ?(?P<unit>×|%)"
)


def test_a_figure_and_the_interval_beside_it_are_on_one_scale() -> None:
    """'1.92× lower (95 % CI 0.511–0.532×)' and 'served 18 % of … (95 % CI 0.18–0.19×)'
    mix two scales: an interval printed beside a figure is on its scale and holds it."""
    found = list(BESIDE_ITS_INTERVAL.finditer(body_text()))
    wrong = [m[0] for m in found if not number(m["low"]) <= number(m["n"]) <= number(m["high"])]
    shares = list(SHARE_BESIDE_ITS_INTERVAL.finditer(body_text()))
    wrong += [
        m[0]
        for m in shares
        if m["unit"] != "%" or not number(m["low"]) <= number(m["n"]) <= number(m["high"])
    ]
    assert not wrong, wrong


def test_each_answer_on_page_one_is_its_notebooks_answer() -> None:
    """Page 1's answers and the answer boxes print one text, so one set of figures."""

    def bare(element: object) -> str:  # a glossary link splits "95 % CI" off its bracket
        return re.sub(r"\s+", "", element.get_text())  # type: ignore[attr-defined]

    answers = [bare(p) for p in page().select("ol.answers p.plain-answer")]
    boxes = [bare(box) for box in page().select("aside.answer-box")]
    assert answers and boxes
    missing = [a for a in answers if not any(a in box for box in boxes)]
    assert not missing, missing


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


# --- every "at least" is a bound ------------------------------------------------------------

AT_LEAST_RATIO = re.compile(r"at least (\d[\d.,]*×)")


def headline_bounds() -> set[str]:
    """The ratios the headlines themselves give as lower bounds (Appendix B)."""
    appendix = page().select_one("#appendix-headlines")
    assert appendix is not None, "the report has no Appendix B"
    return set(AT_LEAST_RATIO.findall(text_of(appendix)))


def test_every_at_least_ratio_is_a_headlines_bound() -> None:
    """'at least 2.2×' that is neither a headline's bound nor a ratio of medians reads as
    a guarantee it is not: every 'at least N×', and every '≥ N×' the chart draws, is one of
    the headlines' bounds."""
    bounds = headline_bounds()
    said = set(AT_LEAST_RATIO.findall(body_text()))
    drawn = {f"{m}×" for m in re.findall(r"≥ ?(\d[\d.,]*)×", text_of(page().select_one("body")))}
    assert said - bounds == set(), f"'at least' that no headline bounds: {said - bounds}"
    assert drawn - bounds == set(), f"'≥' that no headline bounds: {drawn - bounds}"


def test_every_at_least_is_followed_by_its_bound() -> None:
    """'at least' names a number (or is quoted, as a term, or points at the chart's
    marker: 'at least this'); never a bare 'at least'."""
    bare = [
        body_text()[max(0, m.start() - 40) : m.end() + 40]
        for m in re.finditer(
            r"(?<![\"'“‘])at least(?! ?(?:\d|twice|once|this\b|[a-z_]+_[a-z_]+))", body_text()
        )  # fmt: skip
    ]
    assert not bare, bare


# --- every technical term used is in the glossary ------------------------------------------


def test_a_bound_is_never_called_no_difference() -> None:
    """'no significant difference (at least 1.86×)' says two things at once."""
    assert not re.search(r"no significant difference \(at least", body_text(), re.I)


def test_every_technical_term_the_report_uses_is_in_its_glossary() -> None:
    explained = {text_of(dt) for dt in page().select("#glossary dt")}
    used = [
        term
        for pattern, term in glossary.TERMS_IN_USE
        if re.search(pattern, body_text()) and term not in explained
    ]
    assert not used, f"used but not in the glossary: {used}"


def test_the_glossary_defines_an_interval_by_its_procedure() -> None:
    """Not 'the range that holds the true ratio 95 times in 100' (one interval holds it or
    not): the procedure's intervals cover it in 95 % of repetitions."""
    terms = {
        text_of(dt): text_of(dt.find_next_sibling("dd")) for dt in page().select("#glossary dt")
    }
    meaning = terms.get("interval (95 % CI)", "")
    assert "procedure" in meaning and "holds the true ratio 95 times" not in meaning


# --- no pandas index or raw repr -----------------------------------------------------------

RAW = {
    "a float with pandas' six decimals (1.000000)": re.compile(r"\b\d+\.\d{6}\b"),
    "a Series' footer": re.compile(r"\bdtype: |\bName: \w"),
    "a missing value as nan": re.compile(r"\bNaN\b|(?<![\w-])nan(?![\w-])"),
    "a plural left to the reader, 'run(s)'": re.compile(r"\w\(s\)"),
    "a p-value of zero": re.compile(r"\bp = 0\.000\b|\bp 0\.000\b"),
}


def test_no_pandas_repr_reaches_the_reader() -> None:
    """Outside Appendix E, which prints each manifest value as stored: a machine-speed
    reference of 0.534165 s (Go's timer, trailing zeros dropped) is no pandas repr."""
    soup = BeautifulSoup(str(page()), "html.parser")
    for element in soup.select("#glossary, #provenance"):
        element.decompose()
    text = text_of(soup)
    found = {kind: pattern.findall(text)[:3] for kind, pattern in RAW.items()}
    assert not {kind: hits for kind, hits in found.items() if hits}


def test_no_table_shows_a_bare_row_number_or_cut_text() -> None:
    """A DataFrame shown as it is puts its row numbers (0, 1, …) before each row and cuts
    long text to '…'; a p column prints 0.000 for p < 0.001; a string cell its quotes."""
    problems = []
    for table in page().select("table"):
        row_heads = [text_of(th) for th in table.select("tbody tr th:first-child")]
        if row_heads and row_heads == [str(i) for i in range(len(row_heads))]:
            problems.append(f"row numbers as labels: {text_of(table)[:80]}")
        cells = [text_of(cell) for cell in table.select("td")]
        problems += [f"cut text: {c}" for c in cells if c.endswith("...")]
        problems += [f"a string's repr: {c}" for c in cells if re.fullmatch(r"'[^']*'", c)]
        heads = [text_of(th) for th in table.select("thead th")]
        if "p" in heads:
            at = heads.index("p")
            for row in table.select("tbody tr"):
                row_cells = [text_of(c) for c in row.select("th, td")]
                if len(row_cells) == len(heads) and row_cells[at] == "0.000":
                    problems.append(f"p printed as 0.000: {' | '.join(row_cells)[:80]}")
    assert not problems, problems[:5]


# --- no table wider than its page (measured in the PDF) ------------------------------------

# The tokens of a PDF content stream that place text: strings, arrays and names are skipped,
# numbers are operands, the rest operators.
TOKEN = re.compile(
    rb"\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>|[\[\]]|/[^\s/\[\]()<>]+|[-+]?(?:\d+\.?\d*|\.\d+)"
    rb"|[A-Za-z'\"*]+"
)
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1, 0, 0, 1, 0, 0)


def times(a: Matrix, b: Matrix) -> Matrix:
    return (
        a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5],
    )  # fmt: skip


def text_starts(content: bytes) -> list[float]:
    """Where on the page (x, in points) each piece of a page's own text starts: the text
    matrix (BT, Tm, Td) through the graphics state's transform (q, Q, cm). A tokenizer
    instead of pypdf's parser: the charts make the streams large, and this reads all 81
    pages in seconds."""
    transform, saved, line, operands, starts = IDENTITY, [], IDENTITY, [], []
    for match in TOKEN.finditer(content):
        token = match[0]
        if token[:1] in b"0123456789-+.":
            operands.append(float(token))
            continue
        if token[:1] in b"(<[]/":
            continue
        if token == b"q":
            saved.append(transform)
        elif token == b"Q":
            transform = saved.pop() if saved else IDENTITY
        elif token == b"cm" and len(operands) >= 6:
            transform = times(tuple(operands[-6:]), transform)  # type: ignore[arg-type]
        elif token == b"BT":
            line = IDENTITY
        elif token == b"Tm" and len(operands) >= 6:
            line = tuple(operands[-6:])  # type: ignore[assignment]
        elif token in (b"Td", b"TD") and len(operands) >= 2:
            line = times((1, 0, 0, 1, operands[-2], operands[-1]), line)
        elif token in (b"Tj", b"TJ", b"'", b'"'):
            starts.append(times(line, transform)[4])
        operands = []
    return starts


# The report's print margin (report.css: @page margin 13 mm).
MARGIN_PT = 13 / 25.4 * 72


def pages_past_the_margin(path: Path) -> dict[int, float]:
    """Page number → the farthest right a piece of text starts, for pages where some text
    starts beyond the right margin."""
    reader = PdfReader(path)
    past = {}
    for number_, pdf_page in enumerate(reader.pages, 1):
        edge = float(pdf_page.mediabox.width) - MARGIN_PT
        starts = text_starts(pdf_page.get_contents().get_data())
        if starts and max(starts) > edge + 1:
            past[number_] = round(max(starts))
    return past


def test_the_text_placement_reader_finds_text_past_the_margin() -> None:
    """The measuring stick itself: a piece of text placed at x = 560 pt through a cm that
    shifts by 40 pt lands at 600 pt, past A4's right margin."""
    stream = (
        b"q 1 0 0 1 40 0 cm BT /F1 7 Tf 1 0 0 1 560 700 Tm [(wide)] TJ ET Q BT 10 0 Td (x) Tj ET"
    )
    assert text_starts(stream) == [600.0, 10.0]


def test_no_table_is_wider_than_its_page() -> None:
    """Appendix C's tables ran 80–150 pt past the page's edge, their interval column cut."""
    assert pages_past_the_margin(PDF) == {}


# --- the note under the answers is true of every answer ------------------------------------

CONDITION = re.compile(r"(?:waits?|adding|over|at \+)\s?\d+ ms")
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


# --- the report never sends its reader to itself -------------------------------------------


def flame_graphs() -> list[str]:
    """The flame graphs the report shows, as SVG text (embedded as data: URIs)."""
    sources = [img.get("src", "") for img in page().select("img")]
    prefix = "data:image/svg+xml;base64,"
    graphs = [base64.b64decode(s[len(prefix) :]).decode() for s in sources if s.startswith(prefix)]
    return [svg for svg in graphs if "inferno" in svg or "Flame graph" in svg]


def test_the_html_report_never_points_to_the_html_version() -> None:
    """Not even hidden: the print-only pointers live in the print stylesheet."""
    body = BeautifulSoup(HTML.read_text(encoding="utf-8"), "html.parser")
    for style in body.select("style"):
        style.decompose()
    assert "HTML version" not in str(body)


def test_a_flame_graph_shows_no_control_it_cannot_use() -> None:
    """A 'Search' button printed over every flame graph, in an image nobody can click."""
    graphs = flame_graphs()
    assert not [svg for svg in graphs if ">Search<" in svg or "<script" in svg]


# --- the prediction rule, checked on the stored sessions ------------------------------------

HELD = re.compile(r"it held (?P<inside>\d+) of (?P<total>\d+) \((?P<share>\d+) %; 95 % CI")


def test_the_rule_is_checked_on_every_class_with_its_sessions_and_inferred_ones() -> None:
    """The held-out check the report prints: a row per machine class (sessions pooled, of
    them inferred, sessions left out, of them from 1–2 sessions, inside), adding up to the
    total its sentence states."""
    table = page().select_one("table.held-out-table")
    assert table is not None
    rows = [[text_of(td) for td in tr.select("td")] for tr in table.select("tbody tr")]
    assert rows, "no machine class in the held-out table"
    inside_total = left_total = 0
    for name, sessions, inferred, left, borrowed, inside in rows:
        assert name and int(inferred) <= int(sessions)
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
