"""The report's last appendix: the provenance (manifest.json) of every run the notebooks
announced — what all runs share once, what differs per run — and when each notebook ran
with which parameters."""

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchbook.render.dotted_rows import flatten, shared_values
from benchbook.render.notebook_html import Section
from benchbook.render.templates import run_anchor
from benchbook.runs.layout import REPO_ROOT

# Manifest keys that identify a run: always in its row, even when every run agrees.
RUN_IDENTITY = ("run_id", "created_utc")
# Values that differ between runs and are short enough for a column of their own, by
# the last part of their key, with their header.
RUN_COLUMNS = (
    (re.compile(r"(^|\.)commit$"), "commit"),
    (re.compile(r"(^|\.)dirty$"), "uncommitted changes"),
    (re.compile(r"(^|\.)load_average[^.]*$"), "load average at start"),
    (re.compile(r"(^|\.)[^.]*steal[^.]*$"), "host CPU steal"),
)


class ReportError(RuntimeError):
    """The report cannot be built honestly (e.g. a run's manifest is missing)."""


@dataclass
class RunProvenance:
    """One run announced by a notebook, with its manifest flattened to (key, text) pairs."""

    run_id: str
    anchor: str
    notebook: Path
    section_anchor: str
    manifest_path: Path
    values: list[tuple[str, str]]


@dataclass
class RunRow:
    """A run in the provenance table: its own columns, then every other value of its own."""

    run: RunProvenance
    cells: list[str]
    rest: list[tuple[str, str]]


@dataclass
class Provenance:
    """Every manifest value once: shared by all runs (grouped by top-level key), or in the
    row of the run it belongs to."""

    shared: list[tuple[str, list[tuple[str, str]]]]
    columns: list[str]
    rows: list[RunRow]


@dataclass
class NotebookRow:
    """A notebook in the provenance: when it ran, and the parameters no other one shares."""

    section: Section
    parameters: list[tuple[str, str]]


def split_provenance(runs: Sequence[RunProvenance]) -> Provenance:
    """Every manifest value exactly once: those all runs share in one block (by top-level
    key), the rest in each run's row — short ones that differ (commit, load, steal) as
    columns, the others listed under it."""
    shared = {
        key: value
        for key, value in shared_values([run.values for run in runs]).items()
        if key not in RUN_IDENTITY
    }
    groups: dict[str, list[tuple[str, str]]] = {}
    for key, value in shared.items():
        group, _, rest = key.partition(".")
        groups.setdefault(group if rest else "run", []).append((rest or key, value))
    per_run = {key for run in runs for key, _ in run.values} - shared.keys() - set(RUN_IDENTITY)
    differing = [
        key for key in dict.fromkeys(k for run in runs for k, _ in run.values) if key in per_run
    ]
    columns: list[tuple[str, str]] = []
    for pattern, header in RUN_COLUMNS:  # a header names one column: its first key
        columns += [(key, header) for key in differing if pattern.search(key)][:1]
    column_keys = {key for key, _ in columns}
    rows = []
    for run in runs:
        values = dict(run.values)
        cells = [values.get("created_utc", "—")] + [values.get(k, "—") for k, _ in columns]
        rest = [
            (k, v)
            for k, v in run.values
            if k not in shared and k not in column_keys and k not in RUN_IDENTITY
        ]
        rows.append(RunRow(run=run, cells=cells, rest=rest))
    return Provenance(
        shared=list(groups.items()),
        columns=["created (UTC)"] + [header for _, header in columns],
        rows=rows,
    )


def notebook_rows(sections: Sequence[Section]) -> tuple[list[tuple[str, str]], list[NotebookRow]]:
    """Parameters every notebook ran with (shown once), and each notebook's own."""
    shared = shared_values([section.parameters for section in sections])
    if len(sections) < 2:
        shared = {}
    rows = [
        NotebookRow(section, [(k, v) for k, v in section.parameters if k not in shared])
        for section in sections
    ]
    return list(shared.items()), rows


def manifest_pattern(runs: Sequence[RunProvenance]) -> str | None:
    """'data/runs/<run id>/manifest.json' when every manifest sits in one folder of runs
    (relative to the repository when inside it: the reader's clone is elsewhere)."""
    parents = {run.manifest_path.parent.parent for run in runs}
    if len(parents) == 1 and all(
        run.manifest_path.parent.name == run.run_id and run.manifest_path.name == "manifest.json"
        for run in runs
    ):
        parent = parents.pop()
        shown = parent.relative_to(REPO_ROOT) if parent.is_relative_to(REPO_ROOT) else parent
        return f"{shown}/<run id>/manifest.json"
    return None


def load_run(bundle: dict, section: Section) -> RunProvenance:
    """Read the manifest a run bundle points at; a missing one is an error, never a gap."""
    run_dir = Path(bundle["path"])
    if not run_dir.is_absolute():
        run_dir = REPO_ROOT / run_dir
    manifest_path = run_dir / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(
            f"{section.path}: run {bundle.get('run_id')!r} has no manifest at {manifest_path}"
        ) from None
    except json.JSONDecodeError as error:
        raise ReportError(f"{section.path}: {manifest_path} is not valid JSON: {error}") from None
    run_id = str(manifest.get("run_id", bundle["run_id"]))
    return RunProvenance(
        run_id=run_id,
        anchor=run_anchor(run_id),
        notebook=section.path,
        section_anchor=section.anchor,
        manifest_path=manifest_path,
        values=flatten(manifest),
    )


def measured_when(runs: Sequence[RunProvenance]) -> str:
    """'measured 2026-12-06 05:20–05:49 UTC, commit c2e0d750': when the report's runs
    were measured and by which code, so a report rendered later (every run reused) says it
    re-analyses them ('' without a run)."""
    values = [dict(run.values) for run in runs]
    created = sorted(v["created_utc"][:16].replace("T", " ") for v in values if "created_utc" in v)
    if not created:
        return ""
    first, last = created[0], created[-1]
    span = first if first == last else (
        f"{first}–{last[11:]}" if first[:10] == last[:10] else f"{first} – {last}")  # fmt: skip
    commits = sorted({v[k][:8] for v in values for k in v if re.search(r"(^|\.)commit$", k)})
    at = f", commit{'s' if len(commits) > 1 else ''} {', '.join(commits)}" if commits else ""
    return f"measured {span} UTC{at}"
