"""Run one notebook with papermill so that `make` only ever sees complete results.

The executed notebook is written to a temporary file beside `output` and renamed onto it
only when every cell succeeded: a failed or interrupted run never leaves a file that
`make` would treat as up to date. A failed run's partial notebook is kept in a `failed/`
folder next to the executed ones, where it can be opened to see the traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

import nbformat
import papermill
import yaml
from papermill.exceptions import PapermillExecutionError

INJECTED_TAG = "injected-parameters"


class NotebookFailed(RuntimeError):
    """A cell raised; the message says which one, why, and where the partial run is."""


def failed_copy_path(output: Path) -> Path:
    """Where a failed run is kept: `report/executed/x.ipynb` -> `report/failed/x.ipynb`."""
    return output.parent.parent / "failed" / output.name


def load_parameters(profile: Path | None, overrides: dict[str, object]) -> dict[str, object]:
    """Profile values (like papermill's `-f`) with the command-line overrides on top."""
    parameters: dict[str, object] = {}
    if profile is not None:
        loaded = yaml.safe_load(profile.read_text(encoding="utf-8"))
        if loaded is not None and not isinstance(loaded, dict):
            raise ValueError(f"{profile}: a profile must be a mapping of parameter names")
        parameters.update(loaded or {})
    parameters.update(overrides)
    return parameters


def parse_parameter_value(text: str) -> object:
    """Type a `-p` value the way papermill's CLI does (its own helper is private)."""
    literals: dict[str, object] = {"True": True, "False": False, "None": None}
    if text in literals:
        return literals[text]
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def execute_notebook(
    notebook: Path,
    output: Path,
    profile: Path | None,
    overrides: dict[str, object],
    kernel: str = "benchbook",
) -> None:
    """Execute `notebook` into `output`, atomically; raise NotebookFailed if a cell fails."""
    parameters = load_parameters(profile, overrides)
    output.parent.mkdir(parents=True, exist_ok=True)
    # A dot-name outside `*.ipynb` globs, so `make` and `report` never pick up a partial run.
    partial = output.with_name(f".{output.stem}.partial.ipynb")
    failed = failed_copy_path(output)
    try:
        papermill.execute_notebook(
            str(notebook),
            str(partial),
            parameters=parameters,
            kernel_name=kernel,
            progress_bar=True,
            log_output=True,
            cwd=str(notebook.resolve().parent),
        )
    except PapermillExecutionError as error:
        failed.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, failed)
        raise NotebookFailed(describe_failure(notebook, failed, error)) from None
    else:
        os.replace(partial, output)
        failed.unlink(missing_ok=True)
    finally:
        partial.unlink(missing_ok=True)


def describe_failure(notebook: Path, failed: Path, error: PapermillExecutionError) -> str:
    """Name the failing cell as the author sees it: its index in the source notebook."""
    executed = nbformat.read(failed, as_version=4)
    injected_before = sum(
        INJECTED_TAG in cell.metadata.get("tags", []) for cell in executed.cells[: error.cell_index]
    )
    first_line = next((line for line in error.source.splitlines() if line.strip()), "")
    return (
        f"{notebook} failed in cell {error.cell_index - injected_before} "
        f"(0-based, In [{error.exec_count}]): {error.ename}: {error.evalue}\n"
        f"  cell begins: {first_line}\n"
        f"  partially executed notebook kept at {failed}"
    )


def main(argv: list[str] | None = None) -> int:
    """CLI for `make`: a header line, papermill's progress and cell output, exit 1 on failure."""
    parser = argparse.ArgumentParser(prog="python -m benchbook.execute", description=__doc__)
    parser.add_argument("notebook", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--profile", type=Path, help="YAML file of parameter values")
    parser.add_argument(
        "-p",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="override one parameter (typed like papermill's -p)",
    )
    parser.add_argument("--kernel", default="benchbook", help="Jupyter kernel name")
    args = parser.parse_args(argv)
    overrides = {name: parse_parameter_value(value) for name, value in args.p}

    described = [f"profile {args.profile.stem}" if args.profile else "no profile"]
    described += [f"{name}={value!r}" for name, value in overrides.items()]
    print(f"== executing {args.notebook} ({', '.join(described)})", flush=True)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        execute_notebook(args.notebook, args.output, args.profile, overrides, args.kernel)
    except NotebookFailed as failure:
        print(failure, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
