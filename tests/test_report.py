"""benchbook.render.report on a real executed notebook: HTML structure, PDF, a real browser."""

import copy
import html
import io
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import weasyprint
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from PIL import Image
from pypdf import PdfReader
from weasyprint.formatting_structure import boxes

from benchbook.analyse.findings.headlines import Findings, Headline
from benchbook.analyse.words.findings_format import (
    FINDINGS_MIME,
    ci_text,
    ratio_text,
    ratio_with_ci,
)
from benchbook.render.dotted_rows import flatten
from benchbook.render.execute import execute_notebook
from benchbook.render.print_tables import mark_wide_tables
from benchbook.render.provenance import (
    ReportError,
    RunProvenance,
    manifest_pattern,
    split_provenance,
)
from benchbook.render.repeated_notes import NOTES
from benchbook.render.report import build_report, render_report
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import RUN_MIME

# Its slow tests execute small notebooks, render and open pages: no server, no load.
pytestmark = pytest.mark.no_load

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

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
# A second run of the same notebook: same machine and versions, another time, load and
# load level, so the provenance shows what both share once and what differs per run.
MANIFEST_2 = copy.deepcopy(MANIFEST) | {
    "run_id": "20250101T000100Z-test-f00d",
    "created_utc": "2025-01-01T00:01:00+00:00",
}
MANIFEST_2["params"]["connections"] = [512]
MANIFEST_2["provenance"]["machine"]["load_average_1m_at_start"] = 1.5
MANIFEST["provenance"]["machine"]["load_average_1m_at_start"] = 0.25
HEADLINE = {
    "label": "go vs python, requests per second",
    "verdict": "**go** served **10× the requests per second** of **python** "
    "(ratio 10×, 95 % CI 8.0–12×; medians 41,234 vs 4,123 req/s; p = 0.008; 5 runs each).",
    "brief": "**go** served **10× the requests per second** of **python** (95 % CI 8.0–12×).",
    "ratio": 10.0,
    "ci_low": 8.0,
    "ci_high": 12.4,
    "ci_level": 0.968,
    "n": "5+5",
    "p": 0.008,
    "significant": True,
    "article": "4.9× (39,652 vs 8,083 req/s)",
    "article_ratio": 4.91,
    "reproduced": "reproduced",
    "reproduced_why": "same direction, larger here",
    "spread": [
        {"run_id": MANIFEST_2["run_id"], "date": "2025-01-01 00:01", "machine": "vm (2 CPUs)",
         "ratio": 0.0031, "ci_low": 0.002, "ci_high": 0.0045, "ci_level": 0.9375, "n": "5+5",
         "current": False},
        {"run_id": MANIFEST["run_id"], "date": "2025-01-01 00:00", "machine": "vm (2 CPUs)",
         "ratio": 10.0, "ci_low": 8.0, "ci_high": 12.4, "ci_level": 0.968, "n": "5+5",
         "current": True},
    ],
}  # fmt: skip
FINDINGS = {
    "experiment": "00_test",
    "title": "Experiment one",
    "question": "Does the report show everything?",
    "answer": "It does: **go** is ten times as fast here. ANSWER-TEXT",
    "source": {"title": "An article", "author": None, "url": None},
    "headlines": [HEADLINE],
}
# Results as a run stores them, enough for plots.bars_with_ci.
RESULTS = (
    "pd.DataFrame({'target': ['go-hello'] * 3 + ['python-hello'] * 3,"
    " 'rps': [41000.0, 41500.0, 40900.0, 4100.0, 4150.0, 4090.0], 'flags': [''] * 6,"
    " 'err_connect': 0, 'err_read': 0, 'err_write': 0, 'err_timeout': 0,"
    " 'requests': 100000, 'headroom': 0.5})"
)


