"""benchbook.render.execute on real notebooks and the real "benchbook" kernel."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from papermill.translators import PythonTranslator

from benchbook.render.execute import NotebookFailed, execute_notebook, load_profile
from benchbook.render.notebook_parameters import (
    assignments,
    checked_parameters,
    notebook_parameters,
    type_value,
)
from benchbook.runs.layout import REPO_ROOT

# Its slow tests execute small notebooks, render and open pages: no server, no load.
pytestmark = pytest.mark.no_load

KERNELSPEC = {"name": "benchbook", "language": "python", "display_name": "benchbook"}


def write_notebook(path: Path, *sources: str) -> Path:
    """A notebook whose first cell is the papermill parameters cell."""
    parameters, *rest = sources
    cells = [new_code_cell(parameters, metadata={"tags": ["parameters"]})]
    cells += [new_code_cell(source) for source in rest]
    nbformat.write(new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC}), path)
    return path


def stdout_of(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "".join(
        output.get("text", "")
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if output.output_type == "stream"
    )


@pytest.fixture
def failing(tmp_path: Path) -> Path:
    """Its 3rd cell (index 2) raises."""
    return write_notebook(
        tmp_path / "failing.ipynb", "x = 1", "print(x)", "1 / 0", "print('never')"
    )


@pytest.mark.parametrize("notebook", sorted((REPO_ROOT / "notebooks").glob("[0-9]*.ipynb")))
def test_papermill_reads_every_parameter_we_do(notebook: Path) -> None:
    """Papermill parses a parameters cell by regex: a line whose comment holds '=' is
    skipped with 'Unable to parse line', and that parameter is then 'unknown' to it."""
    cell = next(c for c in nbformat.read(notebook, as_version=4).cells
                if "parameters" in c.metadata.get("tags", []))  # fmt: skip
    theirs = {p.name for p in PythonTranslator.inspect(cell)}
    assert theirs == set(notebook_parameters(notebook))


def test_values_are_typed_like_yaml() -> None:
    assert type_value("5") == 5
    assert type_value("0.5") == 0.5
    assert type_value("True") is True and type_value("false") is False
    assert type_value("None") is None
    assert type_value("5s") == "5s"
    assert type_value("[9, 12345]") == [9, 12345]
    assert type_value('["trio"]') == ["trio"]


def test_make_run_assignments_keep_lists_whole() -> None:
    assert assignments("ids=[9, 5] duration=5s  servers=a,b") == {
        "ids": [9, 5], "duration": "5s", "servers": "a,b"
    }  # fmt: skip
    with pytest.raises(ValueError, match=r"'connections' is not NAME=VALUE"):
        assignments("connections")


NB01 = REPO_ROOT / "notebooks" / "01_io_concurrency.ipynb"
NB03 = REPO_ROOT / "notebooks" / "03_goroutine_fanout.ipynb"


@pytest.mark.parametrize(
    ("notebook", "overrides", "message"),
    [
        (NB01, {"conections": 50}, "conections: not a parameter of .*01_io_concurrency.ipynb "
         r"\(did you mean 'connections'\?\); its parameters: article_settings, servers, "
         "python_variants"),
        (NB03, {"ids": "[9, x]"}, r"ids: expected a list of whole numbers, got a list "
         r"\(\['\[9', 'x\]'\]\)"),
        (NB03, {"ids": {"a": 1}}, r"ids: expected a list of whole numbers, got a mapping"),
        (NB01, {"connections": "many"}, r"connections: expected a whole number, got a text"),
        (NB01, {"pin_cpus": 1}, r"pin_cpus: expected true or false, got a whole number"),
        (NB01, {"duration": "-5s"}, r"duration: '-5s' is not a duration"),
        (NB01, {"python_variants": [1]}, r"python_variants: expected a list of texts"),
    ],
)  # fmt: skip
def test_wrong_names_and_types_are_refused_with_the_rule(notebook, overrides, message) -> None:
    with pytest.raises(ValueError, match=message):
        checked_parameters(notebook, {}, overrides)


def test_values_that_fit_are_typed_for_the_notebook() -> None:
    checked = checked_parameters(
        NB03, {}, {"ids": [9, 12345], "crossover_work": "1,100", "duration": 30}
    )
    assert checked == {"ids": [9, 12345], "crossover_work": [1, 100], "duration": 30}


PROFILES = REPO_ROOT / "notebooks" / "profiles"


def test_each_notebook_gets_its_own_section(tmp_path: Path) -> None:
    """Two notebooks may give the same name different values; neither sees the other's."""
    first = write_notebook(tmp_path / "first.ipynb", "duration = '3s'\nrepetitions = 6")
    second = write_notebook(tmp_path / "second.ipynb", "duration = '3s'")
    profile = tmp_path / "p.yaml"
    profile.write_text("first:\n  duration: 1s\n  repetitions: 2\nsecond:\n  duration: 9s\n")
    assert checked_parameters(first, load_profile(profile, first), {}) == {
        "duration": "1s", "repetitions": 2
    }  # fmt: skip
    assert checked_parameters(second, load_profile(profile, second), {}) == {"duration": "9s"}


