"""Turn executed notebooks into one self-contained HTML report and a PDF of the same page.

Each notebook is rendered with nbconvert and our own template (report_template/): code and
logs folded, figures embedded as data: URIs, no scripts and no external resources, so the
HTML can be mailed, archived or opened offline and the PDF is the same document on paper.

The report answers first: the findings the notebooks published (findings_format) make a
summary page (one row per headline comparison), a page of run-to-run spread, and an
answer box at the top of each section. The appendix lists the provenance (manifest.json)
of every run the notebooks announced: what all runs share once, what differs per run.
"""

from __future__ import annotations

import argparse
import functools
import html as html_text
import io
import json
import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import jinja2
import matplotlib
import nbformat
import weasyprint
from markupsafe import Markup
from matplotlib.figure import Figure
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from pygments.formatters import HtmlFormatter
from traitlets.config import Config

from benchbook.analyse import formatting as fmt
from benchbook.analyse import plots
from benchbook.analyse.findings_format import FINDINGS_MIME, REPRODUCED_LABELS, SELF_EXPLAINED
from benchbook.measure.layout import REPO_ROOT
from benchbook.measure.provenance import git_state
from benchbook.measure.run_store import RUN_MIME

TITLE = "benchbook — web-server performance, re-run"
TEMPLATE_DIR = Path(__file__).resolve().parent / "report_template"

# What nbconvert may show of an output, best first. No JavaScript or widget views: they
# need scripts the report must not carry, and every such output has a text/plain fallback.
DISPLAY_PRIORITY = [
    "text/html",
    "text/markdown",
    "image/svg+xml",
    "image/png",
    "image/jpeg",
    "text/latex",
    "text/plain",
]

# Print layout of tables. Words never break (a header reads "runs", not "ru ns"), so a
# table that would not fit its page at the usual size gets a smaller font, and one that
# would not fit a portrait page even at the smallest comfortable size a landscape page.
# The fit is estimated from each column's longest word in DejaVu Sans Condensed (the
# print font of tables), in ems: glyph widths by character class, bold for headers.
PORTRAIT_WIDTH_PT = (210 - 30) * 72 / 25.4
LANDSCAPE_WIDTH_PT = (297 - 30) * 72 / 25.4
TABLE_FONT_PT = (8.0, 7.0, 6.5, 6.0, 5.5, 5.0)  # first: the normal print size
LANDSCAPE_FONT_PT = (8.0, 7.0, 6.5, 6.0, 5.5, 5.0, 4.5, 4.0)
CELL_PADDING_EM = 0.7  # left + right padding of a cell in print, with a little slack
BOLD_WIDTH = 1.1
SMALL_TABLE_ROWS = 15  # a table this short is never split across pages

# Headings as nbconvert's markdown renderer writes them: an id and a trailing anchor link.
HEADING = re.compile(
    r'<h([1-6]) id="([^"]*)">(.*?)<a class="anchor-link" href="#\2">(.*?)</a></h\1>', re.S
)
TABLE_OPEN = re.compile(r"<table\b([^>]*)>", re.I)
TABLE_ROW = re.compile(r"<tr\b.*?</tr>", re.I | re.S)
CELL = re.compile(r"<(t[hd])\b([^>]*)>(.*?)(?=<t[hd]\b|</tr>)", re.I | re.S)
COLSPAN = re.compile(r'colspan\s*=\s*"?(\d+)', re.I)
ROWSPAN = re.compile(r'rowspan\s*=\s*"?(\d+)', re.I)
TAG = re.compile(r"<[^>]+>")
CHART_IMG = re.compile(r'<img alt="chart"')
# Anything a browser would fetch or run: the report must open offline, exactly as built.
EXTERNAL_REFERENCE = re.compile(
    r"<script\b"
    r"|<link\b"
    r"|<[a-z][^>]*\ssrc\s*=\s*(?![\"']?data:)"
    r"|url\(\s*[\"']?(?:https?:)?//"
    r"|@import\s*(?:url\(|[\"'])",
    re.I,
)
# Manifest keys that identify a run: always in its row, even when every run agrees.
RUN_IDENTITY = ("run_id", "created_utc")
# Values that differ between runs and are short enough for a column of their own, by
# the last part of their key, with their header.
RUN_COLUMNS = (
    (re.compile(r"(^|\.)commit$"), "commit"),
    (re.compile(r"(^|\.)dirty$"), "uncommitted changes"),
    (re.compile(r"(^|\.)load_average[^.]*$"), "load average at start"),
    (re.compile(r"(^|\.)[^.]*steal[^.]*$"), "host CPU steal"),
)


