"""The checks on the report's layout: no PDF page with text past its margin, no column
named twice."""

from collections.abc import Iterator

from benchbook.render.audit.reading import Defect, Report, check, text_of
from benchbook.render.pdf_layout import pages_past_the_margin

# --- tables fit their page and name each column once -------------------------------------


@check("table width")
def tables_fit_their_page(report: Report) -> Iterator[Defect]:
    """Appendix C's tables ran 80–150 pt past the page's edge, their interval column cut."""
    if report.pdf is None:
        yield Defect("table width", "report.pdf", "no PDF to measure")
        return
    for page, right in pages_past_the_margin(report.pdf).items():
        yield Defect(
            "table width", f"PDF page {page}", f"text starts at {right} pt, past the margin"
        )


@check("repeated header")
def each_column_named_once(report: Report) -> Iterator[Defect]:
    """Appendix E printed one column header twice."""
    for table in report.page.select("table"):
        rows = table.select("thead tr")
        if len(rows) != 1:  # a two-level header repeats its lower names under each group
            continue
        heads = [text_of(th) for th in rows[0].select("th") if text_of(th)]
        twice = sorted({h for h in heads if heads.count(h) > 1})
        if twice:
            yield Defect("repeated header", text_of(table)[:40], ", ".join(twice))
