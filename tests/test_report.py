"""benchbook.report on a notebook executed for real: HTML structure, PDF, and a real browser."""

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
import weasyprint
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from PIL import Image
from pypdf import PdfReader

from benchbook.execute import execute_notebook
from benchbook.report import (
    ReportError,
    build_report,
    flatten,
    mark_wide_tables,
    render_report,
)
from benchbook.results import RUN_MIME

CPU_MODEL = "Testium 9000 @ 3.14GHz"
KERNELSPEC = {"name": "benchbook", "language": "python", "display_name": "benchbook"}
MANIFEST = {
    "run_id": "20250101T000000Z-test-beef",
    "experiment": "00_test",
    "created_utc": "2025-01-01T00:00:00+00:00",
    "params": {"connections": [8, 64], "server_params": {"go-hello": {"delay_ms": 1}}},
    "provenance": {
        "machine": {"cpu_model": CPU_MODEL, "logical_cpus": 2},
        "versions": {"wrk": "wrk 4.1.0"},
        "git": {"commit": "0123456789abcdef", "dirty": False},
        "pinning": {"server_cpus": [0], "load_cpus": [1]},
    },
}


def sample_notebook(path: Path, run_dir: Path) -> Path:
    """What a benchbook notebook shows: narrative, parameters, a figure, tables, a run."""
    bundle = {RUN_MIME: {"run_id": MANIFEST["run_id"], "path": str(run_dir)}, "text/plain": "run"}
    cells = [
        new_markdown_cell("# Experiment one\n\nDoes the report show everything?"),
        new_code_cell("duration_s = 1", metadata={"tags": ["parameters"]}),
        new_markdown_cell("## Results"),
        new_code_cell(
            "%matplotlib inline\n"
            "import matplotlib.pyplot as plt\n"
            "import pandas as pd\n"
            "print('rep 1: 41234.5 req/s')\n"
            "fig, ax = plt.subplots(figsize=(6, 3))\n"
            "ax.bar(['go', 'python'], [41234.5, 4123.25])\n"
            "plt.show()"
        ),
        new_code_cell(
            "pd.DataFrame({'rps': [41234.5, 4123.25], 'p99 ms': [3.1, 40.2]},"
            " index=pd.Index(['go-hello', 'fastapi'], name='server'))"
        ),
        new_code_cell(
            "pd.DataFrame([[12345.678 * (i + 1)] * 30 for i in range(3)],"
            " columns=[f'lat_p{i}_milliseconds' for i in range(30)])"
        ),
        new_code_cell(f"display({bundle!r}, raw=True)"),
    ]
    nb = new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC})
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    run_dir = root / "runs" / MANIFEST["run_id"]
    run_dir.mkdir(parents=True)
    (run_dir / "manifest.json").write_text(json.dumps(MANIFEST))
    notebook = sample_notebook(root / "01_experiment.ipynb", run_dir)
    output = root / "executed" / "01_experiment.ipynb"
    execute_notebook(notebook, output, None, {"duration_s": 3})
    return output


@pytest.fixture(scope="module")
def built(executed: Path) -> tuple[Path, Path]:
    html, pdf = executed.parent.parent / "index.html", executed.parent.parent / "report.pdf"
    build_report([executed], html, pdf)
    return html, pdf


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each <details> fold."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.folds: list[str] = []
        self._open_folds = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "details":
            self._open_folds += 1
            self.folds.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self._open_folds -= 1

    def handle_data(self, data: str) -> None:
        if self._open_folds:
            self.folds[-1] += data


@pytest.mark.slow
def test_contents_link_to_the_notebook_heading_and_its_subheadings(built) -> None:
    page = built[0].read_text()
    nav = re.search(r"<nav.*?</nav>", page, re.S).group(0)
    for heading in ("Experiment one", "Results"):
        anchor = re.search(rf'<h[12] id="([^"]+)">{heading}<', page).group(1)
        assert f'<a href="#{anchor}">{heading}</a>' in nav
    assert '<a href="#provenance">Provenance</a>' in nav
    assert "benchbook — web-server performance, re-run" in page


@pytest.mark.slow
def test_page_is_self_contained_with_embedded_figures(built) -> None:
    elements = Elements(built[0].read_text())
    assert not [attrs for tag, attrs in elements.tags if tag in ("script", "link", "iframe")]
    sources = [attrs["src"] for _, attrs in elements.tags if "src" in attrs]
    assert sources and all(src.startswith("data:") for src in sources)
    assert any(src.startswith("data:image/png;base64,") for src in sources)


@pytest.mark.slow
def test_code_logs_and_parameters_are_folded(built) -> None:
    page = built[0].read_text()
    folds = Elements(page).folds
    summaries = re.findall(r"<summary>(\w+)</summary>", page)
    assert {"code", "log", "parameters"} <= set(summaries)
    assert any("subplots" in fold for fold in folds)
    assert any("41234.5 req/s" in fold for fold in folds)  # stdout is a log
    assert any("duration_s = 3" in fold for fold in folds)  # injected parameters
    unfolded = re.sub(r"<details.*?</details>", "", page, flags=re.S)
    assert "subplots" not in unfolded and "req/s" not in unfolded
    assert "<table" in unfolded  # results stay in view


