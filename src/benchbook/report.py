"""Turn executed notebooks into one self-contained HTML report and a PDF of the same page.

Each notebook is rendered with nbconvert and our own template (report_template/): code and
logs folded, figures embedded as data: URIs, no scripts and no external resources, so the
HTML can be mailed, archived or opened offline and the PDF is the same document on paper.
The appendix lists the provenance (manifest.json) of every run the notebooks announced.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import jinja2
import nbformat
import weasyprint
from markupsafe import Markup
from nbconvert import HTMLExporter
from pygments.formatters import HtmlFormatter
from traitlets.config import Config

from benchbook.layout import REPO_ROOT
from benchbook.provenance import git_state
from benchbook.results import RUN_MIME

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
WIDE_TABLE_COLUMNS = 8
VERY_WIDE_TABLE_COLUMNS = 16

# Headings as nbconvert's markdown renderer writes them: an id and a trailing anchor link.
HEADING = re.compile(
    r'<h([1-6]) id="([^"]*)">(.*?)<a class="anchor-link" href="#\2">(.*?)</a></h\1>', re.S
)
TABLE_OPEN = re.compile(r"<table\b([^>]*)>", re.I)
TABLE_ROW = re.compile(r"<tr\b.*?</tr>", re.I | re.S)
TABLE_CELL = re.compile(r"<t[hd]\b([^>]*)>", re.I)
COLSPAN = re.compile(r'colspan\s*=\s*"?(\d+)', re.I)
TAG = re.compile(r"<[^>]+>")
# Anything a browser would fetch or run: the report must open offline, exactly as built.
EXTERNAL_REFERENCE = re.compile(
    r"<script\b"
    r"|<link\b"
    r"|<[a-z][^>]*\ssrc\s*=\s*(?![\"']?data:)"
    r"|url\(\s*[\"']?(?:https?:)?//"
    r"|@import\s*(?:url\(|[\"'])",
    re.I,
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


@dataclass
class Run:
    """One run announced by a notebook, with its manifest flattened into tables."""

    run_id: str
    anchor: str
    notebook: Path
    section_anchor: str
    manifest_path: Path
    tables: list[tuple[str, list[tuple[str, str]]]]


def anchor_id(text: str) -> str:
    """An HTML id that survives any run id or file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "x"


def run_anchor(run_id: str) -> str:
    """Anchor of a run in the appendix, shared by the template's links and the appendix."""
    return "run-" + anchor_id(run_id)


def count_columns(table: str) -> int:
    """Widest row of an HTML table, counting colspans (pandas' MultiIndex headers use them)."""
    widths = [
        sum(int(m.group(1)) if (m := COLSPAN.search(attrs)) else 1 for attrs in cells)
        for row in TABLE_ROW.findall(table)
        if (cells := TABLE_CELL.findall(row))
    ]
    return max(widths, default=0)


def mark_wide_tables(html: str) -> str:
    """Class tables by column count so print CSS can shrink them to fit an A4 page."""
    pieces = []
    position = 0
    for match in TABLE_OPEN.finditer(html):
        end = html.find("</table>", match.end())
        columns = count_columns(html[match.end() : end if end >= 0 else len(html)])
        if columns < WIDE_TABLE_COLUMNS:
            continue
        width_class = "wide very-wide" if columns >= VERY_WIDE_TABLE_COLUMNS else "wide"
        attrs = match.group(1)
        if re.search(r'\bclass="', attrs):
            attrs = re.sub(r'\bclass="', f'class="{width_class} ', attrs, count=1)
        else:
            attrs += f' class="{width_class}"'
        pieces += [html[position : match.start()], f"<table{attrs}>"]
        position = match.end()
    return "".join(pieces) + html[position:]


def make_exporter() -> HTMLExporter:
    """nbconvert with our template, our filters and no script-only output types."""
    config = Config({"NbConvertBase": {"display_data_priority": DISPLAY_PRIORITY}})
    return HTMLExporter(
        config=config,
        extra_template_basedirs=[str(TEMPLATE_DIR.parent)],
        template_name=TEMPLATE_DIR.name,
        template_file="index.html.j2",
        embed_images=True,
        filters={"mark_wide_tables": mark_wide_tables, "run_anchor": run_anchor},
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


def render_notebook(path: Path, exporter: HTMLExporter) -> tuple[Section, list[dict]]:
    """One notebook as a section fragment, plus the run bundles its outputs announced."""
    nb = nbformat.read(path, as_version=4)
    section_anchor = "nb-" + anchor_id(path.stem)
    body, _ = exporter.from_notebook_node(
        nb,
        resources={
            "section_id": section_anchor,
            "run_mime": RUN_MIME,
            "metadata": {"path": str(path.resolve().parent), "name": path.stem},
        },
    )
    body, headings = anchor_headings(body, anchor_id(path.stem))
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
    )
    bundles = [
        output["data"][RUN_MIME]
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if RUN_MIME in output.get("data", {})
    ]
    return section, bundles


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


def manifest_tables(manifest: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    """Top-level scalars in one 'run' table, then one table per top-level mapping."""
    tables = [
        ("run", [(k, format_value(v)) for k, v in manifest.items() if not isinstance(v, dict)])
    ]
    tables += [(k, flatten(v)) for k, v in manifest.items() if isinstance(v, dict)]
    return [(caption, rows) for caption, rows in tables if rows]


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
        tables=manifest_tables(manifest),
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
    runs: dict[str, Run] = {}
    for path in executed:
        section, bundles = render_notebook(path, exporter)
        sections.append(section)
        for bundle in bundles:
            run = load_run(bundle, section)
            runs.setdefault(run.run_id, run)
    css = (TEMPLATE_DIR / "report.css").read_text(encoding="utf-8")
    css += "\n" + HtmlFormatter(style="default").get_style_defs(".highlight")
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR), autoescape=True, keep_trailing_newline=True
    )
    html = environment.get_template("page.html.j2").render(
        title=TITLE,
        css=Markup(css),
        generated_utc=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        commit=describe_commit(),
        sections=sections,
        runs=list(runs.values()),
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


def build_report(executed: list[Path], html_path: Path, pdf_path: Path) -> None:
    """Render the executed notebooks to `html_path`, and the same page to `pdf_path`."""
    html = render_report(executed)
    write_atomically(html_path, html.encode("utf-8"))
    pdf = weasyprint.HTML(string=html, base_url=str(html_path.resolve().parent)).write_pdf()
    write_atomically(pdf_path, pdf)


def main(argv: list[str] | None = None) -> int:
    """CLI for `make report`."""
    parser = argparse.ArgumentParser(prog="python -m benchbook.report", description=__doc__)
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