class ReportError(RuntimeError):
    """The report cannot be built honestly (e.g. a run's manifest is missing)."""


@dataclass
class Heading:
    """A heading of a notebook, with the page-wide anchor the contents link to."""

    level: int
    anchor: str
    text: Markup


@dataclass
class Section:
    """One notebook, rendered: its HTML fragment and what the page needs to link to it."""

    path: Path
    anchor: str
    title: Markup
    subheadings: list[Heading]
    html: Markup
    executed_utc: str | None
    duration: str | None
    parameters: list[tuple[str, str]]
    findings: list[dict] = field(default_factory=list)


@dataclass
class Run:
    """One run announced by a notebook, with its manifest flattened to (key, text) pairs."""

    run_id: str
    anchor: str
    notebook: Path
    section_anchor: str
    manifest_path: Path
    values: list[tuple[str, str]]


@dataclass
class RunRow:
    """A run in the provenance table: its own columns, then every other value of its own."""

    run: Run
    cells: list[str]
    rest: list[tuple[str, str]]


@dataclass
class Provenance:
    """Every manifest value once: shared by all runs (grouped by top-level key), or in the
    row of the run it belongs to."""

    shared: list[tuple[str, list[tuple[str, str]]]]
    columns: list[str]
    rows: list[RunRow]


@dataclass
class NotebookRow:
    """A notebook in the provenance: when it ran, and the parameters no other one shares."""

    section: Section
    parameters: list[tuple[str, str]]


def anchor_id(text: str) -> str:
    """An HTML id that survives any run id or file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "x"


def run_anchor(run_id: str) -> str:
    """Anchor of a run in the appendix, shared by the template's links and the appendix."""
    return "run-" + anchor_id(run_id)


# --- tables: width and splitting in print


def text_width_em(text: str, bold: bool = False) -> float:
    """Width of ``text`` in ems of DejaVu Sans Condensed, by character class."""
    width = 0.0
    for char in text:
        if char.isdigit():
            width += 0.572
        elif char.islower():
            width += 0.52
        elif char.isupper():
            width += 0.62
        elif char == " ":
            width += 0.286
        elif char in ".,:;'|!il":
            width += 0.3
        else:
            width += 0.62
    return width * (BOLD_WIDTH if bold else 1.0)


def column_widths_em(table: str) -> list[float]:
    """The narrowest each column can be without breaking a word (its min-content width),
    in ems; cells spanning several columns are left out, rowspans respected."""
    widths: dict[int, float] = {}
    spanned: dict[int, int] = {}  # column → rows still covered by a rowspan above
    for row in TABLE_ROW.findall(table):
        column = 0
        for tag, attrs, content in CELL.findall(row):
            while spanned.get(column, 0) > 0:
                spanned[column] -= 1
                column += 1
            colspan = int(m.group(1)) if (m := COLSPAN.search(attrs)) else 1
            rowspan = int(m.group(1)) if (m := ROWSPAN.search(attrs)) else 1
            if rowspan > 1:
                for c in range(column, column + colspan):
                    spanned[c] = rowspan - 1
            if colspan == 1:
                words = html_text.unescape(TAG.sub(" ", content)).split() or [""]
                bold = tag.lower() == "th"
                longest = max(text_width_em(word, bold) for word in words)
                widths[column] = max(widths.get(column, 0.0), longest + CELL_PADDING_EM)
            column += colspan
        for c in list(spanned):
            if c >= column and spanned[c] > 0:
                spanned[c] -= 1
    return [widths[c] for c in sorted(widths)]


