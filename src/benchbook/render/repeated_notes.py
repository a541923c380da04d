"""Notes every notebook prints so that it reads alone in JupyterLab — how runs are measured
and comparisons computed (analyse.words.conclusions.method_note), the load-tool ceilings
(analyse.display.ceilings.ceilings_sentence) — shown once in the report: in full the first time,
with an anchor, and every later identical copy as one line that links back to it. A copy
that differs (another calibration run, say) is news, and stays in full.

A note is a paragraph or list item of a Markdown output that opens with its lead, the
words the analysis writes first; the leads are taken from the analysis itself, so a
rewording there cannot leave the report repeating itself."""

import html as html_text
import re
from dataclasses import dataclass

from markupsafe import Markup

from benchbook.analyse.display.ceilings import ceilings_sentence
from benchbook.analyse.words.conclusions import method_note
from benchbook.render.notebook_html import Section
from benchbook.render.print_tables import TAG
from benchbook.runs.calibration import NOT_CALIBRATED, Ceilings

MARKDOWN_OUTPUT = re.compile(r'(<div class="output output-markdown">)(.*?)(</div>)', re.S)
# A paragraph or list item without another one inside it.
BLOCK = re.compile(r"<(p|li)>((?:(?!<(?:p|li)[\s>]|</(?:p|li)>).)*)</\1>", re.S)


def plain(fragment: str) -> str:
    """The text of an HTML or Markdown fragment, whitespace collapsed."""
    return " ".join(html_text.unescape(TAG.sub("", fragment)).split())


def lead(sentence: str) -> str:
    """The words a note opens with: up to its first ':', '(' or ','."""
    return re.split(r"[:(,]", plain(sentence), maxsplit=1)[0].strip()


@dataclass(frozen=True)
class Note:
    """A note the report shows once: its anchor, the text of the links back to it, and
    the leads it opens with."""

    anchor: str
    label: str
    leads: tuple[str, ...]


NOTES = (
    Note("method-note", "How runs are measured and comparisons computed", (lead(method_note()),)),
    Note(
        "tool-ceilings",
        "Load-tool ceilings on this machine",
        (
            lead(ceilings_sentence(Ceilings(run_id="r", by_setting={"t": 1.0}, server="s"))),
            lead(ceilings_sentence(NOT_CALIBRATED)),
        ),
    ),
)


def link_repeated_notes(sections: list[Section]) -> None:
    """Keep each note's first occurrence in full (given the note's anchor) and turn every
    later identical one into a line linking back to it, in place (in each section and in
    the cells it moved to the appendix)."""
    first: dict[str, tuple[str, str]] = {}  # anchor → (the text shown in full, where)

    def rewrite_block(match: re.Match[str], where: str) -> str:
        tag, inner = match.groups()
        text = plain(inner)
        note = next((n for n in NOTES if text.startswith(n.leads)), None)
        if note is None:
            return match.group(0)
        if note.anchor not in first:
            first[note.anchor] = (text, where)
            return f'<{tag} id="{note.anchor}">{inner}</{tag}>'
        shown, shown_in = first[note.anchor]
        if shown != text:
            return match.group(0)
        return (
            f'<{tag} class="repeated-note"><a href="#{note.anchor}">{note.label}</a>: '
            f"as in {html_text.escape(shown_in)}.</{tag}>"
        )

    def rewrite(fragment: str, where: str) -> Markup:
        def rewrite_output(match: re.Match[str]) -> str:
            start, body, end = match.groups()
            return start + BLOCK.sub(lambda block: rewrite_block(block, where), body) + end

        return Markup(MARKDOWN_OUTPUT.sub(rewrite_output, fragment))

    # The sections first, then the cells they moved to the appendix: a note is shown in
    # full where it is first read.
    for section in sections:
        section.html = rewrite(str(section.html), _where(section))
    for section in sections:
        if section.details is not None:
            section.details = rewrite(str(section.details), _where(section))


def _where(section: Section) -> str:
    """A section as a reader finds it: its title, not its file's name."""
    return f"“{plain(str(section.title)).rstrip(' ¶')}”"
