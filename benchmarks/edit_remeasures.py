"""What an edit re-measures: for each kind of edit, the notebooks whose stored runs no
longer stand in (so `make report` measures them again), derived from the reuse key itself
(benchbook.measure.reuse), not typed by hand, and how long measuring them took in that
session (each run's manifest, from its creation to its completion).

What each experiment touches comes from its run of the newest whole session in data/runs/
(one that measured every notebook, as `make report` does; a `make replicate` of some
notebooks is a session of theirs alone):
the servers and variants of its rows, its tools, and whether a profiled phase followed
(reuse.touched_by). A copy of what keys read is edited, one edit at a time; the parts
whose digest changed name the experiments, hence the notebooks, that measure again.

    python benchmarks/edit_remeasures.py   # prints the README's table
"""

import json
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from benchbook.measure import reuse
from benchbook.measure.registry import Registry
from benchbook.measure.tools import TOOLS, module_name
from benchbook.runs.layout import REPO_ROOT, runs_dir
from benchbook.runs.manifest import plan_of
from benchbook.runs.store import Run
from benchbook.store.session_file import sessions

# What a key reads (reuse.part_digests), copied to be edited.
KEYED = ("src/benchbook/measure", "src/benchbook/runs", "servers", "requirements.txt")
TOOLS_DIR = "src/benchbook/measure/tools"


@dataclass(frozen=True)
class Edit:
    what: str
    changes: tuple[tuple[str, str, str], ...]  # (path, old text or "" to append, new text)


def edits() -> list[Edit]:
    toml = "servers/servers.toml"
    redis = 'appendonly = "no", appendfsync = "everysec"'
    return [
        Edit("one Go server: go-hello (servers/go/cmd/hello)",
             (("servers/go/cmd/hello/main.go", "", "var _ = 1\n"),)),
        Edit("one Go server: go-iodelay (servers/go/cmd/iodelay)",
             (("servers/go/cmd/iodelay/main.go", "", "var _ = 1\n"),)),
        Edit("a package every Go server imports (servers/go/internal/profiling)",
             (("servers/go/internal/profiling/profiling.go", "", "var _ = 1\n"),)),
        Edit("one Python server (servers/python/hello.py: any file of the shared folder)",
             (("servers/python/hello.py", "", "X = 1\n"),)),
        Edit("one server's registry entry (go-hello's expected body)",
             ((toml, 'body = "Go-Server"', 'body = "Go"'),)),
        Edit("the Redis service's registry entry",
             ((toml, redis, redis.replace("everysec", "always")),)),
        *[
            Edit(f"the {name} tool module ({module_name(name)}.py)",
                 ((f"{TOOLS_DIR}/{module_name(name)}.py", "", "X = 1\n"),))
            for name in TOOLS
        ],
        Edit("the harness core (e.g. measure/rounds.py, runs/columns.py)",
             (("src/benchbook/measure/rounds.py", "", "X = 1\n"),)),
        Edit("the Go profiler (measure/profilers/go.py)",
             (("src/benchbook/measure/profilers/go.py", "", "X = 1\n"),)),
        Edit("a comment or a docstring (in the harness, a tool, a server, the registry)", (
            ("src/benchbook/measure/rounds.py", "Repetitions as rounds", "Repetitions in rounds"),
            ("src/benchbook/measure/rounds.py", "", "# a comment\n"),
            (f"{TOOLS_DIR}/wrk.py", "", "# a comment\n"),
            ("servers/python/hello.py", "", "# a comment\n"),
            ("servers/go/cmd/hello/main.go", "", "// a comment\n"),
            (toml, "", "# a comment\n"),
        )),
    ]  # fmt: skip


@dataclass(frozen=True)
class Used:
    """What one experiment's stored run measured with: touched_by's arguments, its
    description as stored (what its key digests), the calibration it read, and how long
    it took to measure."""

    targets: frozenset[tuple[str, str | None]]
    tools: frozenset[str]
    profiled: bool
    description: dict
    calibration: str | None
    seconds: float

    def touched(self, registry: Registry) -> reuse.Touched:
        return reuse.touched_by(registry, self.targets, self.tools, self.profiled)