def print_fit(table: str) -> tuple[float, bool]:
    """The largest print font size (pt) at which ``table`` fits a portrait page without
    breaking a word, else a landscape page; (smallest size, True) if nothing fits."""
    total = sum(column_widths_em(table))
    for size in TABLE_FONT_PT:
        if total * size <= PORTRAIT_WIDTH_PT:
            return size, False
    for size in LANDSCAPE_FONT_PT:
        if total * size <= LANDSCAPE_WIDTH_PT:
            return size, True
    return LANDSCAPE_FONT_PT[-1], True


def table_classes(table: str) -> list[str]:
    """Print classes of a table: `fit-<size×10>` and `wide` when it needs a smaller font,
    `very-wide` when it needs a landscape page (`overflows` when not even that is
    enough: its numbers may then break), `unsplit` when it is short enough to keep on
    one page."""
    size, landscape = print_fit(table)
    classes = []
    if size < TABLE_FONT_PT[0] or landscape:
        classes += ["wide", f"fit-{round(size * 10)}"]
    if landscape:
        classes.append("very-wide")
        if sum(column_widths_em(table)) * size > LANDSCAPE_WIDTH_PT:
            classes.append("overflows")
    if len(TABLE_ROW.findall(table)) <= SMALL_TABLE_ROWS:
        classes.append("unsplit")
    return classes


def mark_wide_tables(html: str) -> str:
    """Class tables by the width they need in print (table_classes), so print CSS can
    shrink them, give them a landscape page, or keep them on one page."""
    pieces = []
    position = 0
    for match in TABLE_OPEN.finditer(html):
        end = html.find("</table>", match.end())
        classes = table_classes(html[match.end() : end if end >= 0 else len(html)])
        if not classes:
            continue
        attrs = match.group(1)
        if re.search(r'\bclass="', attrs):
            attrs = re.sub(r'\bclass="', f'class="{" ".join(classes)} ', attrs, count=1)
        else:
            attrs += f' class="{" ".join(classes)}"'
        pieces += [html[position : match.start()], f"<table{attrs}>"]
        position = match.end()
    return "".join(pieces) + html[position:]


# --- findings: summary, spread, answer boxes


def markdown(source: str | None) -> Markup:
    """Markdown as nbconvert renders the notebooks' cells."""
    return Markup(markdown2html_mistune(source or "").strip())


def markdown_inline(source: str | None) -> Markup:
    """One paragraph of markdown without its <p>, for a table cell or a list item."""
    rendered = markdown(source)
    match = re.fullmatch(r"<p>(.*)</p>", rendered, re.S)
    return Markup(match.group(1)) if match else rendered


def _missing(value: object) -> bool:
    """No number to print: null, absent from the JSON, or NaN."""
    return not isinstance(value, int | float) or math.isnan(value)


def ratio_text(ratio: float | None) -> str:
    """'14×', '0.0031×' (formatting.ratio: two significant digits, never '0.00×'); '—'
    for no ratio."""
    return "—" if _missing(ratio) else fmt.ratio(ratio)


def ci_text(low: float | None, high: float | None, level: float | None) -> str:
    """'CI 11–21×' for an interval reaching 95 %, '93.8 % CI 11–21×' for one that
    could not (too few runs), 'no CI' without one."""
    if _missing(low) or _missing(high) or _missing(level) or not level:
        return "no CI"
    label = fmt.level(level)
    label = "CI" if label == fmt.level(fmt.TARGET_LEVEL) else label
    return f"{label} {fmt.interval(low, high)}".replace(" %", "\u00a0%")


def ratio_with_ci(
    ratio: float | None, low: float | None, high: float | None, level: float | None
) -> str:
    """'14× (CI 11–21×)', '14× (93.8 % CI 11–21×)', or 'no comparison'."""
    if _missing(ratio):
        return "no comparison"
    return f"{ratio_text(ratio)} ({ci_text(low, high, level)})"


