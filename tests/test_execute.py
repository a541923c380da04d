"""benchbook.execute on real notebooks and the real "benchbook" kernel."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from benchbook.execute import NotebookFailed, execute_notebook, parse_parameter_value

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


def test_parameter_values_are_typed_like_papermill() -> None:
    assert parse_parameter_value("5") == 5
    assert parse_parameter_value("0.5") == 0.5
    assert parse_parameter_value("True") is True
    assert parse_parameter_value("None") is None
    assert parse_parameter_value("5s") == "5s"


@pytest.mark.slow
def test_profile_and_override_reach_the_notebook(tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path / "nb.ipynb", "x = 1\ny = 'a'", "print(f'x={x} y={y}')")
    profile = tmp_path / "quick.yaml"
    profile.write_text("x: 2\ny: from-profile\n")
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
    command = [sys.executable, "-m", "benchbook.execute", str(failing), str(output)]

    done = subprocess.run([*command, "-p", "x", "5"], capture_output=True, text=True)

    assert done.returncode == 1
    assert done.stdout.startswith(f"== executing {failing} (no profile, x=5)")
    assert f"{failing} failed in cell 2 " in done.stderr
    assert "ZeroDivisionError: division by zero" in done.stderr
    assert not output.exists()