def sample_notebook(path: Path, run_dirs: list[Path]) -> Path:
    """What a benchbook notebook shows: narrative, parameters, a PNG and an SVG figure,
    tables, two runs, and its findings in the conclusion."""
    bundles = [
        {RUN_MIME: {"run_id": run_dir.name, "path": str(run_dir)}, "text/plain": "run"}
        for run_dir in run_dirs
    ]
    findings = {FINDINGS_MIME: FINDINGS, "text/markdown": "**Answer.** It does."}
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
            "pd.DataFrame({'runs': [5, 5], 'rps': [41234.5, 4123.25], 'p99 ms': [3.1, 40.2]},"
            " index=pd.Index(['go-hello', 'fastapi'], name='server'))"
        ),
        # As notebook 00's table: a long text column squeezes the short ones; its header
        # "runs" read "ru ns" in print before words were kept whole.
        new_code_cell(
            "pd.DataFrame({'runs': [5] * 3, 'req/s': [29833.7] * 3, 'req/s CI low': [22252.9] * 3,"
            " 'req/s CI high': [37766.4] * 3, 'client CPU %': [63.5] * 3,"
            " 'server CPU %': [94.5] * 3, 'host CPU steal %': [0.7] * 3,"
            " 'limited by': ['load tool'] * 3,"
            " 'flags': ['client_bound 5/5, near_tool_ceiling 4/5, short_run 5/5'] * 3},"
            " index=pd.Index(['wrk', 'locust HttpUser x1', 'locust FastHttpUser x2'],"
            " name='tool_setting'))"
        ),
        new_code_cell(
            "pd.DataFrame([[12345.678 * (i + 1)] * 20 for i in range(3)],"
            " columns=[f'p{i} latency ms' for i in range(20)])"
        ),
        new_code_cell("".join(f"display({bundle!r}, raw=True)\n" for bundle in bundles)),
        new_markdown_cell("## Charts\n\nThe same servers, as the package draws them."),
        new_code_cell(
            "from benchbook.analyse.display import plots\n"
            "plots.use_svg()\n"
            f"results = {RESULTS}\n"
            "plots.bars_with_ci(results, 'rps', 'requests per second (req/s)', 'Throughput')"
        ),
        new_markdown_cell("## Conclusion\n\nGenerated from the measurements above."),
        new_code_cell(f"display({findings!r}, raw=True)"),
    ]
    nb = new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC})
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    run_dirs = []
    for manifest in (MANIFEST, MANIFEST_2):
        run_dir = root / "runs" / manifest["run_id"]
        run_dir.mkdir(parents=True)
        (run_dir / "manifest.json").write_text(json.dumps(manifest))
        run_dirs.append(run_dir)
    notebook = sample_notebook(root / "01_experiment.ipynb", run_dirs)
    output = root / "executed" / "01_experiment.ipynb"
    execute_notebook(notebook, output, None, {"duration_s": 3})
    return output


@pytest.fixture(scope="module")
def built(executed: Path) -> tuple[Path, Path]:
    html, pdf = executed.parent.parent / "index.html", executed.parent.parent / "report.pdf"
    build_report([executed], html, pdf)
    return html, pdf


@pytest.fixture(scope="module")
def laid_out(built: tuple[Path, Path]) -> weasyprint.Document:
    """The built page's PDF pages as WeasyPrint lays them out, once for the tests that
    look at their boxes (they only read them)."""
    return weasyprint.HTML(string=built[0].read_text()).render()


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
    assert '<a href="#provenance">Appendix E. Provenance</a>' in nav
    assert "benchbook — web-server performance, re-run" in page


@pytest.mark.slow
def test_page_is_self_contained_with_embedded_figures(built) -> None:
    elements = Elements(built[0].read_text())
    loading = [a for tag, a in elements.tags if tag in ("link", "iframe") or tag == "script" and a]
    assert not loading  # the session explorer's inline script loads nothing
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
    assert "subplots" not in unfolded and "41234.5 req/s" not in unfolded
    assert "<table" in unfolded  # results stay in view


@pytest.mark.slow
def test_provenance_lists_every_manifest_value_once(built) -> None:
    page = built[0].read_text()
    appendix = page[page.index('id="provenance"') :]
    shared = appendix[
        appendix.index('id="provenance-shared"') : appendix.index('id="provenance-runs"')
    ]
    runs = appendix[appendix.index('id="provenance-runs"') :]
    assert f'<th scope="row">machine.cpu_model</th><td>{CPU_MODEL}</td>' in shared
    assert appendix.count(CPU_MODEL) == 1  # shared by both runs: shown once
    assert "8, 64" in runs and "512" in runs  # lists joined; params.connections differs
    assert "0.25" in runs and "1.5" in runs  # so does the load average
    for manifest in (MANIFEST, MANIFEST_2):
        body = re.search(rf'<tbody class="run" id="run-{manifest["run_id"]}">(.*?)</tbody>',
                         runs, re.S).group(1)  # fmt: skip
        assert manifest["created_utc"] in body
        assert f'href="#run-{manifest["run_id"]}"' in page  # the notebook links to its run


def manifest_run(manifest: dict, notebook: str = "01.ipynb") -> RunProvenance:
    return RunProvenance(
        run_id=manifest["run_id"],
        anchor="run-" + manifest["run_id"],
        notebook=Path(notebook),
        section_anchor="nb",
        manifest_path=Path("runs") / manifest["run_id"] / "manifest.json",
        values=flatten(manifest),
    )