def test_a_notebook_without_a_section_runs_its_defaults(tmp_path: Path) -> None:
    first = write_notebook(tmp_path / "first.ipynb", "duration = '3s'")
    second = write_notebook(tmp_path / "second.ipynb", "duration = '3s'")
    profile = tmp_path / "p.yaml"
    profile.write_text("first:\n  duration: 1s\nsecond:\n")  # second's section is empty
    assert load_profile(profile, second) == {}
    profile.write_text("first:\n  duration: 1s\n")  # second's section is absent
    assert load_profile(profile, second) == {}
    profile.write_text("# nothing set yet\n")
    assert load_profile(profile, first) == {}
    assert load_profile(None, first) == {}


def test_a_section_naming_no_notebook_is_refused_with_the_notebooks(tmp_path: Path) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text("01_io_concurency:\n  duration: 3s\n")
    notebooks = ", ".join(sorted(p.stem for p in NB01.parent.glob("*.ipynb")))
    with pytest.raises(ValueError) as refused:
        load_profile(profile, NB03)  # any notebook's run refuses it, not only 01's
    assert str(refused.value) == (
        f"{profile}: '01_io_concurency' is no notebook in {NB01.parent}/; "
        f"its notebooks: {notebooks}"
    )
    profile.write_text("duration: 3s\n")  # the old flat shape
    with pytest.raises(ValueError, match="'duration' is no notebook in"):
        load_profile(profile, NB03)


def test_a_profile_that_is_not_sections_of_values_is_refused(tmp_path: Path) -> None:
    profile = tmp_path / "p.yaml"
    profile.write_text("- 01_io_concurrency\n")
    refusal = r"a profile must be a mapping of notebook names to their parameters \(notebooks: "
    with pytest.raises(ValueError, match=refusal + "00_load_generators, 01_io_concurrency, "):
        load_profile(profile, NB01)
    profile.write_text("01_io_concurrency: 3s\n")
    with pytest.raises(ValueError, match="section 01_io_concurrency: must map parameter names "
                       "to values, not '3s'"):  # fmt: skip
        load_profile(profile, NB03)


def test_a_parameter_the_notebook_lacks_is_refused_before_any_kernel(tmp_path: Path) -> None:
    """A name in a section is the section's notebook's or is refused, even one another
    notebook takes, with that notebook's parameters and the closest of them."""
    profile = tmp_path / "quick.yaml"
    profile.write_text("03_goroutine_fanout:\n  crossover_durtion: 1s\n  locust_duration: 15s\n")
    output = tmp_path / "out" / "03.ipynb"
    with pytest.raises(ValueError) as refused:
        execute_notebook(NB03, output, profile, {})
    lines = str(refused.value).splitlines()
    parameters = ", ".join(notebook_parameters(NB03))
    assert lines == [
        f"{profile}, section 03_goroutine_fanout: crossover_durtion: not a parameter of {NB03} "
        f"(did you mean 'crossover_duration'?); its parameters: {parameters}",
        f"{profile}, section 03_goroutine_fanout: locust_duration: not a parameter of {NB03} "
        f"(did you mean 'duration'?); its parameters: {parameters}",
    ]
    assert not output.parent.exists()