def reproduced_class(label: str | None) -> str:
    """CSS class of a reproduction verdict: repro-0 (reproduced) … repro-4 (too few runs)."""
    if label in REPRODUCED_LABELS:
        return f"repro-{REPRODUCED_LABELS.index(label)}"
    return "repro-other"


def load_findings(data: object) -> dict:
    """A findings output as a dict (nbformat keeps JSON outputs parsed; accept text too)."""
    findings = json.loads(data) if isinstance(data, str) else dict(data)
    findings.setdefault("headlines", [])
    return findings


def headline_table(findings: Mapping) -> Markup:
    """The findings output in place: one row per headline, its numbers and the article's."""
    module = page_environment().get_template("findings.html.j2").module
    return Markup(module.headline_table(findings).strip())


def answer_box(findings: Sequence[Mapping]) -> Markup:
    """The answer at the top of a section, with its headline verdicts."""
    module = page_environment().get_template("findings.html.j2").module
    return Markup(module.answer_box(findings).strip())


def insert_answer_box(body: str, box: str) -> str:
    """Place the answer box after the section's title and first paragraphs: before its
    first <h2> (its "Setup"), else before its first code cell, else at its end."""
    body, box = str(body), str(box)  # plain text: Markup would escape the other side
    for marker in ("<h2", '<div class="cell code-cell"', "</section>"):
        position = body.find(marker)
        if position >= 0:
            return body[:position] + box + body[position:]
    return body + box


def svg_inline(fig: Figure, prefix: str, label: str) -> Markup:
    """A figure as an <svg> element for the page: text kept as text, ids prefixed so that
    several figures on one page never share one, no stylesheet leaking into the page."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": prefix}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r'<style type="text/css">.*?</style>\s*', "", svg, flags=re.S)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r'(\bxlink:href|\bhref)="#([^"]+)"', rf'\1="#{prefix}-\2"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    attributes = (
        f' class="chart spread-plot" role="img" aria-label="{html_text.escape(label)}"'
        ' stroke-linejoin="round" stroke-linecap="butt"'
    )
    return Markup(svg.replace("<svg", "<svg" + attributes, 1))


@dataclass
class SpreadItem:
    """One headline's run-to-run spread: its stored runs as a table and a dot plot."""

    anchor: str
    section: Section
    experiment: str
    headline: dict
    runs: list[dict]
    plot: Markup


def spread_items(sections: Sequence[Section]) -> list[SpreadItem]:
    """A spread item per headline of every section's findings, in notebook order."""
    items = []
    for section in sections:
        headlines = [(f, h) for f in section.findings for h in f["headlines"]]
        for number, (findings, headline) in enumerate(headlines, start=1):
            runs = list(headline.get("spread") or [])
            anchor = f"spread-{anchor_id(section.path.stem)}-{number}"
            plot = Markup("")
            if runs:
                fig = plots.spread_dots(runs, headline.get("article_ratio"))
                plot = svg_inline(fig, anchor, f"Run-to-run spread of {headline.get('label')}")
            items.append(
                SpreadItem(
                    anchor=anchor,
                    section=section,
                    experiment=findings.get("title") or section.title,
                    headline=headline,
                    runs=runs,
                    plot=plot,
                )
            )
    return items


# --- notebooks