def test_provenance_splits_shared_from_per_run_values_and_loses_none() -> None:
    third = copy.deepcopy(MANIFEST_2) | {"run_id": "r3", "created_utc": "2025-01-02"}
    third["provenance"]["git"]["commit"] = "fedcba9876543210"
    third["servers"] = {"go-hello": {"command": ["hello", "-addr", "127.0.0.1:1"]}}
    runs = [manifest_run(m) for m in (MANIFEST, MANIFEST_2, third)]
    split = split_provenance(runs)
    shared = {(group, key): value for group, rows in split.shared for key, value in rows}
    assert shared[("provenance", "machine.cpu_model")] == CPU_MODEL
    assert ("provenance", "git.commit") not in shared  # differs in the third run
    assert split.columns == ["created (UTC)", "commit", "load average at start"]
    assert [row.cells for row in split.rows] == [
        ["2025-01-01T00:00:00+00:00", "0123456789abcdef", "0.25"],
        ["2025-01-01T00:01:00+00:00", "0123456789abcdef", "1.5"],
        ["2025-01-02", "fedcba9876543210", "1.5"],
    ]
    assert ("servers.go-hello.command", "hello, -addr, 127.0.0.1:1") in split.rows[2].rest
    columns = [
        "created_utc",
        "provenance.git.commit",
        "provenance.machine.load_average_1m_at_start",
    ]
    for run, row in zip(runs, split.rows, strict=True):
        own = dict(row.rest) | dict(zip(columns, row.cells, strict=True)) | {"run_id": run.run_id}
        for key, value in run.values:
            group, _, rest = key.partition(".")
            in_shared = shared.get((group, rest) if rest else ("run", key))
            assert value in (in_shared, own.get(key)), f"{run.run_id}: {key} = {value} is nowhere"
            assert in_shared is None or key not in own, f"{key} is shown twice"


@pytest.mark.slow
def test_pdf_has_pages_and_omits_code(built) -> None:
    pages = PdfReader(built[1]).pages
    text = " ".join(" ".join(page.extract_text() for page in pages).split())
    assert len(pages) >= 1
    assert "Code and logs are in the HTML version" in text
    # Provenance prints one line per run and says where the rest is.
    assert "Printed: one line per run" in text and "20250101T000100Z-test-f00d" in text
    assert CPU_MODEL in text
    assert "subplots" not in text


@pytest.mark.slow
def test_nothing_in_the_pdf_is_wider_than_its_page(laid_out) -> None:
    document = laid_out
    orientations = {page.width > page.height for page in document.pages}
    assert orientations == {False, True}  # the 20-column table got a landscape page
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


def launch_chromium(playwright):
    """Debian's chromium, headless and offline; a missing one fails the test, loudly."""
    if not CHROMIUM.exists():
        pytest.fail(f"Debian's chromium is needed at {CHROMIUM}: apt-get install -y chromium")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


@pytest.mark.slow
def test_in_chromium_the_answer_comes_first_and_every_chart_loads_offline(built) -> None:
    from playwright.sync_api import sync_playwright

    url = built[0].resolve().as_uri()
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page()
            page.on("request", lambda request: requests.append(request.url))
            page.goto(url, wait_until="load")
            order = page.evaluate(
                "() => Array.from(document.body.children, e => e.id || e.tagName.toLowerCase())"
            )
            images = page.evaluate(
                "() => Array.from(document.images, i => [i.alt, i.complete, i.naturalWidth])"
            )
            inline_charts = page.evaluate(
                "() => Array.from(document.querySelectorAll('svg.chart'),"
                " s => s.getBoundingClientRect().width)"
            )
            boxes = page.evaluate(
                """() => Array.from(document.querySelectorAll('section.notebook'), s => {
                    const box = s.querySelector('aside.answer-box');
                    const h2 = s.querySelector('h2');
                    return [!!box, !!h2, !!box && !!h2 &&
                            !!(box.compareDocumentPosition(h2) & Node.DOCUMENT_POSITION_FOLLOWING)];
                })"""
            )
        finally:
            browser.close()
    # the answers, the contents, the experiment; then the appendix
    assert order == [
        "header", "summary", "nav", "main", "glossary", "appendix-headlines", "spread",
        "provenance",
    ], order  # fmt: skip
    assert len(images) >= 2  # the PNG and the SVG chart
    assert all(complete and width > 0 for _, complete, width in images), images
    assert inline_charts and all(width > 0 for width in inline_charts)  # the spread's dot plot
    assert requests and requests[0] == url
    assert [r for r in requests if r != url and not r.startswith("data:")] == [], requests
    assert boxes == [[True, True, True]]  # the answer box, before the first h2


def pdf_figures(reader: PdfReader) -> list[str]:
    """Alt texts of the figures in a tagged PDF's structure tree, in document order."""
    found: list[str] = []

    def walk(node) -> None:
        node = node.get_object()
        if isinstance(node, list):
            for child in node:
                walk(child)
        elif isinstance(node, dict):
            if node.get("/S") == "/Figure":
                found.append(str(node.get("/Alt", "")))
            if "/K" in node:
                walk(node["/K"])

    walk(reader.trailer["/Root"]["/StructTreeRoot"])
    return found


