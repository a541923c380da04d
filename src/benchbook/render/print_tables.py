"""Tables in print: how wide each would be, and the classes that let print CSS shrink it,
turn its page to landscape, or keep it on one page."""

import html as html_text
import re

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
SMALL_TABLE_ROWS = 15  # a table this short is never split across pages …
# … unless its cells hold this much text: a few rows of long verdicts are half a page, and
# kept whole they leave the page before them half empty.
SMALL_TABLE_CHARS = 1500
TABLE_OPEN = re.compile(r"<table\b([^>]*)>", re.I)
TABLE_ROW = re.compile(r"<tr\b.*?</tr>", re.I | re.S)
CELL = re.compile(r"<(t[hd])\b([^>]*)>(.*?)(?=<t[hd]\b|</tr>)", re.I | re.S)
COLSPAN = re.compile(r'colspan\s*=\s*"?(\d+)', re.I)
ROWSPAN = re.compile(r'rowspan\s*=\s*"?(\d+)', re.I)
TAG = re.compile(r"<[^>]+>")


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
    one page (few rows, little text)."""
    size, landscape = print_fit(table)
    classes = []
    if size < TABLE_FONT_PT[0] or landscape:
        classes += ["wide", f"fit-{round(size * 10)}"]
    if landscape:
        classes.append("very-wide")
        if sum(column_widths_em(table)) * size > LANDSCAPE_WIDTH_PT:
            classes.append("overflows")
    text = html_text.unescape(TAG.sub("", table))
    if len(TABLE_ROW.findall(table)) <= SMALL_TABLE_ROWS and len(text) <= SMALL_TABLE_CHARS:
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