@pytest.mark.parametrize("profile", sorted(PROFILES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_section_checks_against_its_notebook(profile: Path) -> None:
    notebooks = sorted(NB01.parent.glob("*.ipynb"))
    checked = {nb.stem: checked_parameters(nb, load_profile(profile, nb), {}) for nb in notebooks}
    # a notebook left out would silently run its (quick) defaults under this profile
    assert all(checked.values()), [stem for stem, values in checked.items() if not values]


def test_a_profile_key_given_twice_is_refused(tmp_path: Path) -> None:
    # Plain YAML keeps the last value: the notebook would silently run the later one.
    profile = tmp_path / "twice.yaml"
    profile.write_text("01_io_concurrency:\n  duration: 5s\n  repetitions: 4\n  repetitions: 2\n")
    with pytest.raises(ValueError, match=r"'repetitions' is given twice \(lines 3 and 4\)"):
        load_profile(profile, NB01)
    profile.write_text("01_io_concurrency:\n  duration: 5s\n01_io_concurrency:\n  warmup: 1s\n")
    with pytest.raises(ValueError, match=r"'01_io_concurrency' is given twice \(lines 1 and 3\)"):
        load_profile(profile, NB01)


def test_a_typo_on_the_command_line_stops_before_any_kernel(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "benchbook.render.execute",
        str(NB01),
        str(tmp_path / "o.ipynb"),
    ]
    done = subprocess.run(
        [*command, "-p", "conections", "50"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "nothing was run" in done.stderr and "did you mean 'connections'" in done.stderr
    assert not (tmp_path / "o.ipynb").exists()
    negative = subprocess.run(
        [*command, "-p", "duration", "-5s"], capture_output=True, text=True, timeout=60
    )
    assert negative.returncode == 2 and "duration: '-5s' is not a duration" in negative.stderr


@pytest.mark.slow
def test_a_list_given_on_the_command_line_arrives_as_a_list(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path / "nb.ipynb", "ids = [1]", "print(type(ids).__name__, ids)")
    output = tmp_path / "out.ipynb"
    command = [sys.executable, "-m", "benchbook.render.execute", str(notebook), str(output)]
    done = subprocess.run(
        [*command, "-p", "ids", "[9, 12345]"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "list [9, 12345]" in stdout_of(output)
    done = subprocess.run(
        [*command, "--set", "ids=[9, 5]"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "list [9, 5]" in stdout_of(output)


@pytest.mark.slow
def test_profile_and_override_reach_the_notebook(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path / "nb.ipynb", "x = 1\ny = 'a'", "print(f'x={x} y={y}')")
    profile = tmp_path / "quick.yaml"
    profile.write_text("nb:\n  x: 2\n  y: from-profile\n")
    output = tmp_path / "report" / "executed" / "nb.ipynb"

    execute_notebook(notebook, output, profile, {"x": 5})

    assert "x=5 y=from-profile" in stdout_of(output)
    assert [p.name for p in output.parent.iterdir()] == ["nb.ipynb"]  # no partial file left


@pytest.mark.slow
def test_failure_names_the_cell_and_keeps_only_the_failed_copy(
    tmp_path: Path, failing: Path
) -> None:
    output = tmp_path / "report" / "executed" / "failing.ipynb"

    with pytest.raises(NotebookFailed) as raised:
        execute_notebook(failing, output, None, {"x": 5})  # the injected cell shifts indexes

    message = str(raised.value)
    failed = tmp_path / "report" / "failed" / "failing.ipynb"
    assert str(failing) in message
    assert "cell 2 " in message
    assert "ZeroDivisionError: division by zero" in message
    assert str(failed) in message
    assert not output.exists()
    assert list(output.parent.iterdir()) == []
    assert "5" in stdout_of(failed)  # the cells before the failure ran


@pytest.mark.slow
def test_success_removes_a_stale_failed_copy(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path / "nb.ipynb", "x = 1", "print(x)")
    output = tmp_path / "report" / "executed" / "nb.ipynb"
    stale = tmp_path / "report" / "failed" / "nb.ipynb"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")

    execute_notebook(notebook, output, None, {})

    assert output.exists() and not stale.exists()


@pytest.mark.slow
def test_cli_exits_1_with_the_failure_on_stderr(tmp_path: Path, failing: Path) -> None:
    output = tmp_path / "report" / "executed" / "failing.ipynb"
    command = [sys.executable, "-m", "benchbook.render.execute", str(failing), str(output)]

    done = subprocess.run([*command, "-p", "x", "5"], capture_output=True, text=True)

    assert done.returncode == 1
    assert done.stdout.startswith(f"== executing {failing} (no profile, x=5)")
    assert f"{failing} failed in cell 2 " in done.stderr
    assert "ZeroDivisionError: division by zero" in done.stderr
    assert not output.exists()


@pytest.mark.slow
def test_an_id_the_server_lacks_is_refused_naming_the_experiment_before_any_build(
    tmp_path: Path, runs_dir: Path
) -> None:
    """Notebook 03's ids become paths; an id go-fanout does not hold is refused by the plan,
    naming the experiment, the path and the id, before the server is built or a run
    folder made."""
    output = tmp_path / "03.ipynb"
    command = [sys.executable, "-m", "benchbook.render.execute", str(NB03), str(output)]

    done = subprocess.run([*command, "-p", "ids", "[9, 12345]"], capture_output=True, text=True,
                          timeout=300)  # fmt: skip

    assert done.returncode == 1
    assert (
        "03_goroutine_fanout: paths: '/sc/12345' asks go-fanout for id '12345', which it does "
        "not have; its ids are 1 to 10" in done.stderr
    )
    assert not runs_dir.exists(), "a run folder was made before the refusal"
