"""Re-render without re-measuring: a stored run stands in for a new one when nothing that
shapes its measurement changed. Each experiment has a key of its own (as asv versions
each benchmark): its description as the manifest stores it, the machine's identity, and
a digest of only the code and files its plan touches (``touched``), so an edit
re-measures only the experiments that go through what was edited.

The calibration a run's rows take their headroom from is not in the key: it is recorded
beside it (the manifest's ``plan.calibration``), so a new calibration (notebook 00 run
again) re-measures nothing else. The key is computed from the plan alone, before any
tool is looked for, any server built or any ceiling read: on a machine without wrk, Go or
cargo, a notebook re-renders from stored runs.

What counts of a file is what it does: a Python file by its syntax tree without
docstrings or comments, a Go file without its comments, any other file (the registry's
entries are read parsed, Lua scripts byte for byte) as it is. Files count when git tracks
them (outside a git checkout: every file but caches and build outputs), so an untracked
scratch file or a build folder changes nothing.

The boundary is the package's own: import-linter (``make lint``) keeps ``measure`` from
importing ``analyse`` or ``render``, and ``runs`` from importing any of the three, so
nothing outside these folders can shape a row, and a change of analysis, wording or
template never re-measures.

`make report` turns reuse on (BENCHBOOK_REUSE_RUNS=1). A notebook run by hand,
`make run` and the tests always measure afresh.
"""

import ast
import functools
import hashlib
import inspect
import json
import os
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from benchbook.measure.experiment_plan import ExperimentPlan
from benchbook.measure.instances import needed_services
from benchbook.measure.profiling import PROFILERS as PROFILER_CLASSES
from benchbook.measure.provenance import MACHINE_KEYS, machine
from benchbook.measure.registry import Registry, ServerSpec, ServiceSpec, Target
from benchbook.measure.tools import TOOLS, entry, module_name
from benchbook.runs.layout import REPO_ROOT, repo_relative
from benchbook.runs.store import RunStore

# The folders of the harness, relative to the repository (see touched).
PACKAGE = Path(__file__).resolve().parents[1].relative_to(REPO_ROOT)
MEASURE = PACKAGE / "measure"
RUNS = PACKAGE / "runs"
TOOLS_DIR = MEASURE / "tools"
PROFILING = MEASURE / "profiling.py"
PROFILERS = MEASURE / "profilers"
# Never measuring code, when files are listed without git: caches and build outputs.
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".ruff_cache", "build", "target"}
# A folder holding one of these is a module of its own (servers/go/tools: the load tools'
# pins), not part of the folder around it.
MODULE_FILES = ("go.mod", "Cargo.toml", "pyproject.toml")


def reuse_enabled() -> bool:
    return os.environ.get("BENCHBOOK_REUSE_RUNS", "") == "1"


@dataclass(frozen=True)
class Touched:
    """What one experiment measures with, by name (see touched)."""

    servers: tuple[ServerSpec, ...]
    services: tuple[ServiceSpec, ...]
    tools: tuple[str, ...]
    profiled: tuple[str, ...]  # the profilers its servers' languages declare; () without a phase


def touched(plan: ExperimentPlan) -> Touched:
    """What the plan's measurement goes through, each part digested on its own
    (part_digests):

    (a) ``harness``: every file under measure/ and runs/ but the parts below: what every
        run goes through (orchestration, rounds, the run format, …);
    (b) ``tool <name>``, for each load tool of the plan: its module in measure/tools/ and
        the files named after it there (``wrk_report.lua``, ``locust_output.py``,
        ``_locustfile.py``), its stored-output reader in runs/ (``wrk_output.py``), the
        files and folders it declares as its sources (go-bench's client: the Go
        module's governance packages, with go.mod and go.sum), and its
        version as a tracked file pins it (ToolEntry.pinned: go.mod, requirements.txt;
        a tool no file pins, such as Debian's wrk, by its name only). No tool is run;
    (c) ``server <name>``, for each server started: its registry entry as parsed (another
        server's entry, or a comment, changes nothing), the files its entry names (a
        gRPC server's .proto and descriptors) and its files (_server_files). A Go
        server's ``dir`` is the Go module all Go servers share (servers/go): its files
        are the packages its build compiles (its ``cmd/<name>`` and the module's
        packages that imports, with go.mod and go.sum), so an edit of one Go server
        re-measures only the experiments that run it, and one of a shared package
        (internal/profiling) those of every server that imports it. Any other server's
        files are those of its ``dir``: the Python servers share servers/python (an
        entry names its module only inside its start command, ``hello:app``, and
        declares no files), so an edit there re-measures every Python server's
        experiments. A folder holding a module of its own (servers/go/tools: the load
        tools' pins) is not part of it.
        ``service <name>`` for each service (Redis) a server or its variant needs: its
        registry entry;
    (d) ``profiling`` and ``profiler <name>``, only when a profiled phase follows
        (``plan.profiled``): measure/profiling.py with profilers/__init__.py, and the
        module of the profiler each of its servers' languages declares in servers.toml
        (perf for Rust: profilers/perf.py); a language that declares none adds nothing.
    """
    targets = [(t.server, t.variant) for t in plan.targets]
    tools = [tool.name for tool in plan.tools]
    return touched_by(plan.registry, targets, tools, plan.profiled)


