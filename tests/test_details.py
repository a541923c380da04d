"""Cells a notebook tags `appendix` leave its section for the report's appendix, in order,
with a link left where they stood; a notebook without the tag renders as before."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from benchbook.render.details import split_cells
from benchbook.render.report import render_report


def tagged(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    cell.metadata["tags"] = ["appendix"]
    return cell


def notebook() -> nbformat.NotebookNode:
    return new_notebook(
        cells=[
            new_markdown_cell("# Title\n\nQuestion."),
            tagged(new_markdown_cell("## The `full` table:\n\nEvery row.")),
            tagged(new_code_cell("table")),
            new_markdown_cell("## Conclusion"),
            tagged(new_markdown_cell("Flame graphs: one per server,\nand their cost. More.")),
            new_markdown_cell("## Limitations"),
        ]
    )


def test_each_run_of_tagged_cells_becomes_one_link_and_one_block() -> None:
    main, details = split_cells(notebook(), "nb-x")
    assert [c.cell_type for c in main.cells] == ["markdown", "raw", "markdown", "raw", "markdown"]
    assert main.cells[1].source == (
        '<p class="details-link">In the appendix: <a href="#nb-x-details-0">The full table</a></p>'
    )
    assert 'href="#nb-x-details-1">Flame graphs</a>' in main.cells[3].source
    assert details is not None
    sources = [c.source for c in details.cells]
    assert sources == [
        '<div class="details-block" id="nb-x-details-0"></div>',
        "### The `full` table:\n\nEvery row.",  # one level down: under the notebook's h2
        "table",
        '<div class="details-block" id="nb-x-details-1"></div>',
        "Flame graphs: one per server,\nand their cost. More.",
    ]
    assert all(c.metadata["raw_mimetype"] == "text/html" for c in details.cells[::3])


def test_a_notebook_without_the_tag_is_left_as_it_is() -> None:
    nb = new_notebook(cells=[new_markdown_cell("# Title"), new_code_cell("1")])
    main, details = split_cells(nb, "nb-x")
    assert main is nb and details is None


def test_the_report_puts_moved_cells_in_its_appendix_and_links_them(tmp_path: Path) -> None:
    path = tmp_path / "01_moved.ipynb"
    nbformat.write(notebook(), path)
    page = render_report([path])
    section = page[page.index('<section class="notebook"') : page.index("</main>")]
    appendix = page[page.index('id="appendix-details"') : page.index('id="provenance"')]
    assert "Every row." not in section and "Every row." in appendix
    assert 'href="#nb-01_moved-details-0"' in section
    assert 'id="nb-01_moved-details-0"' in appendix
    assert (
        "<h3" in appendix and '<a href="#01_moved-Title">Title</a>' in appendix
    )  # back to its section
