import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import nbformat
import psutil
import pytest

from benchbook.analyse.words.findings_format import FINDINGS_MIME
from benchbook.measure.hosts import namespaces
from benchbook.measure.processes import watchdog_pid
from benchbook.measure.registry import Registry
from benchbook.render.execute import execute_notebook
from benchbook.runs.layout import REPO_ROOT

SAMPLES = Path(__file__).parent / "samples"


@pytest.fixture(scope="session", autouse=True)
def _runs_outside_the_repository(tmp_path_factory: pytest.TempPathFactory):
    """No test writes to the repository's data/runs/, which holds only real report runs.

    Session-wide, so module-scoped fixtures are covered too; the environment variable
    reaches notebook kernels started by papermill. The machine-speed reference (seconds
    of fixed workloads before and after each experiment) is off here, where it would
    add minutes over the suite's many tiny runs; tests/test_rounds.py turns it on. So is
    the profiled phase after each experiment (seconds per server under a profiler), which
    tests/test_profiles.py turns on. The machine check before each experiment is shortened.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCHBOOK_RUNS_DIR", str(tmp_path_factory.mktemp("runs")))
        patch.setenv("BENCHBOOK_SPEED_REFERENCE", "0")
        patch.setenv("BENCHBOOK_PROFILED_PHASE", "0")
        # The check for other work before each experiment samples a fifth of a second
        # (two busy loops still show as 40 ticks), not a whole one.
        patch.setenv("BENCHBOOK_MACHINE_CHECK_S", "0.2")
        yield


@pytest.fixture(scope="session", autouse=True)
def _no_host_left_behind() -> Iterator[None]:
    """After the whole suite, nothing of the hosts the tests made is left: no network
    namespace (with its veth pairs), no veth or queueing discipline on the machine itself,
    no Toxiproxy. Those present before the suite (another benchbook run's) are not the
    suite's."""
    before, qdiscs_before = set(namespaces.ours()), set(_qdiscs())
    yield
    namespaces_left = sorted(set(namespaces.ours()) - before)
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    veths_left = [line.split(":")[1].strip() for line in links.splitlines() if "to-load" in line]
    qdiscs_left = sorted(set(_qdiscs()) - qdiscs_before)
    proxies_left = [p.pid for p in descendants() if p.name().startswith("toxiproxy")]
    assert not (namespaces_left or veths_left or qdiscs_left or proxies_left), (
        f"left after the suite: namespaces {namespaces_left}, veths {veths_left}, "
        f"qdiscs {qdiscs_left}, Toxiproxy processes {proxies_left}"
    )


def _qdiscs() -> list[str]:
    """The machine's own queueing disciplines (a shaped link would add one), without
    their reference counts, which change on their own."""
    done = subprocess.run(["tc", "qdisc", "show"], capture_output=True, text=True)
    return [re.sub(r" refcnt \d+", "", line) for line in done.stdout.splitlines()]


@pytest.fixture
def runs_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A runs folder of this test's own, to look at what a run left behind."""
    path = tmp_path / "runs"
    monkeypatch.setenv("BENCHBOOK_RUNS_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def registry() -> Registry:
    return Registry.load()


@pytest.fixture(scope="session")
def test_registry() -> Registry:
    """Servers that misbehave on purpose (tests/servers/servers.toml)."""
    return Registry.load(REPO_ROOT / "tests" / "servers" / "servers.toml")


def descendants() -> list[psutil.Process]:
    """Processes this test process started, directly or not, that are still running:
    zombies (exited) and the reaper watchdog (lives as long as we do) excluded."""
    alive = []
    for proc in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE and proc.pid != watchdog_pid():
                alive.append(proc)
        except psutil.NoSuchProcess:
            pass
    return alive


def loading_wrk(proc: psutil.Process) -> bool:
    """``proc`` is wrk sending load, not the ``wrk -v`` a run starts first to record the
    tool's version (a test that caught that one looked for a load not yet begun)."""
    try:
        return proc.name() == "wrk" and proc.cmdline()[1:] != ["-v"]
    except psutil.NoSuchProcess:
        return False


# How long a runner subprocess may take to get its load going: it waits for the machine
# lock while another benchbook run (a `make report` beside the tests) is measuring.
RUNNER_START_S = 600

NOTEBOOKS = REPO_ROOT / "notebooks"
SMOKE = NOTEBOOKS / "profiles" / "smoke.yaml"


def smoke_run(name: str, out_dir: Path, overrides: dict | None = None) -> tuple[str, dict]:
    """A notebook executed for real with the smoke profile: every HTML and Markdown
    output concatenated, and its findings (the report's summary row)."""
    out = out_dir / f"{name}.ipynb"
    execute_notebook(NOTEBOOKS / f"{name}.ipynb", out, SMOKE, overrides or {})
    nb = nbformat.read(out, as_version=4)
    data = [o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "\n".join(d.get("text/html", "") + d.get("text/markdown", "") for d in data)
    (found,) = [d[FINDINGS_MIME] for d in data if FINDINGS_MIME in d]
    return text, found