@pytest.mark.slow
def test_pdf_is_short_and_holds_every_chart(built) -> None:
    """Charts are counted in the PDF's structure tree: SVG becomes vector drawing, not an
    image object, but every <img> and <svg> becomes a tagged Figure (with its alt text)."""
    page = built[0].read_text()
    reader = PdfReader(built[1])
    alts = re.findall(r'<img alt="([^"]*)"', page)
    inline_svgs = re.findall(r"<svg\b", page)
    figures = pdf_figures(reader)
    assert len(figures) == len(alts) + len(inline_svgs)
    assert [f for f in figures if f] == [html.unescape(alt) for alt in alts]
    assert all(alt.startswith("chart under") for alt in alts)
    # title + findings, contents and notebook, landscape table; the appendix: glossary
    # (four pages since it defines each limit that can set a rate and the statistics the
    # sessions pages use), every headline, spread with the coverage tables of the interval
    # rule, provenance — each part of it on a page of its own
    assert len(reader.pages) <= 12, len(reader.pages)


class HeaderWords(HTMLParser):
    """The words of every table header cell (th) of a page; a line may break after a
    hyphen or a slash, so they separate words."""

    def __init__(self, html: str):
        super().__init__()
        self.words: set[str] = set()
        self._depth = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._depth += tag == "th"

    def handle_endtag(self, tag: str) -> None:
        self._depth -= tag == "th" and self._depth > 0

    def handle_data(self, data: str) -> None:
        if self._depth:
            self.words |= {w for w in re.findall(r"[\w.+]+", data) if len(w) >= 3}


@pytest.mark.slow
def test_no_table_header_breaks_a_word_in_the_pdf(built) -> None:
    """A word broken across lines shows in the PDF's text as one line ending with its
    start and the next beginning with its end ("ru" / "ns"; a cell's second line can
    share its text line with the next cell's first: "run" / "s req/s")."""
    page = built[0].read_text()
    words = HeaderWords(page[page.index("<main>") :]).words
    assert {"runs", "latency", "verdict", "reproduced"} <= words
    text = "\n".join(p.extract_text() for p in PdfReader(built[1]).pages)
    lines = [line.split() for line in text.splitlines() if line.split()]
    broken = [
        f"{end[-1]} / {start[0]}"
        for end, start in zip(lines, lines[1:], strict=False)
        if end[-1].rstrip("-") + start[0] in words
    ]
    assert not broken, broken


@pytest.mark.slow
def test_no_heading_ends_a_page(laid_out) -> None:
    document = laid_out
    blocks = {"h1", "h2", "h3", "h4", "p", "li", "tr", "img", "svg", "pre", "aside", "caption",
              "dt", "dd"}  # fmt: skip
    for number, page in enumerate(document.pages, start=1):
        last = [
            box.element.tag
            for box in page._page_box.descendants()
            if box.element is not None and box.element.tag in blocks
        ]
        assert last and last[-1] not in {"h1", "h2", "h3", "h4"}, f"page {number} ends: {last}"


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


def test_the_manifest_folder_is_named_relative_to_the_repository() -> None:
    ids = ("20250101T000000Z-a-0001", "20250101T000100Z-b-0002")
    runs = [SimpleNamespace(run_id=i, manifest_path=REPO_ROOT / "data/runs" / i / "manifest.json")
            for i in ids]  # fmt: skip
    assert manifest_pattern(runs) == "data/runs/<run id>/manifest.json"  # not this clone's path
    elsewhere = [SimpleNamespace(run_id="r", manifest_path=Path("/srv/runs/r/manifest.json"))]
    assert manifest_pattern(elsewhere) == "/srv/runs/<run id>/manifest.json"


def test_manifests_flatten_to_dotted_keys() -> None:
    assert flatten({"a": {"b": {"c": 1}}, "l": [1, "x"], "n": None, "e": {}}) == [
        ("a.b.c", "1"),
        ("l", "1, x"),
        ("n", "—"),
        ("e", "{}"),
    ]


def test_tables_are_classed_by_the_width_they_need_in_print() -> None:
    def table(columns: int, header: str, value: str, rows: int = 1) -> str:
        head = "<tr>" + f"<th>{header}</th>" * columns + "</tr>"
        body = ("<tr>" + f"<td>{value}</td>" * columns + "</tr>") * rows
        return f'<table class="dataframe">{head}{body}</table>'

    assert mark_wide_tables(table(9, "runs", "1")) == table(9, "runs", "1").replace(
        'class="dataframe"', 'class="unsplit dataframe"'
    )  # fits at the normal size, short: kept on one page
    smaller = mark_wide_tables(table(12, "req/s CI high", "1,234,567.89"))
    assert re.search(r'class="wide fit-(5[05]|6[05]|70) unsplit dataframe"', smaller)
    very = mark_wide_tables(table(20, "p99 latency ms", "12,345.678", rows=20))
    assert re.search(r'class="wide fit-\d+ very-wide dataframe"', very)  # landscape; may split
    assert "overflows" in mark_wide_tables(table(40, "latency_percentile_ms", "12,345.678"))
    spanned = (
        '<table><tr><th colspan="20">h</th></tr><tr><th rowspan="2">a</th><td>1</td></tr></table>'
    )
    assert mark_wide_tables(spanned) == spanned.replace("<table>", '<table class="unsplit">')
    # three rows, but of long verdicts: half a page, split rather than moved whole
    verdicts = mark_wide_tables(table(3, "verdict", "the article's figure lies outside " * 20, 3))
    assert "unsplit" not in verdicts


