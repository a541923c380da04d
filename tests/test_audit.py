"""The auditor names each kind of defect planted in a copy of the rendered report (the
committed report/index.html, which `make report` writes), and none that is not there."""

from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from pypdf import PdfWriter
from pypdf.generic import ContentStream, NameObject

from benchbook.render import audit
from benchbook.render.audit import Report
from benchbook.render.audit.__main__ import main
from benchbook.render.pdf_layout import text_starts
from benchbook.runs.layout import REPO_ROOT

HTML = REPO_ROOT / "report" / "index.html"

pytestmark = pytest.mark.skipif(not HTML.exists(), reason="no rendered report (make report)")


def in_soup(change: Callable[[BeautifulSoup], None]) -> Callable[[str], str]:
    """A planting that edits the parsed page."""

    def plant(html: str) -> str:
        soup = BeautifulSoup(html, "html.parser")
        change(soup)
        return str(soup)

    return plant


def appended(snippet: str) -> Callable[[str], str]:
    """A planting that adds ``snippet`` at the end of the page."""
    return lambda html: html.replace("</body>", snippet + "</body>")


def wrong_verdict(soup: BeautifulSoup) -> None:
    """A badge says reproduced while the article's figure lies far above its interval."""
    badge = soup.select_one(".repro-badge[data-article]")
    assert badge is not None, "no badge carries its judged interval"
    badge["data-verdict"] = "reproduced"
    badge["data-article"] = str(2 * float(badge["data-high"]) + 1)


def bound_above_a_session(soup: BeautifulSoup) -> None:
    badge = soup.select_one(".repro-badge[data-bound]")
    assert badge is not None, "no badge carries its bound"
    badge["data-sessions"] = f"{float(badge['data-bound']) / 2!r}"


def drop_glossary_terms(soup: BeautifulSoup) -> None:
    for term in soup.select("#glossary dt"):
        term.decompose()


PLANTED: dict[str, Callable[[str], str]] = {
    "verdict": in_soup(wrong_verdict),
    "bound": in_soup(bound_above_a_session),
    "inverse": appended("<p>3.5× lower than FastAPI's (ratio 0.522×).</p>"),
    "scale": appended("<p>1.92× lower than FastAPI's (95 % CI 0.511–0.532×).</p>"),
    "same figure": appended(
        '<ol class="answers"><li><p class="plain-answer">Go served 99× FastAPI.</p></li></ol>'
    ),
    "raw identifier": appended("<p>Its runs carry littles_law at 92–92 %.</p>"),
    "registry id": appended("<p>go-iodelay served 6.8× the requests of its rival.</p>"),
    "glossary": in_soup(drop_glossary_terms),
    "dangling reference": appended(
        '<section id="planted"><p>Exercise 7 below asks for it.</p></section>'
    ),
    "flame graph": appended(
        '<section id="planted-flames"><h3>Where the time went: flame graphs</h3></section>'
    ),
    "repeated header": appended(
        "<table><thead><tr><th>n</th><th>ratio</th><th>n</th></tr></thead></table>"
    ),
}


@pytest.fixture(scope="module")
def committed() -> Report:
    return Report(HTML.read_text(encoding="utf-8"), None)


def test_every_kind_of_check_has_a_planted_defect() -> None:
    assert set(PLANTED) | {"table width"} == set(audit.CHECKS)


@pytest.mark.parametrize("kind", PLANTED)
def test_the_auditor_names_a_planted_defect(committed: Report, kind: str) -> None:
    assert audit.audit(committed, [kind]) == [], "the committed report already has one"
    found = audit.audit(Report(PLANTED[kind](committed.html), None), [kind])
    assert found and {d.kind for d in found} == {kind}, found


def test_the_auditor_measures_a_table_past_the_pages_edge(tmp_path: Path) -> None:
    """A PDF page with a line of text starting at x = 600 pt on A4 (595 pt wide)."""
    writer = PdfWriter()
    page = writer.add_blank_page(595, 842)
    stream = ContentStream(None, writer)
    stream.set_data(b"BT /F1 7 Tf 1 0 0 1 600 700 Tm (wide) Tj ET BT 1 0 0 1 40 700 Tm (x) Tj ET")
    page[NameObject("/Contents")] = writer._add_object(stream)
    pdf = tmp_path / "report.pdf"
    writer.write(pdf)
    found = audit.audit(Report("<html><body></body></html>", pdf), ["table width"])
    assert [d.where for d in found] == ["PDF page 1"], found


def test_the_text_placement_reader_follows_the_transform() -> None:
    """A piece of text placed at x = 560 pt through a cm that shifts by 40 pt lands at
    600 pt, past A4's right margin."""
    stream = (
        b"q 1 0 0 1 40 0 cm BT /F1 7 Tf 1 0 0 1 560 700 Tm [(wide)] TJ ET Q BT 10 0 Td (x) Tj ET"
    )
    assert text_starts(stream) == [600.0, 10.0]


def test_make_audit_names_a_missing_report(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main([str(tmp_path)])
    assert "index.html does not exist" in capsys.readouterr().err
