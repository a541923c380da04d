"""A class's results as a page: Markdown (printed by ``python -m benchbook.course class``)
and one HTML page, OUT/index.html, with the files refused listed under the tables."""

import html
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.course.class_import import import_class
from benchbook.course.class_results import MISSING, SPREAD, ClassResults, class_results, number


def _cell(value: object, column: str, ratio: bool) -> str:
    if isinstance(value, str):
        return value
    found = number(value)
    if found is None:
        return MISSING
    if ratio or column == SPREAD:
        return fmt.ratio(found)
    return f"{found:,.0f}" if abs(found) >= 100 else fmt.significant(found, 3)


def formatted(table: pd.DataFrame, ratio: bool = False) -> pd.DataFrame:
    """The table's numbers as the page prints them: medians ≥ 100 whole ('41,562'),
    smaller ones to three significant digits, ratios and the spread as 'x.xx×', a missing
    one as '–'."""
    return pd.DataFrame(
        {c: [_cell(v, c, ratio) for v in table[c]] for c in table.columns}, dtype=object
    )


def _markdown_table(table: pd.DataFrame) -> str:
    def row(cells: Iterable[object]) -> str:
        return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"

    lines = [row(table.columns), row("---" for _ in table.columns)]
    lines += [row(values) for values in table.itertuples(index=False)]
    return "\n".join(lines)


INTRO = (
    "Each column is one student's laptop: its own machine class. Every number is a "
    "median over the rounds of that student's newest run of the experiment (valid rounds "
    "only); a headline is the ratio of two such medians. The last column is the spread "
    "across laptops: the largest value over the smallest. – : the student has no such run."
)


def _sections(results: ClassResults) -> list[tuple[str, pd.DataFrame]]:
    return [
        ("Laptops", results.machines),
        ("Headlines: ratio of medians, per laptop", formatted(results.headlines, ratio=True)),
        ("Every target: median of its main column, per laptop", formatted(results.medians)),
    ]


def _refused_lines(results: ClassResults) -> list[str]:
    return [f"{r.file}: {r.problem}" for r in results.refused]


def markdown(results: ClassResults) -> str:
    """The class's results as Markdown: the laptops, the headlines, every target, and the
    files refused."""
    parts = ["# Class results", "", INTRO]
    if not results.students:
        parts += ["", "No session file could be imported."]
    else:
        for title, table in _sections(results):
            parts += ["", f"## {title}", "", _markdown_table(table)]
    if results.refused:
        parts += ["", "## Files refused", ""]
        parts += [f"- {line}" for line in _refused_lines(results)]
    return "\n".join(parts) + "\n"


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
td { text-align: right; }
td:first-child, td:nth-child(2), td:nth-child(3) { text-align: left; }
th { background: #f4f4f4; }
.refused { color: #a00; }
"""


def page(results: ClassResults) -> str:
    """The class's results as one HTML page (index.html)."""
    body = ["<h1>Class results</h1>", f"<p>{html.escape(INTRO)}</p>"]
    if not results.students:
        body.append("<p>No session file could be imported.</p>")
    else:
        for title, table in _sections(results):
            body += [f"<h2>{html.escape(title)}</h2>", table.to_html(index=False, border=0)]
    if results.refused:
        body.append("<h2>Files refused</h2>")
        items = "".join(f"<li>{html.escape(line)}</li>" for line in _refused_lines(results))
        body.append(f'<ul class="refused">{items}</ul>')
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Class results</title>'
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def build(files: Sequence[Path], out: Path) -> ClassResults:
    """Import ``files`` under ``out`` and write ``out/index.html`` and ``out/medians.csv``
    (every median with its run and rounds)."""
    students, refused = import_class(files, out)
    results = class_results(students, refused)
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(page(results))
    results.long.to_csv(out / "medians.csv", index=False)
    return results