def whole_session() -> list[str]:
    """The runs of the newest session with the most experiments (every notebook's)."""
    found = sessions(runs_dir())
    most = max(map(len, found))
    return next(runs for runs in reversed(found) if len(runs) == most)


def session() -> dict[str, Used]:
    """Each experiment of the newest whole session, from its stored run."""
    used = {}
    for run_id in whole_session():
        run = Run(runs_dir() / run_id)
        rows, manifest = run.results(), run.manifest()
        targets = zip(rows["server"], rows["variant"], strict=True)
        used[run.experiment] = Used(
            frozenset((server, variant or None) for server, variant in targets),
            frozenset(rows["tool"]),
            manifest["profiled_phase"] is not None,
            manifest["description"],
            (plan_of(manifest).calibration or {}).get("run_id"),
            (when(manifest["completed_utc"]) - when(manifest["created_utc"])).total_seconds(),
        )
    return used


def digests(root: Path, used: Iterable[Used]) -> dict[str, str]:
    """Every part the experiments touch, with the registry and code in ``root``: digested
    once per edit, not once per experiment."""
    registry = Registry.load(root / "servers" / "servers.toml")
    found = [u.touched(registry) for u in used]
    everything = reuse.Touched(
        tuple({s.name: s for p in found for s in p.servers}.values()),
        tuple({s.name: s for p in found for s in p.services}.values()),
        tuple(sorted({t for p in found for t in p.tools})),
        tuple(sorted({lang for p in found for lang in p.profiled})),
    )
    return reuse.part_digests(everything, root)


def copy_keyed(root: Path) -> None:
    for name in KEYED:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, root / name)


def apply(root: Path, edit: Edit) -> dict[Path, str]:
    """``edit`` made in ``root``; returns what the files held before."""
    before = {}
    for path, old, new in edit.changes:
        file = root / path
        before.setdefault(file, file.read_text())
        text = file.read_text()
        if old and old not in text:
            raise ValueError(f"{path} no longer holds {old!r}: update this script's edits")
        file.write_text(text.replace(old, new, 1) if old else text + new)
    return before


def when(utc: str) -> datetime:
    return datetime.fromisoformat(utc)


def minutes(seconds: float) -> str:
    """'6 min 40 s', '40 s', '–' for nothing."""
    if not seconds:
        return "–"
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def notebooks(experiments: Iterable[str]) -> str:
    found = sorted({name[:2] for name in experiments})
    return ", ".join(found) if found else "none"


def table() -> str:
    used = session()
    registry = Registry.load()
    names = {e: set(reuse.part_digests(u.touched(registry))) for e, u in used.items()}
    lines = [
        "| Edit | Notebooks measured again | Experiments | Their measuring time |",
        "| --- | --- | --- | --- |",
    ]
    with tempfile.TemporaryDirectory(prefix="benchbook-edits-") as folder:
        root = Path(folder)
        copy_keyed(root)
        unedited = digests(root, used.values())
        for edit in edits():
            before = apply(root, edit)
            edited = digests(root, used.values())
            for file, text in before.items():
                file.write_text(text)
            changed = {name for name in unedited if edited[name] != unedited[name]}
            again = [e for e, own in names.items() if own & changed]
            lines.append(row(edit.what, again, used))
    # A new calibration (notebook 00 measured again) re-keys an experiment only if its key
    # holds the calibration: the key digests the description, which never names it.
    again = [
        e for e, u in used.items() if u.calibration and u.calibration in json.dumps(u.description)
    ]
    lines.append(row("a new calibration (notebook 00 measured again)", again, used))
    return "\n".join(lines)


def row(what: str, again: list[str], used: dict[str, Used]) -> str:
    seconds = sum(used[e].seconds for e in again)
    return f"| {what} | {notebooks(again)} | {len(again)} of {len(used)} | {minutes(seconds)} |"


if __name__ == "__main__":
    print(table())