@functools.cache
def page_environment() -> jinja2.Environment:
    """The report's own templates (page, findings), autoescaped, with its filters."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR), autoescape=True, keep_trailing_newline=True
    )
    environment.filters.update(
        markdown=markdown,
        markdown_inline=markdown_inline,
        ratio=ratio_text,
        interval=lambda low, high: "—" if _missing(low) else fmt.interval(low, high),
        level=lambda level: "—" if _missing(level) else fmt.level(level).removesuffix(" CI"),
        ratio_with_ci=ratio_with_ci,
        reproduced_class=reproduced_class,
        summary_why=lambda label: label not in SELF_EXPLAINED,
        run_anchor=run_anchor,
        p_value=lambda p: "—" if _missing(p) else fmt.p_value(p),
    )
    return environment


def make_exporter() -> HTMLExporter:
    """nbconvert with our template, our filters and no script-only output types."""
    config = Config({"NbConvertBase": {"display_data_priority": DISPLAY_PRIORITY}})
    return HTMLExporter(
        config=config,
        extra_template_basedirs=[str(TEMPLATE_DIR.parent)],
        template_name=TEMPLATE_DIR.name,
        template_file="index.html.j2",
        embed_images=True,
        filters={
            "mark_wide_tables": mark_wide_tables,
            "run_anchor": run_anchor,
            "headline_table": lambda data: headline_table(load_findings(data)),
        },
    )


def anchor_headings(html: str, prefix: str) -> tuple[str, list[Heading]]:
    """Make heading ids unique across notebooks and list the headings for the contents."""
    headings: list[Heading] = []
    used: set[str] = set()

    def rewrite(match: re.Match[str]) -> str:
        level, anchor, inner, link_text = match.groups()
        unique = base = f"{prefix}-{anchor}"
        repeat = 1
        while unique in used:
            repeat += 1
            unique = f"{base}-{repeat}"
        used.add(unique)
        headings.append(Heading(int(level), unique, Markup(TAG.sub("", inner).strip())))
        return (
            f'<h{level} id="{unique}">{inner}'
            f'<a class="anchor-link" href="#{unique}">{link_text}</a></h{level}>'
        )

    return HEADING.sub(rewrite, html), headings


def describe_charts(html: str) -> str:
    """Give each chart an alt text naming the heading it stands under."""
    headings = [(m.start(), TAG.sub("", m.group(3)).strip()) for m in HEADING.finditer(html)]

    def describe(match: re.Match[str]) -> str:
        above = [text for position, text in headings if position < match.start()]
        where = f" under “{above[-1]}”" if above else ""
        return f'<img alt="chart{html_text.escape(where)}"'

    return CHART_IMG.sub(describe, html)


def papermill_summary(
    nb: nbformat.NotebookNode,
) -> tuple[str | None, str | None, list[tuple[str, str]]]:
    """When the notebook ran, for how long and with which injected parameters."""
    papermill = nb.metadata.get("papermill", {})
    end_time = papermill.get("end_time")
    executed = None
    if end_time:
        executed = datetime.fromisoformat(end_time).strftime("%Y-%m-%d %H:%M:%S")
    duration = papermill.get("duration")
    duration_text = f"{duration:.0f} s" if isinstance(duration, int | float) else None
    parameters = flatten(papermill.get("parameters", {}))
    return executed, duration_text, parameters


def outputs_of(nb: nbformat.NotebookNode, mime: str) -> list[object]:
    """The data of every output of ``mime``, in cell order."""
    return [
        output["data"][mime]
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if mime in output.get("data", {})
    ]


def render_notebook(path: Path, exporter: HTMLExporter) -> tuple[Section, list[dict]]:
    """One notebook as a section fragment, plus the run bundles its outputs announced."""
    nb = nbformat.read(path, as_version=4)
    section_anchor = "nb-" + anchor_id(path.stem)
    body, _ = exporter.from_notebook_node(
        nb,
        resources={
            "section_id": section_anchor,
            "run_mime": RUN_MIME,
            "findings_mime": FINDINGS_MIME,
            "metadata": {"path": str(path.resolve().parent), "name": path.stem},
        },
    )
    findings = [load_findings(data) for data in outputs_of(nb, FINDINGS_MIME)]
    if findings:
        body = insert_answer_box(body, answer_box(findings))
    body, headings = anchor_headings(body, anchor_id(path.stem))
    body = describe_charts(body)
    first_h1 = next((h for h in headings if h.level == 1), None)
    executed, duration, parameters = papermill_summary(nb)
    section = Section(
        path=path,
        anchor=first_h1.anchor if first_h1 else section_anchor,
        title=first_h1.text if first_h1 else Markup.escape(path.stem),
        subheadings=[h for h in headings if h.level == 2],
        html=Markup(body),
        executed_utc=executed,
        duration=duration,
        parameters=parameters,
        findings=findings,
    )
    return section, outputs_of(nb, RUN_MIME)


# --- provenance


def format_value(value: object) -> str:
    """A manifest leaf as text: lists joined with ', ', nested structures as compact JSON."""
    if isinstance(value, list):
        return ", ".join(format_value(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    if value is None:
        return "—"
    return str(value)


def flatten(value: dict, prefix: str = "") -> list[tuple[str, str]]:
    """Nested dicts as (dotted.key, text) rows, so a growing manifest needs no code change."""
    rows: list[tuple[str, str]] = []
    for key, item in value.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item:
            rows += flatten(item, dotted)
        else:
            rows.append((dotted, format_value(item)))
    return rows


def shared_values(rows: Sequence[Sequence[tuple[str, str]]]) -> dict[str, str]:
    """The (key, value) pairs every one of ``rows`` has, identically, in first-seen order."""
    if not rows:
        return {}
    first = dict(rows[0])
    others = [dict(row) for row in rows[1:]]
    return {
        key: value
        for key, value in first.items()
        if all(key in other and other[key] == value for other in others)
    }


def split_provenance(runs: Sequence[Run]) -> Provenance:
    """Every manifest value exactly once: those all runs share in one block (by top-level
    key), the rest in each run's row — short ones that differ (commit, load, steal) as
    columns, the others listed under it."""
    shared = {
        key: value
        for key, value in shared_values([run.values for run in runs]).items()
        if key not in RUN_IDENTITY
    }
    groups: dict[str, list[tuple[str, str]]] = {}
    for key, value in shared.items():
        group, _, rest = key.partition(".")
        groups.setdefault(group if rest else "run", []).append((rest or key, value))
    per_run = {key for run in runs for key, _ in run.values} - shared.keys() - set(RUN_IDENTITY)
    differing = [
        key for key in dict.fromkeys(k for run in runs for k, _ in run.values) if key in per_run
    ]
    columns: list[tuple[str, str]] = []
    for pattern, header in RUN_COLUMNS:
        columns += [(key, header) for key in differing if pattern.search(key)]
    column_keys = {key for key, _ in columns}
    rows = []
    for run in runs:
        values = dict(run.values)
        cells = [values.get("created_utc", "—")] + [values.get(k, "—") for k, _ in columns]
        rest = [
            (k, v)
            for k, v in run.values
            if k not in shared and k not in column_keys and k not in RUN_IDENTITY
        ]
        rows.append(RunRow(run=run, cells=cells, rest=rest))
    return Provenance(
        shared=list(groups.items()),
        columns=["created (UTC)"] + [header for _, header in columns],
        rows=rows,
    )


def notebook_rows(sections: Sequence[Section]) -> tuple[list[tuple[str, str]], list[NotebookRow]]:
    """Parameters every notebook ran with (shown once), and each notebook's own."""
    shared = shared_values([section.parameters for section in sections])
    if len(sections) < 2:
        shared = {}
    rows = [
        NotebookRow(section, [(k, v) for k, v in section.parameters if k not in shared])
        for section in sections
    ]
    return list(shared.items()), rows