def touched_by(
    registry: Registry,
    targets: Iterable[tuple[str, str | None]],
    tools: Iterable[str],
    profiled: bool,
) -> Touched:
    """touched's parts from names: the (server, variant) of each target, the tools' names
    and whether a profiled phase follows (a stored run's rows give them too)."""
    servers: dict[str, ServerSpec] = {}
    services: dict[str, ServiceSpec] = {}
    for server, variant in targets:
        spec = servers.setdefault(server, registry.get(server))
        for name in needed_services(spec, Target(server, variant or None)):
            services[name] = registry.service(name)
    declared = {registry.languages[spec.language].declared.profiler for spec in servers.values()}
    profilers = sorted(declared - {""}) if profiled else []
    return Touched(
        tuple(servers[name] for name in sorted(servers)),
        tuple(services[name] for name in sorted(services)),
        tuple(sorted(set(tools))),
        tuple(profilers),
    )


class TrackedFiles:
    """The files under ``root`` that count (see the module's docstring), as paths relative
    to it: git's list, read once; without git, or outside a checkout, every file but
    SKIPPED_PARTS."""

    def __init__(self, root: Path):
        self.root = root
        self.listed = _git_files(root)
        self._under: dict[Path, list[Path]] = {}

    def under(self, folder: Path) -> list[Path]:
        """The files of ``folder`` (relative to the root), sorted, without those of a
        module of its own inside it."""
        if folder not in self._under:
            self._under[folder] = self._files_of(folder)
        return self._under[folder]

    def named(self, path: Path) -> list[Path]:
        """A file, or the files of a folder (under)."""
        return [path] if (self.root / path).is_file() else self.under(path)

    def _files_of(self, folder: Path) -> list[Path]:
        if self.listed is not None:
            prefix = folder.as_posix() + "/"
            found = [Path(name) for name in self.listed if name.startswith(prefix)]
        else:
            everything = (self.root / folder).rglob("*")
            found = [p.relative_to(self.root) for p in everything if p.is_file()]
            found = [p for p in found if not SKIPPED_PARTS & set(p.parts)]
        modules = {p.parent for p in found if p.name in MODULE_FILES and p.parent != folder}
        return sorted(
            p for p in found if (self.root / p).is_file() and not modules & set(p.parents)
        )


def _git_files(root: Path) -> list[str] | None:
    try:
        done = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                              timeout=60)  # fmt: skip
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None  # not a git checkout
    return [name for name in done.stdout.decode().split("\0") if name]


def _tool_of(path: Path, modules: Iterable[str]) -> str | None:
    """The tool module a file of measure/tools/ is named after (the longest match: a
    ``go`` tool would not claim ``gobench.py``), or None (the table's own files)."""
    stem = path.name.split(".")[0].lstrip("_")
    found = [m for m in modules if stem.startswith(m)]
    return max(found, key=len) if found else None


def _tool_files(files: TrackedFiles, name: str) -> list[Path]:
    module = module_name(name)
    modules = [module_name(other) for other in TOOLS]
    own = [p for p in files.under(TOOLS_DIR) if _tool_of(p, modules) == module]
    return own + [p for p in files.under(RUNS) if p.name == f"{module}_output.py"]


def _profiling_files(files: TrackedFiles) -> list[Path]:
    return [p for p in files.under(MEASURE) if p == PROFILING or PROFILERS in p.parents]


def harness_files(files: TrackedFiles) -> list[Path]:
    """Part (a) of touched: measure/ and runs/ without any tool's or profiler's files."""
    elsewhere = {p for name in TOOLS for p in _tool_files(files, name)}
    elsewhere |= set(_profiling_files(files))
    return [p for p in files.under(MEASURE) + files.under(RUNS) if p not in elsewhere]


# A Go import declaration: a parenthesised block, or one (optionally named) path.
GO_IMPORTS = re.compile(r'^import\s*(?:\(([^)]*)\)|(?:[\w.]+\s+)?"([^"]+)")', re.M)


def _go_imports(source: str) -> list[str]:
    found = []
    for block, single in GO_IMPORTS.findall(source):
        found += re.findall(r'"([^"]+)"', block) if block else [single]
    return found


