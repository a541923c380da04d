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

from benchbook.render.notebook_parameters import assignments, checked_parameters, type_value

INJECTED_TAG = "injected-parameters"


class NotebookFailed(RuntimeError):
    """A cell raised; the message says which one, why, and where the partial run is."""


def failed_copy_path(output: Path) -> Path:
    """Where a failed run is kept: `report/executed/x.ipynb` -> `report/failed/x.ipynb`,
    and beside any other output: `out/x.ipynb` -> `out/failed/x.ipynb`."""
    folder = output.parent.parent if output.parent.name == "executed" else output.parent
    return folder / "failed" / output.name


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML that refuses a key given twice: plain YAML keeps the last value, so a section or
    a parameter given twice would silently run the later one."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise ValueError(
                    f"{key!r} is given twice (lines {seen[key]} and {line}); a profile has "
                    "one section per notebook and one value per name in a section"
                )
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_profile(profile: Path | None, notebook: Path) -> dict[str, object]:
    """The values `profile` gives `notebook` (like papermill's `-f`): its section, named by
    the notebook's stem; none (absent or empty) runs the notebook's defaults. Every section
    must name a notebook beside `notebook`, so a misspelt or renamed one is refused rather
    than silently running nothing."""
    if profile is None:
        return {}
    try:
        loaded = yaml.load(profile.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except ValueError as error:
        raise ValueError(f"{profile}: {error}") from None
    if loaded is None:
        return {}
    notebooks = sorted(path.stem for path in notebook.parent.glob("*.ipynb"))
    if not isinstance(loaded, dict):
        raise ValueError(
            f"{profile}: a profile must be a mapping of notebook names to their parameters "
            f"(notebooks: {', '.join(notebooks)})"
        )
    problems = [
        f"{profile}: {name!r} is no notebook in {notebook.parent}/; its notebooks: "
        + ", ".join(notebooks)
        for name in loaded
        if name not in notebooks
    ]
    problems += [
        f"{profile}: section {name}: must map parameter names to values, not {values!r}"
        for name, values in loaded.items()
        if values is not None and not isinstance(values, dict)
    ]
    if problems:
        raise ValueError("\n".join(problems))
    return dict(loaded.get(notebook.stem) or {})


def execute_notebook(
    notebook: Path,
    output: Path,
    profile: Path | None,
    overrides: dict[str, object],
    kernel: str = "benchbook",
) -> None:
    """Execute `notebook` into `output`, atomically; raise NotebookFailed if a cell fails
    and ValueError, before any kernel starts, if a parameter name or value is wrong."""
    parameters = checked_parameters(
        notebook,
        load_profile(profile, notebook),
        overrides,
        f"{profile}, section {notebook.stem}",
    )
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


def split_overrides(argv: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Take `-p NAME VALUE` pairs out of argv before argparse sees them, so that a value
    may start with '-' (argparse would read `-p duration -5s` as an option)."""
    rest, pairs = [], []
    position = 0
    while position < len(argv):
        if argv[position] == "-p":
            if position + 2 >= len(argv):
                raise ValueError("-p takes a NAME and a VALUE, e.g. -p connections 50")
            pairs.append((argv[position + 1], argv[position + 2]))
            position += 3
        else:
            rest.append(argv[position])
            position += 1
    return rest, pairs


def main(argv: list[str] | None = None) -> int:
    """CLI for `make`: a header line, papermill's progress and cell output, exit 1 on failure,
    exit 2 on a bad parameter (nothing run)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchbook.render.execute",
        description=__doc__,
        epilog="-p NAME VALUE (repeatable) overrides one parameter; values are typed like "
        "YAML: -p connections 50, -p ids '[9, 5]', -p pin_cpus false.",
    )
    parser.add_argument("notebook", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument(
        "--profile", type=Path, help="YAML file: each notebook's parameter values in its section"
    )
    parser.add_argument(
        "--set",
        default="",
        metavar="'NAME=VALUE …'",
        help="overrides as one text, as `make run P=…` passes them: 'connections=50 ids=[9,5]'",
    )
    parser.add_argument("--kernel", default="benchbook", help="Jupyter kernel name")
    try:
        rest, pairs = split_overrides(sys.argv[1:] if argv is None else argv)
        args = parser.parse_args(rest)
        overrides = assignments(args.set) | {name: type_value(value) for name, value in pairs}
    except ValueError as error:
        parser.error(str(error))

    described = [f"profile {args.profile.stem}" if args.profile else "no profile"]
    described += [f"{name}={value!r}" for name, value in overrides.items()]
    print(f"== executing {args.notebook} ({', '.join(described)})", flush=True)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        execute_notebook(args.notebook, args.output, args.profile, overrides, args.kernel)
    except ValueError as error:
        print(f"{args.notebook}: nothing was run:\n{error}", file=sys.stderr)
        return 2
    except NotebookFailed as failure:
        print(failure, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