def manifest_pattern(runs: Sequence[Run]) -> str | None:
    """'data/runs/<run id>/manifest.json' when every manifest sits in one folder of runs
    (relative to the repository when inside it: the reader's clone is elsewhere)."""
    parents = {run.manifest_path.parent.parent for run in runs}
    if len(parents) == 1 and all(
        run.manifest_path.parent.name == run.run_id and run.manifest_path.name == "manifest.json"
        for run in runs
    ):
        parent = parents.pop()
        shown = parent.relative_to(REPO_ROOT) if parent.is_relative_to(REPO_ROOT) else parent
        return f"{shown}/<run id>/manifest.json"
    return None


def load_run(bundle: dict, section: Section) -> Run:
    """Read the manifest a run bundle points at; a missing one is an error, never a gap."""
    run_dir = Path(bundle["path"])
    if not run_dir.is_absolute():
        run_dir = REPO_ROOT / run_dir
    manifest_path = run_dir / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(
            f"{section.path}: run {bundle.get('run_id')!r} has no manifest at {manifest_path}"
        ) from None
    except json.JSONDecodeError as error:
        raise ReportError(f"{section.path}: {manifest_path} is not valid JSON: {error}") from None
    run_id = str(manifest.get("run_id", bundle["run_id"]))
    return Run(
        run_id=run_id,
        anchor=run_anchor(run_id),
        notebook=section.path,
        section_anchor=section.anchor,
        manifest_path=manifest_path,
        values=flatten(manifest),
    )


