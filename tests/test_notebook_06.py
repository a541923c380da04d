"""Notebook 06 (open-loop latency) executed for real with the smoke profile's values, the
way JupyterLab runs it: the parameters cell edited by hand, then *Run All* in the
"benchbook" kernel (nbclient), with no papermill and nothing injected."""

import re

import nbformat
import pytest
from conftest import RUNNER_START_S, SMOKE, descendants
from nbclient import NotebookClient

from benchbook.analyse.experiments import capacity, open_loop
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.words.findings_format import FINDINGS_MIME
from benchbook.render.execute import load_profile
from benchbook.render.notebook_parameters import notebook_parameters
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import RUN_MIME, Run

NOTEBOOK = REPO_ROOT / "notebooks" / "06_open_loop.ipynb"
# The targets each capacity headline compares, Go first (the notebook's PAIRS).
PAIRS = [("go-iodelay", "python-iodelay uvloop+httptools"), ("go-hello", "python-hello")]


def typed_in(source: str, values: dict[str, object]) -> str:
    """The parameters cell with each of ``values`` typed over its default, comments kept,
    as a student would edit it."""
    lines = source.splitlines()
    for name, value in values.items():
        pattern = re.compile(rf"^{name} = [^#]*?(  #.*)?$")
        hits = [i for i, line in enumerate(lines) if pattern.match(line)]
        if hits:
            (i,) = hits
            lines[i] = f"{name} = {value!r}{pattern.match(lines[i]).group(1) or ''}"
    return "\n".join(lines)


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict, dict, dict]:
    """Every HTML and Markdown output, the findings, each run's parameters by experiment,
    and each run by experiment."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    (cell,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    cell.source = typed_in(cell.source, load_profile(SMOKE, NOTEBOOK))
    NotebookClient(nb, timeout=RUNNER_START_S, kernel_name="benchbook",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()  # fmt: skip
    nbformat.write(nb, tmp_path_factory.mktemp("executed") / NOTEBOOK.name)  # to look at
    assert not any("injected-parameters" in c.metadata.get("tags", []) for c in nb.cells)
    data = [o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "\n".join(d.get("text/html", "") + d.get("text/markdown", "") for d in data)
    (found,) = [d[FINDINGS_MIME] for d in data if FINDINGS_MIME in d]
    runs = [Run(REPO_ROOT / d[RUN_MIME]["path"]) for d in data if RUN_MIME in d]
    by_experiment = {run.manifest()["experiment"]: run for run in runs}
    params = {experiment: (run.description(), run.plan())
              for experiment, run in by_experiment.items()}  # fmt: skip
    return text, found, params, by_experiment


@pytest.mark.slow
def test_run_all_as_in_jupyterlab_records_the_values_typed_in(executed) -> None:
    _, _, params, runs = executed
    assert set(params) == {"06_open_loop_freeze", "06_open_loop_maxima", "06_open_loop_load"}
    freeze, maxima, load = (params[f"06_open_loop_{p}"] for p in ("freeze", "maxima", "load"))
    # The smoke profile's values (notebooks/profiles/smoke.yaml), not the defaults.
    assert all(plan.warmup_s == 0 for _, plan in (freeze, maxima, load))
    repetitions = tuple(description.repetitions for description, _ in (freeze, maxima, load))
    assert repetitions == (2, 1, 2)
    for _, plan in (freeze, maxima, load):
        assert set(plan.load_values("duration_s")) == {1.0}  # every smoke run: 1 s
    # open_loop_fractions [0.1, 1.2] of each of the four servers' maxima: 8 rates, fewer
    # when two servers' rates round alike (one vegeta setting then serves both)
    maxima = open_loop.closed_loop_maxima(runs["06_open_loop_maxima"].results())
    offered = open_loop.offered_rates(maxima, [0.1, 1.2])
    assert len(maxima) == 4 and all(len(rates) == 2 for rates in offered.values())
    assert sorted(setting["rate"] for setting in load[1].loads) == sorted(
        {rate for rates in offered.values() for rate in rates}
    )


@pytest.mark.slow
def test_the_freeze_server_is_measured_both_ways_and_what_wrk_missed_is_said(executed) -> None:
    text, found, _, _ = executed
    assert descendants() == []
    for source in ("open loop (vegeta)", "wrk as reported (corrected)",
                   "wrk as timed (uncorrected)", "pause model"):  # fmt: skip
        assert source in text, source
    assert "**wrk's p90 as timed (uncorrected) missed" in text and "ms of stall" in text
    assert re.search(r"of wrk's requests (met|could meet) a pause", found["answer"])
    freeze = found["headlines"][0]
    assert freeze["label"] == (
        "Freeze server, p90 latency: what wrk timed (before its correction) vs the open loop"
    )
    assert "**wrk (as timed)** from **vegeta** in p90 latency" in freeze["verdict"]  # 2+2 runs
    assert freeze["ratio"] < 0.1  # what wrk timed at p90: the fast path, not the stall
    # Both tools in one run, so the run-to-run spread has this run's comparison: the
    # headline's, or, where most of a side's runs count for nothing (the hypervisor took a
    # tenth of the CPU while nothing was at its limit), its valid runs' set apart with why.
    (current,) = [run for run in freeze["spread"] if run["current"]]
    if current.get("set_apart"):
        assert "runs" in current["set_apart"]
    else:
        assert current["ratio"] == pytest.approx(freeze["ratio"])
    busy = "busy machine" in freeze["verdict"]  # other work beside the test set a run apart
    assert freeze["article_ratio"] is None and (freeze["n"] == "2+2" or busy)


@pytest.mark.slow
def test_capacities_at_the_slo_are_compared_go_vs_python_for_both_seeds(executed) -> None:
    text, found, _, runs = executed
    assert found["experiment"] == "06_open_loop" and found["source"] is None
    _, iodelay, hello = found["headlines"]
    assert iodelay["label"].startswith(
        "Go net/http with a 1 ms sleep vs FastAPI (uvloop + httptools) with a 1 ms sleep: "
        "requests per second within the SLO"
    )
    assert hello["label"].startswith(
        "Go net/http vs FastAPI (uvicorn's defaults): requests per second within"
    )
    # Each side's capacity per round, at the notebook's SLO. A 1 s smoke round in which a
    # server broke the SLO already at the lowest rate offered gives it no capacity that
    # round (it failed CI once as "1+2"): such a round, and no other, is left out, never
    # counted as zero (tests/test_openloop.py checks that on constructed rounds).
    slo = {name: p.default for name, p in notebook_parameters(NOTEBOOK).items()}
    caps = valid_rows(capacity.capacity_runs(runs["06_open_loop_load"].results(),
                                             slo["slo_factor"], slo["slo_floor_ms"],
                                             slo["slo_ms"]))  # fmt: skip
    assert (caps.loc[caps[capacity.CAPACITY].isna(), "bound"] == "below").all()
    for headline, (go, python) in zip((iodelay, hello), PAIRS, strict=True):
        counts = [caps.loc[caps["target"] == side, capacity.CAPACITY].notna().sum()
                  for side in (go, python)]  # fmt: skip
        # Two rounds are too few to pair: two samples, of the rounds with a capacity.
        assert headline["n"] == f"{counts[0]}+{counts[1]}" and min(counts) >= 1, caps
        assert headline["reproduced"] == "no article figure"
    # The comparison in words, each side's capacity, and the hockey-stick table.
    assert (
        len(re.findall(r"within (its|the) SLO|capacity at (their|the) SLO", found["answer"])) == 2
    )
    assert "(SLO: p99 ≤" in text and "capacity req/s" in text and "met SLO" in text
    # Validity over every run: the smoke profile's runs last 1 s, so each run of each
    # target, in all three experiments, is flagged short_run, and the note counts them all.
    (runs,) = re.findall(r"^- `short_run` — .*? Runs: (.*)\.$", text, re.MULTILINE)
    counted = re.findall(r"(.+?) \((\d+)/(\d+)\)(?:, |$)", runs)
    assert {target for target, _, _ in counted} == {
        "open loop (vegeta)", "wrk as reported (corrected)", "Go net/http with a 1 ms sleep",
        "FastAPI (uvloop + httptools) with a 1 ms sleep", "Go net/http",
        "FastAPI (uvicorn's defaults)",
    }  # fmt: skip
    assert all(flagged == total for _, flagged, total in counted), counted