def test_ratios_have_two_significant_digits_and_intervals_their_level() -> None:
    assert [ratio_text(r) for r in (14.3, 0.0031, 0.00312, 143.0, None)] == [
        "14×", "0.0031×", "0.0031×", "143×", "—",
    ]  # fmt: skip
    assert ratio_text(0.0000412) == "0.000041×"  # never "0.00×"
    assert ci_text(11.0, 20.6, 0.968) == "CI 11–21×"  # reaches 95 %: no level printed
    assert ci_text(11.0, 20.6, 0.9375) == "93.8\u00a0% CI 11–21×"  # the level reached
    assert ci_text(None, None, 0.0) == "no CI"
    assert ratio_with_ci(14.3, 11.0, 20.6, 0.9375) == "14× (93.8\u00a0% CI 11–21×)"
    assert ratio_with_ci(None, None, None, None) == "no comparison"


def findings_notebook(path: Path, findings: dict | None) -> Path:
    """An executed-looking notebook, with or without a findings output in its conclusion."""
    cells = [
        new_markdown_cell("# Old experiment\n\nIts question."),
        new_markdown_cell("## Setup\n\nHow it ran."),
        new_markdown_cell("## Conclusion"),
    ]
    if findings is not None:
        output = new_output(
            "display_data", data={FINDINGS_MIME: findings, "text/markdown": "**Answer.**"}
        )
        cells.append(new_code_cell("findings", outputs=[output], execution_count=1))
    nbformat.write(new_notebook(cells=cells), path)
    return path


def test_the_explorer_lists_every_stored_session_linked_and_only_on_screen(
    tmp_path: Path,
) -> None:
    findings = json.loads(json.dumps(FINDINGS))
    runs = findings["headlines"][0]["spread"]
    page = render_report([findings_notebook(tmp_path / "new.ipynb", findings)])
    explorer = page[
        page.index('id="explorer"') : page.index("</section>", page.index('id="explorer"'))
    ]
    table = explorer[explorer.index("<tbody>") : explorer.index("</tbody>")]
    assert table.count("<tr>") == len(runs) > 1
    for run in runs:
        assert f'href="../data/runs/{run["run_id"]}/manifest.json"' in table
        assert f'href="../data/runs/{run["run_id"]}/raw/"' in table
    assert f"stored sessions ({len(runs)} rows, one per headline and session" in explorer
    assert "<script>" in explorer
    assert page.count("<script") == 1
    css = page[page.index("<style") : page.index("</style>")]
    assert re.search(r"@media print \{\s*div\.explorer \{ display: none; \}", css)


def test_a_report_without_findings_has_no_summary_and_no_answer_box(tmp_path: Path) -> None:
    page = render_report([findings_notebook(tmp_path / "old.ipynb", None)])
    assert 'id="summary"' not in page and 'id="spread"' not in page
    assert "<aside" not in page and "Old experiment" in page


def test_findings_make_the_summary_an_answer_box_and_a_headline_table(tmp_path: Path) -> None:
    findings = json.loads(json.dumps(FINDINGS))  # as nbformat stores it
    page = render_report([findings_notebook(tmp_path / "new.ipynb", findings)])
    summary = page[page.index('id="summary"') : page.index('<nav class="toc"')]
    assert "Does the report show everything?" in summary and "An article" not in summary
    assert "ANSWER-TEXT" in summary  # the answer, where no plain answer was published
    assert 'href="#new-Old-experiment"' in summary  # the question links to its section
    headlines = page[page.index('id="appendix-headlines"') : page.index('id="spread"')]
    # the brief carries the ratio and its interval, so the cell states them once
    assert headlines.count("8.0–12×") == 1 and "n&nbsp;=&nbsp;5+5" in headlines
    spread = page[page.index('id="spread"') : page.index('id="explorer"')]
    runs = re.sub(r'<table class="(coverage|held-out)-table">.*?</table>', "", spread, flags=re.S)
    assert 'class="held-out-table"' in spread  # the rule checked, a row per machine class
    assert runs.count("<tr") == 3 and "93.8 %" in spread and "0.0031×" in spread
    # the rule's simulation: shared spreads, the old rule, spreads per headline, machines
    assert spread.count('<table class="coverage-table">') == 4
    assert re.search(r'<svg class="chart spread-plot" role="img"', spread)
    section = page[page.index('<section class="notebook"') : page.index("</main>")]
    assert section.count("ANSWER-TEXT") == 1  # one answer box: the output shows headlines only
    assert section.index("answer-box") < section.index("<h2") < section.index("findings-table")
    table = section[section.index("findings-table") :]
    assert "ANSWER-TEXT" not in table and "medians 41,234 vs 4,123 req/s" in table


