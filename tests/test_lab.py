"""The teaching path: JupyterLab (`make lab`), where *Run All* runs a notebook's defaults.

Those defaults are the quick profile's values, so a student's *Run All* and `make report`
measure the same thing; `article_settings = True` (what the full profile sets) switches a
notebook to its article's own settings, assigned in the cell after the parameters cell.
"""

import ast
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import psutil
import pytest
from conftest import descendants

from benchbook.render.execute import load_profile
from benchbook.render.notebook_parameters import (
    article_names,
    check_value,
    checked_parameters,
    notebook_parameters,
)
from benchbook.runs.layout import REPO_ROOT

pytestmark = pytest.mark.slow  # a real JupyterLab server

# Every notebook `make report` executes (the Makefile's NOTEBOOKS: notebooks/[0-9]*.ipynb).
NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("[0-9]*.ipynb"))
PROFILES = REPO_ROOT / "notebooks" / "profiles"
SWITCH = re.compile(
    r"^article_settings = False  # True: the (article's own|full) settings \(.*about \d+ "
    r"minutes\); False: quick \(about [\d½]+ minutes\)$"
)


def parameters_and_article_cell(notebook: Path) -> tuple[str, str]:
    cells = nbformat.read(notebook, as_version=4).cells
    (index,) = [i for i, c in enumerate(cells) if "parameters" in c.metadata.get("tags", [])]
    return cells[index].source, cells[index + 1].source


def test_every_notebook_is_checked() -> None:
    every = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
    assert NOTEBOOKS == every and len(every) >= 8, [p.name for p in every]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_run_all_runs_the_quick_profile_and_the_switch_comes_first(notebook: Path) -> None:
    """What `make report` passes (the notebook's section of quick.yaml) is what the notebook
    already holds: the defaults cannot drift from the profile, and an executed report
    equals a Run All."""
    parameters = notebook_parameters(notebook)
    quick = checked_parameters(notebook, load_profile(PROFILES / "quick.yaml", notebook), {})
    assert quick, f"quick.yaml has no section for {notebook.stem}"
    assert {name: parameters[name].default for name in quick} == quick
    source, _ = parameters_and_article_cell(notebook)
    assert SWITCH.match(source.splitlines()[0]), source.splitlines()[0]
    assert parameters["article_settings"].default is False


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_article_cell_sets_parameters_only_when_switched_on(notebook: Path) -> None:
    parameters = notebook_parameters(notebook)
    defaults = {name: p.default for name, p in parameters.items()}
    _, article_cell = parameters_and_article_cell(notebook)
    (switch,) = [n for n in ast.parse(article_cell).body if isinstance(n, ast.If)]
    assert ast.unparse(switch.test) == "article_settings"
    switched_off, switched_on = dict(defaults), defaults | {"article_settings": True}
    exec(article_cell, {}, switched_off)  # the notebook's own cell, as the kernel runs it
    exec(article_cell, {}, switched_on)
    assert switched_off == defaults
    changed = {name for name in switched_on if switched_on[name] != defaults.get(name)}
    assert changed - {"article_settings"}, "the article's settings change nothing"
    for name in changed:  # no typo'd new name, and each value passes the same checks
        assert name in parameters, f"{name}: not a parameter of {notebook.name}"
        check_value(parameters[name], switched_on[name])


def test_the_full_profile_is_the_switch_alone() -> None:
    for notebook in NOTEBOOKS:
        assert load_profile(PROFILES / "full.yaml", notebook) == {"article_settings": True}


def test_an_override_the_article_settings_would_replace_is_refused() -> None:
    notebook = REPO_ROOT / "notebooks" / "01_io_concurrency.ipynb"
    assert article_names(notebook) == {
        "duration", "warmup", "repetitions", "sweep_duration", "sweep_repetitions"
    }  # fmt: skip
    full = load_profile(PROFILES / "full.yaml", notebook)
    with pytest.raises(ValueError, match="duration: with article_settings true, the article's"):
        checked_parameters(notebook, full, {"duration": "10s"})
    # a parameter the article's cell leaves alone still takes an override
    assert checked_parameters(notebook, full, {"connections": 50})["connections"] == 50
    # and with the switch off, every override holds
    assert checked_parameters(notebook, {}, {"duration": "10s"})["duration"] == "10s"