@pytest.mark.slow
def test_provenance_lists_every_manifest_value(built) -> None:
    page = built[0].read_text()
    appendix = page[page.index('id="provenance"') :]
    for caption in ("run", "params", "provenance"):
        assert f"<caption>{caption}</caption>" in appendix
    for part in ("params", "provenance"):
        for key, value in flatten(MANIFEST[part]):
            assert f'<th scope="row">{key}</th><td>{value}</td>' in appendix
    assert "machine.cpu_model" in appendix and CPU_MODEL in appendix
    assert "8, 64" in appendix  # lists joined
    assert f'href="#run-{MANIFEST["run_id"]}"' in page  # the notebook links to its run


@pytest.mark.slow
def test_pdf_has_pages_and_omits_code(built) -> None:
    pages = PdfReader(built[1]).pages
    text = "".join(page.extract_text() for page in pages)
    assert len(pages) >= 1
    assert "Code and logs are in the HTML version" in text
    assert CPU_MODEL in text
    assert "subplots" not in text


@pytest.mark.slow
def test_nothing_in_the_pdf_is_wider_than_its_page(built) -> None:
    document = weasyprint.HTML(string=built[0].read_text()).render()
    orientations = {page.width > page.height for page in document.pages}
    assert orientations == {False, True}  # the 30-column table got a landscape page
    for number, page in enumerate(document.pages, start=1):
        for box in page._page_box.descendants():
            right = box.border_box_x() + box.border_width()
            assert right <= page.width + 0.5, f"page {number}: {box!r} ends at {right:.0f}"


@pytest.mark.slow
def test_report_renders_in_headless_chromium(built, tmp_path: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium")
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={screenshot}",
            "--window-size=1200,1600",
            built[0].resolve().as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    histogram = Image.open(screenshot).convert("L").histogram()  # pixels per grey level
    ink = sum(histogram[:200]) / sum(histogram)
    assert sum(count > 0 for count in histogram) > 2, "the screenshot is one flat colour"
    assert ink > 0.01, f"blank screenshot: {ink:.2%} of pixels are darker than the page"


def unexecuted_notebook(path: Path, run_path: str) -> Path:
    """A notebook as papermill leaves it, without running a kernel."""
    output = new_output(
        "display_data", data={RUN_MIME: {"run_id": "r1", "path": run_path}, "text/plain": "r1"}
    )
    cell = new_code_cell("show(run)", outputs=[output], execution_count=1)
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Lost run"), cell]), path)
    return path


def test_a_missing_manifest_names_the_notebook_and_path(tmp_path: Path) -> None:
    notebook = unexecuted_notebook(tmp_path / "03_lost.ipynb", str(tmp_path / "gone"))
    with pytest.raises(ReportError) as raised:
        render_report([notebook])
    assert str(notebook) in str(raised.value)
    assert str(tmp_path / "gone" / "manifest.json") in str(raised.value)


def test_outputs_that_need_scripts_fall_back_to_text(tmp_path: Path) -> None:
    output = new_output(
        "display_data",
        data={"application/javascript": "alert(1)", "text/plain": "fallback text"},
    )
    path = tmp_path / "js.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("x", outputs=[output])]), path)
    page = render_report([path])
    assert "fallback text" in page and "alert(1)" not in page and "<script" not in page


@pytest.mark.parametrize(
    "html",
    ['<img src="https://example.org/x.png">', "<img src='figure.png'>", "<script>1</script>"],
)
def test_outputs_that_would_load_anything_are_refused(tmp_path: Path, html: str) -> None:
    path = tmp_path / "remote.ipynb"
    output = new_output("display_data", data={"text/html": html})
    nbformat.write(new_notebook(cells=[new_code_cell("x", outputs=[output])]), path)
    with pytest.raises(ReportError, match="external"):
        render_report([path])


def test_logs_mentioning_src_are_not_mistaken_for_resources(tmp_path: Path) -> None:
    path = tmp_path / "log.ipynb"
    output = new_output("stream", name="stdout", text="src=https://example.org <script>\n")
    nbformat.write(new_notebook(cells=[new_code_cell("x", outputs=[output])]), path)
    assert "src=https://example.org &lt;script&gt;" in render_report([path])


def test_manifests_flatten_to_dotted_keys() -> None:
    assert flatten({"a": {"b": {"c": 1}}, "l": [1, "x"], "n": None, "e": {}}) == [
        ("a.b.c", "1"),
        ("l", "1, x"),
        ("n", "—"),
        ("e", "{}"),
    ]


def test_tables_are_classed_by_width() -> None:
    row = "<tr>" + "<td>1</td>" * 9 + "</tr>"
    html = f'<table class="dataframe">{row}</table><table><tr><td>1</td></tr></table>'
    assert mark_wide_tables(html) == (
        f'<table class="wide dataframe">{row}</table><table><tr><td>1</td></tr></table>'
    )
    spanned = '<table><tr><th colspan="20">h</th></tr></table>'
    assert 'class="wide very-wide"' in mark_wide_tables(spanned)