def test_the_summary_gives_a_reason_only_where_the_badge_and_answer_do_not(
    tmp_path: Path,
) -> None:
    no_figure = HEADLINE | {
        "reproduced": "no article figure",
        "article": "",
        "reproduced_why": "the article gives no ratio of these two to compare",
    }
    too_few = HEADLINE | {
        "reproduced": "too few runs",
        "reproduced_why": "2+2 runs cannot show any difference",
    }
    findings = FINDINGS | {"headlines": [HEADLINE, no_figure, too_few]}
    page = render_report([findings_notebook(tmp_path / "three.ipynb", findings)])
    summary = page[page.index('id="appendix-headlines"') : page.index('id="spread"')]
    # One full-width row for the experiment, one row per headline, no cell spanning rows.
    assert summary.count('class="summary-experiment"') == 1 and "rowspan" not in summary
    assert summary.count('class="summary-headline"') == 3
    assert "same direction, larger here" in summary  # why "reproduced" with 10× vs 4.9×
    assert "gives no ratio" not in summary and "cannot show" not in summary
    table = page[page.index("findings-table") :]  # the notebook's own table keeps them all
    assert "gives no ratio" in table and "cannot show" in table


def test_eight_experiments_chart_fits_the_first_page_and_their_answers_the_second(
    tmp_path: Path,
) -> None:
    """The size of the real report: 8 notebooks, 18 headlines, each experiment's first
    with an article figure and the longest label, the others without one. Page 1 holds the
    chart of every answer (its group titles are its own there); the eight questions and
    their plain answers follow it, in order, by the end of page 2 (an answer breaks only
    between answers, so one may end page 1 under the chart)."""
    long = HEADLINE | {
        "label": "go-iodelay vs python-iodelay uvloop+httptools: requests per second "
        "within the SLO (go-iodelay: only a lower bound)",
        "brief": "**go-iodelay** served **3.5× the requests per second within the SLO** of "
        "**python-iodelay uvloop+httptools** (ratio 3.5×, 95 % CI 1.72–5.74×).",
        "reproduced_why": "same direction as the article's 4.9×, larger here",
    }
    short = HEADLINE | {"label": "wrk vs locust HttpUser x1: requests per second",
                        "article": "", "reproduced": "no article figure"}  # fmt: skip
    notebooks = []
    for number, count in enumerate([2, 2, 2, 2, 2, 3, 3, 2]):
        headlines = [long] + [short] * (count - 1)
        findings = FINDINGS | {
            "title": f"Experiment {number}: a title as long as the real ones get",
            "question": "How many requests per second can wrk and Locust produce here?",
            "plain": f"PLAIN-{number}: wrk, by far: it reached at least 15× Locust's rate and at "
                     "least 3.3× FastHttpUser's against the same server.",
            "headlines": [h | {"label": f"LAST-{number}-{i} {h['label']}"}
                          for i, h in enumerate(headlines)],
        }  # fmt: skip
        notebooks.append(findings_notebook(tmp_path / f"{number:02d}.ipynb", findings))
    pdf = tmp_path / "report.pdf"
    build_report(notebooks, tmp_path / "index.html", pdf)
    first, second = (" ".join(page.extract_text().split()) for page in PdfReader(pdf).pages[:2])
    for number in range(8):
        assert f"Experiment {number}: a title" in first, number  # the chart's group rows
    assert re.findall(r"LAST-\d-\d", first)[-1] == "LAST-7-1"  # … and its last row
    found = re.findall(r"PLAIN-\d", f"{first} {second}")  # then notebook 0's answer box
    assert found[:8] == [f"PLAIN-{n}" for n in range(8)]  # the answers, none pushed further


def test_findings_with_only_a_label_and_a_verdict_still_render(tmp_path: Path) -> None:
    minimal = {"answer": "Short.", "headlines": [{"label": "a vs b", "verdict": "**a** won."}]}
    page = render_report([findings_notebook(tmp_path / "minimal.ipynb", minimal)])
    summary = page[page.index('id="summary"') : page.index('id="spread"')]
    assert "<strong>a</strong> won." in summary and "no comparison" in summary
    assert "No stored run has this comparison." in page


def test_a_string_findings_output_is_read_as_json(tmp_path: Path) -> None:
    page = render_report([findings_notebook(tmp_path / "text.ipynb", json.dumps(FINDINGS))])
    assert '<aside class="answer-box"' in page and "ANSWER-TEXT" in page


def test_findings_store_a_missing_interval_as_null_not_nan() -> None:
    # one run a side: a ratio but no interval
    one_each = Headline(
        label="a vs b",
        verdict="v",
        brief="b",
        ratio=2.0,
        ci_low=float("nan"),
        ci_high=float("nan"),
        ci_level=0.0,
        n="1+1",
        p=1.0,
        significant=False,
        article="",
        article_ratio=None,
        reproduced="",
        reproduced_why="",
        spread=[{"date": "d", "ratio": 2.0, "ci_low": float("nan")}],
    )
    stored = Findings("e", "t", "q", "a", [one_each]).as_json()
    text = json.dumps(stored, allow_nan=False)  # strict JSON, as nbformat validates it
    assert stored["headlines"][0]["ci_low"] is None and '"ci_low": null' in text
    assert stored["headlines"][0]["spread"][0]["ci_low"] is None