def describe_commit() -> str | None:
    """The commit the report was built from, flagged when the code has uncommitted edits."""
    git = git_state()
    if not git["commit"]:
        return None
    return f"{str(git['commit'])[:12]}{' + uncommitted changes' if git['dirty'] else ''}"


# --- the page


def render_report(executed: list[Path]) -> str:
    """The whole report page as one HTML string."""
    exporter = make_exporter()
    sections: list[Section] = []
    runs: dict[str, Run] = {}
    for path in executed:
        section, bundles = render_notebook(path, exporter)
        sections.append(section)
        for bundle in bundles:
            run = load_run(bundle, section)
            runs.setdefault(run.run_id, run)
    css = (TEMPLATE_DIR / "report.css").read_text(encoding="utf-8")
    css += "\n" + HtmlFormatter(style="default").get_style_defs(".highlight")
    shared_parameters, notebooks = notebook_rows(sections)
    html = (
        page_environment()
        .get_template("page.html.j2")
        .render(
            title=TITLE,
            css=Markup(css),
            generated_utc=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            commit=describe_commit(),
            sections=sections,
            summary=[s for s in sections if s.findings],
            spread=spread_items(sections),
            runs=list(runs.values()),
            provenance=split_provenance(list(runs.values())),
            manifests=manifest_pattern(list(runs.values())),
            shared_parameters=shared_parameters,
            notebooks=notebooks,
        )
    )
    if match := EXTERNAL_REFERENCE.search(html):
        context = html[max(0, match.start() - 80) : match.end() + 80]
        raise ReportError(f"the report would load an external resource or script: {context!r}")
    return html


def write_atomically(path: Path, content: bytes) -> None:
    """Write via a temporary file and rename, so `make` never sees a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(content)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def render_pdf(html: str, base_url: Path) -> bytes:
    """The page on A4, tagged (headings, tables and figures with their alt text are
    structure a screen reader — and a test — can find)."""
    return weasyprint.HTML(string=html, base_url=str(base_url)).write_pdf(pdf_tags=True)


def build_report(executed: list[Path], html_path: Path, pdf_path: Path) -> None:
    """Render the executed notebooks to `html_path`, and the same page to `pdf_path`."""
    html = render_report(executed)
    write_atomically(html_path, html.encode("utf-8"))
    write_atomically(pdf_path, render_pdf(html, html_path.resolve().parent))


def main(argv: list[str] | None = None) -> int:
    """CLI for `make report`."""
    parser = argparse.ArgumentParser(prog="python -m benchbook.render.report", description=__doc__)
    parser.add_argument("--html", type=Path, required=True, help="HTML file to write")
    parser.add_argument("--pdf", type=Path, required=True, help="PDF file to write")
    parser.add_argument("executed", type=Path, nargs="+", help="executed notebooks, in order")
    args = parser.parse_args(argv)
    try:
        build_report(args.executed, args.html, args.pdf)
    except ReportError as error:
        print(f"report: {error}", file=sys.stderr)
        return 1
    print(f"wrote {args.html} and {args.pdf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
