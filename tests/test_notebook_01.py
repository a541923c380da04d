"""Notebook 01 executed for real (smoke profile), then rendered into the report."""

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from conftest import descendants
from pypdf import PdfReader

from benchbook.analyse.words.findings_format import FINDINGS_MIME
from benchbook.render.execute import NotebookFailed, execute_notebook
from benchbook.render.report import build_report
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import RUN_MIME

NOTEBOOK = REPO_ROOT / "notebooks" / "01_io_concurrency.ipynb"
SMOKE = REPO_ROOT / "notebooks" / "profiles" / "smoke.yaml"
TARGETS = [
    "go-iodelay",
    "python-iodelay asyncio+h11",
    "python-iodelay uvloop+httptools",
    "rust-iodelay",
]
# The same servers as the results table names them (rows.names: each with its wait).
NAMES = [
    "Go net/http with a 1 ms sleep",
    "FastAPI (asyncio + h11) with a 1 ms sleep",
    "FastAPI (uvloop + httptools) with a 1 ms sleep",
    "Rust hyper (tokio, 1 thread) with a 1 ms sleep",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("executed") / "01_io_concurrency.ipynb"
    # Overrides on top of the profile, as a re-runner would pass them with -p.
    execute_notebook(NOTEBOOK, out, SMOKE, {"connections": 8, "threads": 2})
    return out


def outputs(path: Path) -> list[dict]:
    nb = nbformat.read(path, as_version=4)
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


@pytest.mark.slow
def test_notebook_shows_a_results_table_for_every_server(executed: Path) -> None:
    html = [o["data"]["text/html"] for o in outputs(executed) if "text/html" in o.get("data", {})]
    table = next(h for h in html if "req/s CI" in h)
    for name in NAMES:
        assert name in table
    assert "flags" in table and "short_run" in table  # smoke runs are flagged as short


def run_dirs(executed: Path) -> dict[str, Path]:
    """The runs a notebook recorded, by experiment name."""
    bundles = [o["data"][RUN_MIME] for o in outputs(executed) if RUN_MIME in o.get("data", {})]
    dirs = [Path(bundle["path"]) for bundle in bundles]
    return {json.loads((d / "manifest.json").read_text())["experiment"]: d for d in dirs}


@pytest.mark.slow
def test_overrides_reach_the_measurement(executed: Path) -> None:
    run_dir = run_dirs(executed)["01_io_concurrency"]
    results = pd.read_csv(run_dir / "results.csv")
    assert set(results["connections"]) == {8} and set(results["threads"]) == {2}
    loads = json.loads((run_dir / "manifest.json").read_text())["plan"]["loads"]
    assert [load["connections"] for load in loads] == [8]
    for raw in results["raw_path"]:
        assert "-c8 " in (REPO_ROOT / raw).read_text()  # the command wrk actually ran
    assert descendants() == []


@pytest.mark.slow
def test_sweep_measures_every_connection_count(executed: Path) -> None:
    results = pd.read_csv(run_dirs(executed)["01_io_concurrency_sweep"] / "results.csv")
    assert sorted(set(results["connections"])) == [2, 8]  # the smoke profile's sweep
    assert len(results) == 2 * len(TARGETS)


@pytest.mark.slow
def test_findings_give_the_answer_the_article_and_every_stored_run(executed: Path) -> None:
    (found,) = [
        o["data"][FINDINGS_MIME] for o in outputs(executed) if FINDINGS_MIME in o.get("data", {})
    ]
    assert found["source"]["url"].startswith("https://github.com/dmux/")
    assert "GOMAXPROCS was 1" in found["answer"]
    # The Rust server holds 8 requests for its 1 ms sleep: the requests in flight, not its
    # CPU, set its rate, so it is no ceiling and nothing is placed on it (ceiling_scale)
    rust = (
        "Rust hyper (tokio, 1 thread) with a 1 ms sleep, compiled with no garbage collector, "
        "reached"
    )
    assert rust in found["answer"] and "no ceiling here" in found["answer"]
    assert "the requests in flight (8 at a time" in found["answer"]
    assert " of the ceiling" not in found["answer"]
    for headline in found["headlines"]:
        assert headline["article_ratio"] == pytest.approx(39651.56 / 8082.66)
        if "busy machine" in headline["verdict"]:
            continue  # other work beside the test set a run apart, and the verdict says so
        # 2+2 runs cannot reach p < 0.05, so the verdict must say so rather than guess
        # (two rounds are too few to pair: the runs are compared as two samples).
        assert headline["n"] == "2+2" and headline["ci_level"] == pytest.approx(2 / 3)
        assert headline["reproduced"] == "too few runs"
        (current,) = [run for run in headline["spread"] if run["current"]]
        assert current["ratio"] == pytest.approx(headline["ratio"])


@pytest.mark.slow
def test_report_has_the_experiment_section_an_image_and_a_pdf(executed, tmp_path) -> None:
    html, pdf = tmp_path / "index.html", tmp_path / "report.pdf"
    build_report([executed], html, pdf)
    page = html.read_text()
    assert "Goroutines vs an asyncio event loop" in page
    assert "data:image/svg+xml;base64," in page  # charts as SVG, vector in the PDF too
    assert "<script src=" not in page
    assert len(PdfReader(pdf).pages) >= 1


@pytest.mark.slow
def test_sweep_levels_its_threads_do_not_divide_are_refused_before_any_server(
    tmp_path: Path, runs_dir: Path
) -> None:
    """wrk gives each thread connections ÷ threads, rounded down: -t4 -c10 opens 8. A sweep
    asking for that is refused, naming the levels and the fix, before anything starts."""
    out = tmp_path / "executed" / "01_io_concurrency.ipynb"
    bad = {"sweep_connections": [10, 20, 25], "sweep_threads": 4}
    with pytest.raises(NotebookFailed) as raised:
        execute_notebook(NOTEBOOK, out, SMOKE, bad)
    assert "sweep_connections [10, 25]: not multiples of sweep_threads (4)" in str(raised.value)
    assert "use multiples of 4, or a sweep_threads that divides every level" in str(raised.value)
    assert not runs_dir.exists() or not any(runs_dir.iterdir())
    assert descendants() == []