# The committed report's notebooks: what `make report` last rendered, re-rendered here with
# this code (no measuring, no notebook executed: not `slow`, though about half a minute,
# most of it WeasyPrint's layout).
COMMITTED = sorted((REPO_ROOT / "report" / "executed").glob("*.ipynb"))
HEADINGS = {"h1", "h2", "h3", "h4"}
BLOCKS = HEADINGS | {"p", "li", "tr", "img", "svg", "pre", "figure", "caption", "aside", "dt", "dd"}


@pytest.fixture(scope="module")
def committed_page() -> str:
    """The real report's page, rendered by this code from the committed notebooks."""
    if len(COMMITTED) < 2:
        pytest.fail(f"the committed executed notebooks are missing: {REPO_ROOT / 'report'}")
    return render_report(COMMITTED)


@pytest.fixture(scope="module")
def committed_layout(committed_page: str) -> weasyprint.Document:
    """The real report's PDF pages as WeasyPrint lays them out (write_pdf writes exactly
    these): most of the half minute these tests take."""
    return weasyprint.HTML(string=committed_page, base_url=str(REPO_ROOT / "report")).render()


# The call a notebook prints each note with: every notebook that makes it links back to
# the one place the report shows it in full.
PRINTED_BY = {"method-note": "method_note()", "tool-ceilings": "ceilings_sentence("}


def test_notes_every_notebook_repeats_are_shown_once_and_linked_to(committed_page: str) -> None:
    """How runs are measured and comparisons computed, and the load-tool ceilings: each
    notebook prints them (it must read alone), the report once, then links back."""
    page = committed_page
    assert page.count("How comparisons are computed") == 1
    assert len(re.findall(r"<th\b[^>]*>limited by</th>", page)) == 1  # notebook 00's ceilings
    for note in NOTES:
        full = re.findall(rf'<(?:p|li) id="{note.anchor}">(.*?)</(?:p|li)>', page, re.S)
        assert len(full) == 1, f"{note.anchor}: {len(full)} in full"
        assert page.count(full[0][:120]) == 1, f"{note.anchor} is repeated in full"
        links = re.findall(rf'class="repeated-note"><a href="#{note.anchor}">', page)
        printing = [nb for nb in COMMITTED if PRINTED_BY[note.anchor] in nb.read_text()]
        assert len(links) == len(printing) - 1, f"{note.anchor}: {len(links)} links back"


def page_layout(page) -> tuple[float, list[str]]:
    """How far down its content area a laid-out page is filled (0–1), and the tags of
    its block-level boxes in order (the page's footer, a margin box, left out)."""
    root = page._page_box.children[0]
    top, height = page._page_box.content_box_y(), page._page_box.height
    lowest, tags = top, []
    for box in root.descendants():
        if isinstance(box, boxes.LineBox | boxes.ReplacedBox) or box.element_tag == "svg":
            lowest = max(lowest, box.position_y + box.margin_height())
        if box.element is not None and box.element_tag in BLOCKS:
            tags.append(box.element_tag)
    return (lowest - top) / height, tags


# Heavy, but starts nothing: make test runs it in parallel, make test-fast leaves it out.
@pytest.mark.slow
@pytest.mark.no_load
def test_no_pdf_page_is_half_empty_or_ends_with_a_heading(
    committed_layout: weasyprint.Document,
) -> None:
    """A page may be left half empty only before a new part of the report (a page
    beginning with an h1: the findings, each experiment, the provenance) or at its end;
    a heading never ends a page."""
    layouts = [page_layout(page) for page in committed_layout.pages]
    half_empty, headed = [], []
    for number, ((fill, tags), following) in enumerate(
        zip(layouts, layouts[1:] + [(1.0, ["h1"])], strict=True), start=1
    ):
        if fill < 0.5 and following[1][:1] != ["h1"]:
            half_empty.append(f"page {number}: {fill:.0%} full, then {following[1][:3]}")
        if tags and tags[-1] in HEADINGS:
            headed.append(f"page {number} ends with an {tags[-1]}")
    assert not half_empty, half_empty
    assert not headed, headed


def committed_findings() -> list[dict]:
    """Every findings output of the committed executed notebooks."""
    found = []
    for path in COMMITTED:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                if FINDINGS_MIME in output.get("data", {}):
                    found.append(dict(output["data"][FINDINGS_MIME]))
    return found


