"""What a notebook found (findings_format.FINDINGS_MIME), in its own section: the answer box
at its top and, in place of the findings output, a table of its headlines."""

import json
from collections.abc import Mapping, Sequence

from markupsafe import Markup

from benchbook.render.templates import page_environment


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
