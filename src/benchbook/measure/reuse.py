"""Re-render without re-measuring: a stored run stands in for a new one when nothing that
shapes a measurement changed — the same experiment and parameters, the same measuring
code (every file of ``benchbook.measure``, ``benchbook.runs`` and ``servers/``), the same
machine. ``runs`` is the stored format the harness writes with: its core columns,
percentile names, flag thresholds and the Locust output readers shape every row.

What counts of the code is what it does: a Python file by its syntax tree without
docstrings or comments, a Go file without its comments, any other file
(the registry, Lua scripts) byte for byte. So a comment or a docstring edited under
``measure/`` keeps every stored run; an edit of code, a string or a number measures again.

The boundary is the package's own: import-linter (``make lint``) keeps ``measure`` from
importing ``analyse`` or ``render``, and ``runs`` from importing any of the three, so
nothing outside these folders can shape a row,
and a change of analysis, wording or template never re-measures.

`make report` turns this on (BENCHBOOK_REUSE_RUNS=1), so a change of wording, analysis
or template re-renders the report from data/runs/ in a minute or two. A notebook run
by hand, `make run` and the tests always measure afresh.
"""

import ast
import hashlib
import json
import os
import re
from pathlib import Path

from benchbook.measure.provenance import MACHINE_KEYS, machine
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import RunStore

# What shapes a measurement: this package, the run format it writes rows in, and the
# servers with their registry.
MEASURING_DIRS = (
    Path(__file__).resolve().parent,
    Path(__file__).resolve().parents[1] / "runs",
    REPO_ROOT / "servers",
)
SKIPPED_PARTS = {"__pycache__", ".pytest_cache"}


def reuse_enabled() -> bool:
    return os.environ.get("BENCHBOOK_REUSE_RUNS", "") == "1"


def measuring_files() -> list[Path]:
    """Every file under MEASURING_DIRS, in a stable order."""
    files = []
    for folder in MEASURING_DIRS:
        found = sorted(p for p in folder.rglob("*") if p.is_file())
        files += [p for p in found if not SKIPPED_PARTS & set(p.parts) and p.suffix != ".pyc"]
    return files


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """The tree with every module, class and function docstring removed."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


# A Go comment: // to the end of the line, or /* … */, outside string and rune literals
# (which the alternation consumes first, so a "//" inside a string stays).
GO_TOKENS = re.compile(
    r'"(?:\\.|[^"\\\n])*"'  # an interpreted string
    r"|`[^`]*`"  # a raw string
    r"|'(?:\\.|[^'\\\n])*'"  # a rune
    r"|//[^\n]*|/\*.*?\*/",  # a comment
    re.S,
)


def _go_code(source: str) -> str:
    """Go source without its comments, spaces and tabs outside literals collapsed, blank
    lines dropped: what is left when a comment is added, edited or removed."""
    parts, code, end = [], "", 0
    for token in GO_TOKENS.finditer(source):
        code += source[end : token.start()] + " "  # a comment separates like a space
        if token.group()[0] in "\"`'":
            parts += [re.sub(r"[ \t]+", " ", code[:-1]), token.group()]
            code = ""
        end = token.end()
    parts.append(re.sub(r"[ \t]+", " ", code + source[end:]))
    return "\n".join(line.strip() for line in "".join(parts).splitlines() if line.strip())


def what_it_does(path: Path) -> bytes:
    """The part of a measuring file that can change a measurement (see the module's
    docstring): comments and docstrings do not."""
    if path.suffix == ".py":
        tree = _without_docstrings(ast.parse(path.read_bytes(), filename=str(path)))
        return ast.dump(tree, include_attributes=False).encode()
    if path.suffix == ".go":
        return _go_code(path.read_text()).encode()
    return path.read_bytes()


def code_digest() -> str:
    digest = hashlib.sha256()
    for path in measuring_files():
        digest.update(str(path.relative_to(REPO_ROOT)).encode() + b"\0")
        digest.update(what_it_does(path) + b"\0")
    return digest.hexdigest()


def fingerprint(experiment: str, params: dict) -> str:
    """What must match for a stored run to stand in for a new one."""
    here = machine()
    key = {
        "experiment": experiment,
        "params": params,
        "measuring_code": code_digest(),
        "machine": {k: here[k] for k in MACHINE_KEYS},
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def stored_run_with(fingerprint_: str, directory: Path | None = None) -> Path | None:
    """The folder of the newest complete run with this fingerprint."""
    run = RunStore(directory).with_fingerprint(fingerprint_)
    return run.path if run else None
