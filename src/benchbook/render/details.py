"""Cells a notebook tags `appendix` — long tables, full flame graphs, side measurements: the
report moves them out of the notebook's section into its appendix, in order, and leaves a
line where they stood that links to them. The main body stays short enough to read; the
HTML and the PDF still hold everything. JupyterLab shows every cell in place: only the
report reorders."""

import copy
import html
import itertools
import re

import nbformat

APPENDIX_TAG = "appendix"
MARKDOWN_HEADING = re.compile(r"^(#{1,5})(?=\s)", re.M)


def block_title(cells: list[nbformat.NotebookNode]) -> str:
    """What a moved block is, for the line that links to it: its first markdown paragraph
    (a heading or a sentence introducing a table) up to its first colon or full stop,
    without '#'."""
    for cell in cells:
        if cell.cell_type == "markdown" and cell.source.strip():
            paragraph = " ".join(cell.source.strip().split("\n\n")[0].split())
            return re.split(r":\s|\.\s|:$|\.$", paragraph.lstrip("#").strip())[0].strip()
    return "details"


def details_anchor(section_anchor: str, number: int) -> str:
    """The id of a notebook's n-th moved block in the appendix."""
    return f"{section_anchor}-details-{number}"


def html_cell(html: str) -> nbformat.NotebookNode:
    """A raw cell the report's template copies into the page as it is."""
    return nbformat.v4.new_raw_cell(html, metadata={"raw_mimetype": "text/html"})


def demoted(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A markdown cell with its headings one level lower: in the appendix a notebook's own
    title is the h2 they stand under."""
    if cell.cell_type != "markdown":
        return cell
    moved = copy.deepcopy(cell)
    moved.source = MARKDOWN_HEADING.sub(lambda m: m.group(1) + "#", cell.source)
    return moved


def is_tagged(cell: nbformat.NotebookNode) -> bool:
    """The notebook's author moved this cell to the appendix."""
    return APPENDIX_TAG in cell.get("metadata", {}).get("tags", [])


def split_cells(
    nb: nbformat.NotebookNode, section_anchor: str
) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode | None]:
    """The notebook as its section shows it (each run of tagged cells replaced by a link),
    and the tagged cells as the appendix shows them (None when no cell is tagged)."""
    main_cells: list[nbformat.NotebookNode] = []
    details_cells: list[nbformat.NotebookNode] = []
    moved = 0
    for tagged, run in itertools.groupby(nb.cells, key=is_tagged):
        block = list(run)
        if not tagged:
            main_cells += block
            continue
        anchor = details_anchor(section_anchor, moved)
        moved += 1
        title = html.escape(re.sub(r"[`*]", "", block_title(block)))
        main_cells.append(
            html_cell(
                f'<p class="details-link">In the appendix: <a href="#{anchor}">{title}</a></p>'
            )
        )
        details_cells.append(html_cell(f'<div class="details-block" id="{anchor}"></div>'))
        details_cells += [demoted(cell) for cell in block]
    if not moved:
        return nb, None
    main, details = copy.copy(nb), copy.copy(nb)
    main.cells, details.cells = main_cells, details_cells
    return main, details