def _server_files(files: TrackedFiles, spec: ServerSpec) -> list[Path]:
    """The files of a server: when its folder is a Go module and its build names one of
    its packages (``./cmd/hello``), that package and the module's packages it imports
    (their non-test .go files) with go.mod and go.sum — what its binary is compiled
    from; else every file of its folder."""
    folder = Path(repo_relative(spec.dir))
    everything = files.under(folder)
    built = [folder / arg for arg in spec.build if arg.startswith("./")]
    if folder / "go.mod" not in everything or len(built) != 1:
        return everything
    module = re.search(r"^module\s+(\S+)", (files.root / folder / "go.mod").read_text(), re.M)
    sources = {p for p in everything if p.suffix == ".go" and not p.stem.endswith("_test")}
    packages, todo = set(), [built[0]]
    while todo:
        package = todo.pop()
        if package in packages:
            continue
        packages.add(package)
        for path in (p for p in sources if p.parent == package):
            for imported in _go_imports((files.root / path).read_text()):
                if module and imported.startswith(module.group(1) + "/"):
                    todo.append(folder / imported.removeprefix(module.group(1) + "/"))
    own = [folder / "go.mod", folder / "go.sum"]
    return [p for p in everything if p in own or (p in sources and p.parent in packages)]


def _entry(spec: ServerSpec | ServiceSpec) -> bytes:
    """A registry entry as parsed, its paths relative to the repository."""

    def plain(value: object) -> object:
        return repo_relative(value) if isinstance(value, Path) else str(value)

    return json.dumps(asdict(spec), sort_keys=True, default=plain).encode()


def _digest(root: Path, files: Iterable[Path], *texts: bytes) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text + b"\0")
    for path in files:
        digest.update(path.as_posix().encode() + b"\0")
        digest.update(what_it_does(root / path) + b"\0")
    return digest.hexdigest()


def profiler_module(name: str) -> Path:
    """The file (relative to the repository) that defines the profiler called ``name``."""
    source = inspect.getsourcefile(PROFILER_CLASSES[name])
    assert source is not None, name
    return PROFILERS / Path(source).name


def part_digests(parts: Touched, root: Path = REPO_ROOT) -> dict[str, str]:
    """Each part of ``parts`` (see touched) by name, with the digest of what it holds
    in the repository at ``root``."""
    files = TrackedFiles(root)
    digests = {"harness": _digest(root, harness_files(files))}
    for name in parts.tools:
        tool = entry(name)
        pin = f"{name} {tool.pinned.version(root) if tool.pinned else ''}".encode()
        sources = [p for source in tool.sources for p in files.named(Path(source))]
        digests[f"tool {name}"] = _digest(root, _tool_files(files, name) + sources, pin)
    for spec in parts.servers:
        named = [Path(spec.grpc.proto), Path(spec.grpc.descriptors)] if spec.grpc else []
        own = _server_files(files, spec)
        digests[f"server {spec.name}"] = _digest(root, named + own, _entry(spec))
    for service in parts.services:
        digests[f"service {service.name}"] = _digest(root, [], _entry(service))
    if parts.profiled:
        profiling = _profiling_files(files)
        shared = [p for p in profiling if p == PROFILING or p.name == "__init__.py"]
        digests["profiling"] = _digest(root, shared)
        for name in parts.profiled:
            own = [p for p in profiling if p == profiler_module(name)]
            digests[f"profiler {name}"] = _digest(root, own, name.encode())
    return digests


def experiment_key(description: Mapping[str, object], code: Mapping[str, str]) -> str:
    """What must match for a stored run to stand in for a new one: the experiment's
    description as stored, the digests of the code it touches, and this machine (the
    calibration it read is recorded beside the key, never in it)."""
    here = machine()
    key = {
        "description": dict(description),
        "measuring_code": dict(code),
        "machine": {k: here[k] for k in MACHINE_KEYS},
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def fingerprint(plan: ExperimentPlan, root: Path = REPO_ROOT) -> str:
    """The plan's key (experiment_key), from the plan alone: nothing is run or built."""
    code = part_digests(touched(plan), root)
    return experiment_key(plan.experiment.stored(), code)


def stored_run_with(fingerprint_: str, directory: Path | None = None) -> Path | None:
    """The folder of the newest complete run with this fingerprint."""
    run = RunStore(directory).with_fingerprint(fingerprint_)
    return run.path if run else None


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
    try:
        return _what_it_does(path.suffix, path.read_bytes())
    except SyntaxError as error:
        raise SyntaxError(f"{path}: {error}") from None


@functools.lru_cache(maxsize=1024)
def _what_it_does(suffix: str, source: bytes) -> bytes:
    """By content, so that a key computed again (every experiment of a notebook) parses
    each unchanged file once."""
    if suffix == ".py":
        tree = _without_docstrings(ast.parse(source))
        return ast.dump(tree, include_attributes=False).encode()
    if suffix == ".go":
        return _go_code(source.decode()).encode()
    return source
