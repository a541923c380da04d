"""Where a rendered PDF puts its text: how far right each piece of a page's text starts, so
a table that runs off the page is measured, not guessed (render.audit reads it).

A tokenizer instead of pypdf's parser: the charts make the content streams large, and this
reads a hundred pages in seconds. It follows the text matrix (BT, Tm, Td) through the
graphics state's transform (q, Q, cm)."""

import re
from pathlib import Path

from pypdf import PdfReader

# The report's page margin (report.css: @page { margin: 13mm … }), in points.
MARGIN_PT = 13 / 25.4 * 72

# The tokens of a content stream that place text: strings, arrays and names are skipped,
# numbers are operands, the rest operators.
TOKEN = re.compile(
    rb"\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>|[\[\]]|/[^\s/\[\]()<>]+|[-+]?(?:\d+\.?\d*|\.\d+)"
    rb"|[A-Za-z'\"*]+"
)
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1, 0, 0, 1, 0, 0)


def times(a: Matrix, b: Matrix) -> Matrix:
    return (
        a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5],
    )  # fmt: skip


def text_starts(content: bytes) -> list[float]:
    """Where on the page (x, in points) each piece of a page's own text starts."""
    transform, saved, line = IDENTITY, [], IDENTITY
    operands: list[float] = []
    starts: list[float] = []
    for match in TOKEN.finditer(content):
        token = match[0]
        if token[:1] in b"0123456789-+.":
            operands.append(float(token))
            continue
        if token[:1] in b"(<[]/":
            continue
        if token == b"q":
            saved.append(transform)
        elif token == b"Q":
            transform = saved.pop() if saved else IDENTITY
        elif token == b"cm" and len(operands) >= 6:
            transform = times(tuple(operands[-6:]), transform)  # type: ignore[arg-type]
        elif token == b"BT":
            line = IDENTITY
        elif token == b"Tm" and len(operands) >= 6:
            line = tuple(operands[-6:])  # type: ignore[assignment]
        elif token in (b"Td", b"TD") and len(operands) >= 2:
            line = times((1, 0, 0, 1, operands[-2], operands[-1]), line)
        elif token in (b"Tj", b"TJ", b"'", b'"'):
            starts.append(times(line, transform)[4])
        operands = []
    return starts


def pages_past_the_margin(path: Path) -> dict[int, int]:
    """Page number → the farthest right a piece of text starts, for the pages where some
    text starts beyond the right margin."""
    past = {}
    for number, page in enumerate(PdfReader(path).pages, 1):
        edge = float(page.mediabox.width) - MARGIN_PT
        starts = text_starts(page.get_contents().get_data())
        if starts and max(starts) > edge + 1:
            past[number] = round(max(starts))
    return past