def make_lab(port: int, user: str | None = None, dry_run: bool = False) -> list[str]:
    """`make lab` without its `setup` prerequisite (-o: the venv, tools and builds are
    there already; re-checking them would take most of this test's time)."""
    command = ["make", "--no-print-directory", "-o", "setup", "lab", f"LAB_PORT={port}"]
    command = command + ["-n"] if dry_run else command
    return ["runuser", "-u", user, "--", *command] if user else command


def can_run_as(user: str) -> str | None:
    """Why ``user`` cannot run the venv's JupyterLab here, or None if it can."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        return "switching users needs root and runuser"
    python = REPO_ROOT / ".venv" / "bin" / "python"
    check = subprocess.run(
        ["runuser", "-u", user, "--", str(python), "-c", ""], capture_output=True, text=True
    )
    if check.returncode:
        return (
            f"{user} cannot execute the venv's interpreter ({check.stderr.strip()}): its "
            f"Python, {os.path.realpath(python)}, lives where the user {user!r} has no access"
        )
    return None


def recipe_of(command: list[str]) -> str:
    return subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout


def test_make_lab_passes_allow_root_to_root_alone() -> None:
    recipe = recipe_of(make_lab(8123, dry_run=True))
    assert "jupyter lab notebooks/" in recipe and "--ip=127.0.0.1 --port=8123" in recipe
    assert ("--allow-root" in recipe) == (os.geteuid() == 0)
    if os.geteuid() == 0 and shutil.which("runuser"):
        as_nobody = recipe_of(make_lab(8123, "nobody", dry_run=True))
        assert "--port=8123" in as_nobody and "--allow-root" not in as_nobody


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def in_group(pgid: int) -> list[psutil.Process]:
    alive = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except (ProcessLookupError, psutil.NoSuchProcess):
            pass
    return alive


def fetch(url: str, within_s: float = 30) -> str:
    """The page at ``url``: Jupyter prints its URL just before it starts listening."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                assert response.status == 200
                return response.read().decode()
        except urllib.error.URLError as error:
            if not isinstance(error.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.parametrize("user", [None, "nobody"], ids=["current-user", "nobody"])
def test_make_lab_serves_jupyterlab_on_127_0_0_1_then_stops(user, tmp_path: Path) -> None:
    if user and (reason := can_run_as(user)):
        pytest.skip(reason)
    home = tmp_path / "home"  # Jupyter's runtime files and workspaces: not ~ or the repo
    home.mkdir()
    if user:
        shutil.chown(home, user)
    port = free_port()
    lab = subprocess.Popen(
        make_lab(port, user),
        cwd=REPO_ROOT,
        env=os.environ | {"HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, stopped as a whole
    )
    output: list[str] = []
    url: list[str] = []
    ready = threading.Event()

    def read() -> None:
        pattern = re.compile(rf"http://127\.0\.0\.1:{port}/lab\?token=\w+")
        for line in lab.stdout:
            output.append(line)
            if not url and (found := pattern.search(line)):
                url.append(found.group(0))
                ready.set()
        ready.set()  # ended without a URL

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(60) and url, "no JupyterLab URL in its output:\n" + "".join(output)
        page = fetch(url[0])
        assert "<title>JupyterLab</title>" in page and '"appName": "JupyterLab"' in page
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        try:
            lab.wait(timeout=20)
        finally:
            deadline = time.monotonic() + 10
            while in_group(lab.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            left = in_group(lab.pid)
            for proc in left:
                proc.kill()
            reader.join(timeout=5)
    assert left == [], f"still running after SIGTERM to make lab's process group: {left}"
    assert descendants() == []
