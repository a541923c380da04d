"""What a notebook found (findings_format.FINDINGS_MIME), in its own section: the answer box
at its top and, in place of the findings output, a table of its headlines; and the chart of
every answer (analyse.display.answer_chart) on page 1 and, for its own headlines, in each box."""

import json
from collections.abc import Mapping, Sequence

from markupsafe import Markup

from benchbook.analyse.display.answer_chart import ROW_GID, answer_chart
from benchbook.render.svg import svg_inline
from benchbook.render.templates import page_environment

CHART_LABEL = "Every answer at a glance"


def load_findings(data: object) -> dict:
    """A findings output as a dict (nbformat keeps JSON outputs parsed; accept text too)."""
    findings = json.loads(data) if isinstance(data, str) else dict(data)
    findings.setdefault("headlines", [])
    return findings


def headline_table(findings: Mapping) -> Markup:
    """The findings output in place: one row per headline, its numbers and the article's."""
    module = page_environment().get_template("findings.html.j2").module
    return Markup(module.headline_table(findings).strip())


def chart_svg(groups: Sequence[tuple[str, Sequence[Mapping]]], prefix: str) -> Markup:
    """The answer chart of ``groups`` (title, headlines) as inline SVG, each row titled with
    its headline's full label; nothing without a headline."""
    labels = [str(h.get("label") or "") for _, headlines in groups for h in headlines]
    if not labels:
        return Markup("")
    titles = {ROW_GID.format(number): label for number, label in enumerate(labels)}
    fig = answer_chart(groups)
    return svg_inline(fig, prefix, CHART_LABEL, css_class="answer-plot", titles=titles)


def page_chart(sections: Sequence) -> Markup:
    """Page 1's chart: every headline of every section's findings, under its title."""
    groups = [
        (findings.get("title") or Markup(section.title).striptags(), findings["headlines"])
        for section in sections
        for findings in section.findings
    ]
    return chart_svg(groups, "answer-chart")


def answer_box(findings: Sequence[Mapping], prefix: str = "answer") -> Markup:
    """The answer at the top of a section, with its headline verdicts and their chart (its
    rows grouped by title only when the notebook published more than one findings)."""
    titled = len(findings) > 1
    groups = [((f.get("title") or "") if titled else "", f["headlines"]) for f in findings]
    module = page_environment().get_template("findings.html.j2").module
    chart = chart_svg(groups, f"{prefix}-chart")
    return Markup(module.answer_box(findings, chart).strip())


def insert_answer_box(body: str, box: str) -> str:
    """Place the answer box after the section's title and first paragraphs: before its
    first <h2> (its "Setup"), else before its first code cell, else at its end."""
    body, box = str(body), str(box)  # plain text: Markup would escape the other side
    for marker in ("<h2", '<div class="cell code-cell"', "</section>"):
        position = body.find(marker)
        if position >= 0:
            return body[:position] + box + body[position:]
    return body + box
