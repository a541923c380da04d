"""The checks on the report's words: no raw identifiers, servers by their titles, a
glossary that matches its use, no reference to what the report leaves out, flame graphs
where a heading promises them."""

import base64
import re
from collections.abc import Iterator

from bs4 import Tag

from benchbook.analyse.words import glossary
from benchbook.render.audit.reading import (
    PROSE_LEAVES_OUT,
    Defect,
    Report,
    check,
    text_of,
    text_without,
)
from benchbook.runs.titles import Titles

# --- no raw identifiers ---------------------------------------------------------------------

RAW = {
    "a float with pandas' six decimals": re.compile(r"\b\d+\.\d{6}\b"),
    "a Series' footer": re.compile(r"\bdtype: |\bName: \w"),
    "a missing value as nan": re.compile(r"\bNaN\b|(?<![\w-])nan(?![\w-])"),
    "a plural left to the reader": re.compile(r"\w\(s\)"),
    "a p-value of zero": re.compile(r"\bp = 0\.000\b|\bp 0\.000\b"),
    "an interval of one value": re.compile(r"(?<![\d.,])(\d[\d.,]*)–\1 ?%"),
}
# A name as the code spells it: in a sentence or a header (a table's flags column names
# its flags by their ids, each defined in the report's list of flags).
SNAKE_CASE = re.compile(r"(?<![\w./-])[a-z]+_[a-z_]+\b(?![\w(/.-])")


@check("raw identifier")
def no_raw_identifiers(report: Report) -> Iterator[Defect]:
    """'runs carry littles_law', '92–92 %', '1.000000', a p column printing 0.000: what the
    code calls things, and pandas' own output, never reach the prose or a table."""
    headers = " ".join(text_of(th) for th in report.page.select("thead th"))
    for kind, pattern in RAW.items():
        for hit in sorted({m[0] for m in pattern.finditer(report.prose + " " + headers)})[:5]:
            yield Defect("raw identifier", kind, hit)
    sentences = report.without(*PROSE_LEAVES_OUT, "td") + " " + headers
    for hit in sorted({m[0] for m in SNAKE_CASE.finditer(sentences)}):
        yield Defect("raw identifier", "a snake_case name", hit)
    for table in report.page.select("table"):
        heads = [text_of(th) for th in table.select("tbody tr th:first-child")]
        if heads and heads == [str(i) for i in range(len(heads))]:
            yield Defect(
                "raw identifier", "a table", f"row numbers as labels: {text_of(table)[:60]}"
            )
        for cell in table.select("td"):
            if text_of(cell).endswith("...") or re.fullmatch(r"'[^']*'", text_of(cell)):
                yield Defect("raw identifier", "a table cell", text_of(cell)[:60])
        columns = [text_of(th) for th in table.select("thead th")]
        if "p" in columns:  # p < 0.001 written as 0.000
            at = columns.index("p")
            for row in table.select("tbody tr"):
                cells = [text_of(c) for c in row.select("th, td")]
                if len(cells) == len(columns) and cells[at] == "0.000":
                    yield Defect("raw identifier", "a p column", " | ".join(cells)[:80])


# --- servers by the names a reader knows -----------------------------------------------------


@check("registry id")
def servers_named_as_readers_know_them(report: Report) -> Iterator[Defect]:
    """'python-iodelay uvloop+httptools served …': a sentence names a server by its title
    ("FastAPI (uvloop + httptools)", rows.names); only a table, which matches the run's
    files, and code keep the registry's ids."""
    ids = sorted(Titles.load().servers, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w/.-])(" + "|".join(map(re.escape, ids)) + r")(?![\w/-])")
    sentences = report.without(*PROSE_LEAVES_OUT, "table")
    found = {
        m[1]: sentences[max(0, m.start() - 40) : m.end() + 40] for m in pattern.finditer(sentences)
    }
    for server, context in sorted(found.items()):
        yield Defect("registry id", server, f"in prose: …{context}…")


# --- the glossary: every term used is defined, every defined term used ---------------------


@check("glossary")
def glossary_matches_its_use(report: Report) -> Iterator[Defect]:
    """'ceiling' in three senses, 'speed reference' used and never defined, a glossary
    entry for a term the report no longer uses."""
    explained = {text_of(dt) for dt in report.page.select("#glossary dt")}
    for pattern, term in glossary.TERMS_IN_USE:
        used = re.search(pattern, report.body_text)
        if used and term not in explained:
            yield Defect("glossary", term, "used but not in the glossary")
        if term in explained and not used:
            yield Defect("glossary", term, "in the glossary but never used")
    meaning = {
        text_of(dt): text_of(dt.find_next_sibling("dd"))
        for dt in report.page.select("#glossary dt")
    }
    interval = meaning.get("interval (95 % CI)", "")
    if "procedure" not in interval or "holds the true ratio 95 times" in interval:
        yield Defect("glossary", "interval (95 % CI)", "not defined by its procedure")


# --- no reference to what the report does not hold -----------------------------------------

DANGLING = {
    "an exercise": re.compile(r"\b[Ee]xercises? \d+\b"),
    "a figure of models": re.compile(r"the models' figure"),
    "a flame graph that was not drawn": re.compile(r"inferno-flamegraph was not built"),
}


@check("dangling reference")
def no_dangling_references(report: Report) -> Iterator[Defect]:
    """'Exercise 1 below asks …' where the report leaves its exercises out; 'the models'
    figure' where none is printed: a reference names something the same section shows."""
    for section in report.page.select("section") or [report.page]:
        inner = section.select("section")  # their words are read as their own
        text = text_without(section, inner)
        headings = " ".join(
            text_of(h) for h in section.select("h2, h3, h4") if h.find_parent("section") is section
        )
        for kind, pattern in DANGLING.items():
            for hit in sorted(set(pattern.findall(text))):
                if kind == "an exercise" and hit.lower() in headings.lower():
                    continue
                yield Defect("dangling reference", str(section.get("id", "the report")), hit)
    # Not even hidden: the PDF's pointers to the HTML version live in the print stylesheet.
    if "HTML version" in re.sub(r"<style\b.*?</style>", "", report.html, flags=re.S):
        yield Defect("dangling reference", "the HTML report", "points to the HTML version")


@check("flame graph")
def flame_graphs_where_promised(report: Report) -> Iterator[Defect]:
    """Three notebooks' headings promised flame graphs and showed none: a section whose
    heading names flame graphs holds one, and none carries a control it cannot use."""
    for heading in report.page.select("h2, h3"):
        if "flame graph" not in text_of(heading).lower():
            continue
        section = heading.find_parent("section")
        graphs = _flame_graphs(section) if section else []
        if not graphs:
            yield Defect("flame graph", text_of(heading)[:60], "promised, none shown")
        if any(">Search<" in svg or "<script" in svg for svg in graphs):
            yield Defect("flame graph", text_of(heading)[:60], "shows a Search button")


def _flame_graphs(section: Tag) -> list[str]:
    prefix = "data:image/svg+xml;base64,"
    sources = [str(img.get("src", "")) for img in section.select("img")]
    svgs = [base64.b64decode(s[len(prefix) :]).decode() for s in sources if s.startswith(prefix)]
    return [svg for svg in svgs if "inferno" in svg or "Flame graph" in svg]
