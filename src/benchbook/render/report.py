"""Turn executed notebooks into one self-contained HTML report and a PDF of the same page.

Each notebook becomes a section (notebook_html): no scripts and no external resources, so
the HTML can be mailed, archived or opened offline and the PDF is the same document on
paper. The report answers first: the findings the notebooks published (findings_format)
make page 1 (a chart of every answer, then each question's plain answer), a glossary
follows, and each section opens with an answer box holding the chart of its own answers
(findings_html). Notes every notebook repeats (how runs are measured, the load-tool
ceilings) are shown once, then linked to (repeated_notes). The appendix holds what a
reader looks up rather than reads: every headline against its article, the sessions behind
each (spread_page), the cells each notebook tagged for it (details), and the provenance
of every run the notebooks announced (provenance)."""

import argparse
import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import weasyprint
from markupsafe import Markup
from pygments.formatters import HtmlFormatter

from benchbook.analyse.claims.verdict_kinds import verdict_css
from benchbook.analyse.words import glossary
from benchbook.render.explorer import SCRIPT, explorer_rows
from benchbook.render.findings_html import page_chart
from benchbook.render.machine_level import machine_level
from benchbook.render.notebook_html import Section, make_exporter, render_notebook
from benchbook.render.overview import answers_note, conditions_line, overview_sentences
from benchbook.render.provenance import (
    ReportError,
    RunProvenance,
    load_run,
    manifest_pattern,
    measured_when,
    notebook_rows,
    split_provenance,
)
from benchbook.render.repeated_notes import link_repeated_notes
from benchbook.render.spread_page import (
    coverage_table,
    machine_census,
    spread_items,
)
from benchbook.render.templates import TEMPLATE_DIR, page_environment
from benchbook.runs.manifest import KILLED, UNRECORDED
from benchbook.runs.provenance import git_state
from benchbook.store.sessions import not_sessions

TITLE = "benchbook — web-server performance, re-run"
# Anything a browser would fetch or run: the report must open offline, exactly as built.
EXTERNAL_REFERENCE = re.compile(
    r"<script\b"
    r"|<link\b"
    r"|<[a-z][^>]*\ssrc\s*=\s*(?![\"']?data:)"
    r"|url\(\s*[\"']?(?:https?:)?//"
    r"|@import\s*(?:url\(|[\"'])",
    re.I,
)


def describe_commit() -> str | None:
    """The commit the report was built from, flagged when the code has uncommitted edits."""
    git = git_state()
    if not git["commit"]:
        return None
    return f"{str(git['commit'])[:12]}{' + uncommitted changes' if git['dirty'] else ''}"


def render_report(executed: list[Path]) -> str:
    """The whole report page as one HTML string."""
    exporter = make_exporter()
    sections: list[Section] = []
    runs: dict[str, RunProvenance] = {}
    for path in executed:
        section, bundles = render_notebook(path, exporter)
        sections.append(section)
        for bundle in bundles:
            run = load_run(bundle, section)
            runs.setdefault(run.run_id, run)
    link_repeated_notes(sections)
    css = (TEMPLATE_DIR / "report.css").read_text(encoding="utf-8")
    css += "\n" + verdict_css()
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
            details=[s for s in sections if s.details],
            summary=[s for s in sections if s.findings],
            answer_chart=page_chart(sections),
            overview=overview_sentences(sections),
            answers_note=answers_note([s for s in sections if s.findings]),
            conditions=conditions_line(list(runs.values())),
            measured=measured_when(list(runs.values())),
            spread=spread_items(sections),
            explorer=explorer_rows(sections),
            explorer_script=SCRIPT,
            classes=machine_census(sections, current=list(runs)),
            coverage=coverage_table(),
            machines=machine_level(sections),
            not_sessions=not_sessions(),
            killed=KILLED,
            unrecorded=UNRECORDED,
            glossary=glossary.terms(),
            glossary_flags=glossary.flags(),
            runs=list(runs.values()),
            provenance=split_provenance(list(runs.values())),
            manifests=manifest_pattern(list(runs.values())),
            shared_parameters=shared_parameters,
            notebooks=notebooks,
        )
    )
    # The explorer's own inline script is the one script allowed (render/explorer).
    if match := EXTERNAL_REFERENCE.search(html.replace(SCRIPT, "")):
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
