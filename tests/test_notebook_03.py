"""Notebook 03 executed for real with the smoke profile."""

import re

import nbformat
import pytest
from conftest import descendants

from benchbook.render.execute import execute_notebook
from benchbook.runs.layout import REPO_ROOT

NOTEBOOK = REPO_ROOT / "notebooks" / "03_goroutine_fanout.ipynb"
SMOKE = REPO_ROOT / "notebooks" / "profiles" / "smoke.yaml"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Every HTML and Markdown output of the executed notebook, concatenated."""
    out = tmp_path_factory.mktemp("executed") / "03_goroutine_fanout.ipynb"
    execute_notebook(NOTEBOOK, out, SMOKE, {})
    nb = nbformat.read(out, as_version=4)
    data = [o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    return "\n".join(d.get("text/html", "") + d.get("text/markdown", "") for d in data)


@pytest.mark.slow
def test_every_path_is_measured_and_compared_per_id_and_pooled(rendered: str) -> None:
    for path in ("/sc/9", "/cc/9", "/sc/5", "/cc/5", "/sc/2", "/cc/2"):
        assert f"Go (gorilla/mux, {path})" in rendered  # the results table's column
    assert "sc/cc" in rendered and "verdict" in rendered and "pooled" in rendered
    assert descendants() == []


@pytest.mark.slow
def test_conclusion_states_the_verdict_its_caveats_and_the_crossover(rendered: str) -> None:
    # The pooled verdict with the runs it counted, whichever way the runs went (served
    # more / no difference / too few), however many runs a busy machine left counting
    # (3 each, 2 and 3, 2+3), or, when a side's runs count in no estimate, why none is given
    # (other work beside the test: a busy machine set a side's rate).
    assert re.search(
        r"\*\*(sc|cc)\*\*[^\n]*?\*\*(cc|sc)\*\*[^\n]*?"
        r"(\d runs? each|\d and \d runs|\d\+\d|cannot be ranked: no run)",
        rendered,
    ) or re.search(r"(sc|cc)'s (rate was set )?by a busy machine", rendered)
    # whether the ids agree, not only the pool (this session's runs: no pooling per id)
    assert "sc/cc per id, this session's runs: 2: " in rendered
    assert "GOMAXPROCS was 1" in rendered
    assert "With connections = 1" in rendered and "With connections = 4" in rendered
    assert "the article's sc/cc ratio was 1.07×" in rendered
    # Validity covers the crossover's runs too
    assert "`short_run`" in rendered and "Go (gorilla/mux, /cc/9?work=3000) (2/2)" in rendered