@pytest.mark.slow
def test_the_real_reports_page_1_in_chromium_is_the_chart_of_every_answer(
    committed_page: str, tmp_path: Path
) -> None:
    """Opened as a reader opens it: the first thing under the title is one chart with a
    row for every headline, above the report's first table."""
    from playwright.sync_api import sync_playwright

    index = tmp_path / "index.html"
    index.write_text(committed_page, encoding="utf-8")
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1600})
            page.goto(index.as_uri(), wait_until="load")
            seen = page.evaluate(
                """() => {
                    const chart = document.querySelector('#summary svg.answer-plot');
                    const table = document.querySelector('table');
                    const top = e => e.getBoundingClientRect().top + window.scrollY;
                    return chart && {
                        titles: Array.from(chart.querySelectorAll('title'), t => t.textContent),
                        chart: [top(chart), chart.getBoundingClientRect().height],
                        table: top(table),
                        answers: document.querySelectorAll('#summary ol.answers > li').length,
                    };
                }"""
            )
        finally:
            browser.close()
    findings = committed_findings()
    labels = [h["label"] for f in findings for h in f["headlines"]]
    assert seen, "no answer chart on page 1"
    assert sorted(seen["titles"]) == sorted(labels)  # a row for every headline, no other
    chart_top, chart_height = seen["chart"]
    assert chart_height > 300 and chart_top + chart_height < seen["table"]
    assert seen["answers"] == len(findings)  # one plain answer per question


# Heavy, but starts nothing: make test runs it in parallel, make test-fast leaves it out.
@pytest.mark.slow
@pytest.mark.no_load
def test_the_real_pdf_opens_with_the_chart_and_its_main_body_is_short(
    committed_layout: weasyprint.Document,
) -> None:
    """Page 1 of the PDF is the chart (each experiment's title, which groups its rows) with
    no validity flag's name on it; the main body — everything before the appendix (its
    first part, the glossary) — fits in 51 pages (45 until every verdict also stated the
    next session's interval and the other machine classes' sessions)."""
    from benchbook.analyse.words import glossary

    document = committed_layout
    first = " ".join(
        PdfReader(io.BytesIO(document.copy(document.pages[:1]).write_pdf()))
        .pages[0]
        .extract_text()
        .split()
    )
    for findings in committed_findings():
        assert " ".join(findings["title"].split()) in first, findings["title"]
    flags = [flag for flag, _ in glossary.flags()]
    assert [flag for flag in flags if flag in first] == []
    appendix = next(
        number
        for number, page in enumerate(document.pages, start=1)
        for box in page._page_box.descendants()
        if box.element is not None
        and box.element_tag == "section"
        and "appendix" in (box.element.get("class") or "").split()
    )
    # 47 until the Rust ceiling joined notebooks 01 and 02 (a row in each of their tables,
    # a sentence in each answer): 48; 49 once the 2026-12-02 sessions made notebook 04's
    # section run six lines into a seventh page; 50 once the 1 ms sleep servers said so in
    # their names and the answers their conditions (the read-through of 2026-12-02); 51 with
    # the report rendered after the second family-25 sitting of 2026-12-06, whose answers
    # run into a 51st page (the shorter Little's-law caution did not win it back); 52 once
    # every pooled figure printed the next session's range beside its CI and one session's
    # figures said so in place (the read-throughs of 2026-12-07); 53 with a class's first
    # session (AMD family 25 model 1, 2026-12-07), every headline saying it rests on one
    # session and where its range comes from, and notebook 07's busy runs why they were.
    assert appendix - 1 <= 53, f"the main body has {appendix - 1} pages"


def test_every_link_of_the_committed_report_into_data_runs_resolves() -> None:
    """The explorer's links (manifests, and raw/ or the run's outputs.tar.xz once packed)
    reach files of the repository: packing a run after rendering would break them."""
    page = (REPO_ROOT / "report" / "index.html").read_text()
    links = set(re.findall(r'href="(\.\./data/runs/[^"]+)"', page))
    assert len(links) > 100
    missing = [link for link in links if not (REPO_ROOT / "report" / link).exists()]
    assert not missing, f"{len(missing)} of {len(links)} links reach nothing, e.g. {missing[:3]}"


def test_a_pooled_headline_prints_how_far_its_sessions_differ(tmp_path: Path) -> None:
    """τ, the Paule–Mandel spread between sessions, is printed where the pooled estimate
    is described (the sessions appendix)."""
    findings = json.loads(json.dumps(FINDINGS))
    findings["headlines"][0] |= {
        "sessions": 4, "pooled_ratio": 9.0, "pooled_low": 6.6, "pooled_high": 12.0,
        "pooled_tau": 0.0312, "predict_low": 5.8, "predict_high": 14.0,
    }  # fmt: skip
    page = render_report([findings_notebook(tmp_path / "new.ipynb", findings)])
    spread = page[page.index('id="spread"') : page.index('id="explorer"')]
    assert "these sessions differ by τ&nbsp;=&nbsp;0.031 on the log scale (about ±3.2&nbsp;%" in (
        spread
    )
