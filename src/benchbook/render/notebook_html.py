"""One executed notebook as a section of the report: nbconvert with our template
(report_template/), code and logs folded, figures embedded as data: URIs, headings
anchored page-wide, charts described, the findings' answer box at the top, and the cells
it tagged for the appendix rendered apart (details)."""

import html as html_text
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import nbformat
from markupsafe import Markup
from nbconvert import HTMLExporter
from traitlets.config import Config

from benchbook.analyse.words.findings_format import FINDINGS_MIME
from benchbook.render.course_cells import without_course_cells
from benchbook.render.details import split_cells
from benchbook.render.dotted_rows import flatten
from benchbook.render.findings_html import (
    answer_box,
    headline_table,
    insert_answer_box,
    load_findings,
)
from benchbook.render.print_tables import TAG, mark_wide_tables
from benchbook.render.templates import TEMPLATE_DIR, anchor_id, badge_symbol, run_anchor
from benchbook.runs.store import RUN_MIME

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
# Headings as nbconvert's markdown renderer writes them: an id and a trailing anchor link.
HEADING = re.compile(
    r'<h([1-6]) id="([^"]*)">(.*?)<a class="anchor-link" href="#\2">(.*?)</a></h\1>', re.S
)
CHART_IMG = re.compile(r'<img alt="chart"')


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
    details: Markup | None = None


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
            "badge_symbol": badge_symbol,
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


def export_fragment(
    nb: nbformat.NotebookNode, exporter: HTMLExporter, path: Path, anchor: str, kind: str
) -> str:
    """One notebook (or its moved cells) as a <section class=kind> fragment."""
    body, _ = exporter.from_notebook_node(
        nb,
        resources={
            "section_id": anchor,
            "section_class": kind,
            "run_mime": RUN_MIME,
            "findings_mime": FINDINGS_MIME,
            "metadata": {"path": str(path.resolve().parent), "name": path.stem},
        },
    )
    return body


def render_notebook(path: Path, exporter: HTMLExporter) -> tuple[Section, list[dict]]:
    """One notebook as a section fragment (and the cells it tagged for the appendix as
    another), plus the run bundles its outputs announced."""
    nb = without_course_cells(nbformat.read(path, as_version=4))
    section_anchor = "nb-" + anchor_id(path.stem)
    main, moved = split_cells(nb, section_anchor)
    body = export_fragment(main, exporter, path, section_anchor, "notebook")
    findings = [load_findings(data) for data in outputs_of(nb, FINDINGS_MIME)]
    if findings:
        body = insert_answer_box(body, answer_box(findings, section_anchor))
    body, headings = anchor_headings(body, anchor_id(path.stem))
    body = describe_charts(body)
    details = None
    if moved is not None:
        fragment = export_fragment(moved, exporter, path, f"{section_anchor}-details", "details")
        details, _ = anchor_headings(fragment, anchor_id(path.stem) + "-details")
        details = Markup(describe_charts(details))
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
        details=details,
    )
    return section, outputs_of(nb, RUN_MIME)
