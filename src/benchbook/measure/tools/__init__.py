"""Load tools as plug-ins: one module per tool in this package, found by this table.

A tool module holds everything about its tool — its load type, its command, the parser
of its raw output into the core columns, the flags only it can raise, its version, and
how notebook 00 calibrates it — and ends with ``TOOL = ToolEntry(…)``. The rest of the
harness reaches tools only through ``TOOLS``, ``tool(name, …)`` and ``tool_loads``:
adding a tool is adding a module here, its name to benchbook.runs.columns.LOAD_TOOLS
(what stored rows name, which the analysis reads) and its module to the import contract
in pyproject.toml (tests/test_architecture.py checks both). Its entry also says how to check it is
installed and which tracked file pins its version, which is what a run's reuse key reads
of it (benchbook.measure.reuse).
"""

import importlib
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from benchbook.measure.tools.base import LoadTool
from benchbook.runs.experiment import Load


@dataclass(frozen=True)
class Calibration:
    """How notebook 00 finds a tool's ceiling: ``loads`` at full speed against ``server``
    (a fast server of the registry that speaks the tool's protocol)."""

    server: str
    loads: Callable[..., list[LoadTool]]  # (duration, **settings) → the loads to measure
    defaults: Mapping[str, object] = field(default_factory=dict)
    request: str | None = None  # the server's request to send (None: its first)


@dataclass(frozen=True)
class Capabilities:
    """What a tool's loads can do beyond LoadTool, declared so that callers ask the
    table, not the load object. ``spreads_over_hosts``: its loads are SpreadLoads (a
    load over several load hosts at once); ``measures_together``: its loads are
    MultiServerLoads (one client binary measuring several servers at once)."""

    spreads_over_hosts: bool = False
    measures_together: bool = False


@dataclass(frozen=True)
class VersionPin:
    """Where a tool's version is pinned in a tracked file: the line of ``file`` (relative
    to the repository) that starts with ``package`` and then its version, as go.mod
    (``github.com/tsenart/vegeta/v12 v12.12.0``) and requirements.txt (``locust==2.47.0``)
    write it. It stands for the tool in a run's reuse key, read without running the tool
    (benchbook.measure.reuse)."""

    file: str
    package: str

    def version(self, root: Path) -> str:
        text = (root / self.file).read_text()
        found = re.search(rf"^[ \t]*{re.escape(self.package)}(?:==|[ \t]+)(\S+)", text, re.M)
        if found is None:
            raise ValueError(f"{self.file}: no version pinned for {self.package}")
        return found.group(1)


@dataclass(frozen=True)
class ToolEntry:
    name: str  # as rows name it (the ``tool`` column)
    make: Callable[..., list[LoadTool]]  # keyword settings → one load each (lists sweep)
    version: Callable[[], str]  # recorded in every run's manifest that used the tool
    capabilities: Capabilities  # what its loads do beyond LoadTool
    calibration: Calibration | None = None  # None: its rows have no headroom, said why
    about: str = ""  # one line for error messages and the README
    # Raises the error that says how to install the tool when it is missing: called
    # before an experiment that measures with it starts anything, never on the way to a
    # stored run that stands in for one (reuse).
    installed: Callable[[], object] | None = None
    pinned: VersionPin | None = None  # None: no tracked file pins it (its name stands in)
    # Tracked files and folders beyond its module that shape its load (relative to the
    # repository): go-bench's client is a package of the servers' Go module.
    sources: tuple[str, ...] = ()


def _discover() -> dict[str, ToolEntry]:
    """Every module here but ``base`` (what all tools share) and private ones (``_name``:
    files a tool runs in its own process, such as Locust's locustfile, never imported)."""
    found = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name == "base" or module.name.startswith("_"):
            continue
        entry = getattr(importlib.import_module(f"{__name__}.{module.name}"), "TOOL", None)
        if isinstance(entry, ToolEntry):
            found[entry.name] = entry
    return dict(sorted(found.items()))


TOOLS: dict[str, ToolEntry] = _discover()


def entry(name: str) -> ToolEntry:
    if name not in TOOLS:
        raise ValueError(f"no load tool {name!r}; valid choices: {', '.join(TOOLS)}")
    return TOOLS[name]


def capabilities(load: LoadTool) -> Capabilities:
    """What ``load``'s tool declares it can do: after checking one, ``cast`` the load to
    its protocol (base.SpreadLoad, base.MultiServerLoad)."""
    return entry(load.name).capabilities


def spreading_tools() -> list[str]:
    """The tools whose loads spread over several load hosts, by name."""
    return [name for name, found in TOOLS.items() if found.capabilities.spreads_over_hosts]


def tool(name: str, **settings: object) -> Load:
    """One tool's load in an experiment's description, checked now (before any server
    starts): ``tool("wrk", connections=[10, 100], threads=2, duration="5s")`` is wrk at
    10 and at 100 connections. An unknown tool or setting is an error naming the valid
    ones."""
    load = Load(name, settings)
    tool_loads(load)
    return load


def tool_loads(load: Load) -> list[LoadTool]:
    """The tool objects of one load of a description (one per value of a swept setting)."""
    make = entry(load.tool).make
    try:
        return make(**load.settings)
    except TypeError as error:
        raise ValueError(
            f"{load.tool}: {error}; see help(benchbook.measure.tools.{module_name(load.tool)})"
        ) from None


def versions(names: list[str]) -> dict[str, str]:
    """The version of each named tool, for a run's manifest (never stops a run)."""
    found = {}
    for name in names:
        try:
            found[name] = TOOLS[name].version()
        except Exception as error:  # provenance must never stop a measurement
            found[name] = f"unavailable ({error})"
    return found


def require_installed(names: list[str]) -> None:
    """Each named tool is installed, or its error says how to install it: checked before
    an experiment starts anything (a tool's loads are made without looking for it, so
    that a stored run can stand in for an experiment on a machine without the tool)."""
    for name in names:
        if (check := entry(name).installed) is not None:
            check()


def module_name(name: str) -> str:
    """The module of a tool in this package (``gobench`` for go-bench): its companion
    files here are named after it (``wrk_report.lua``, ``_locustfile.py``), as is its
    stored-output reader in benchbook.runs (``wrk_output``)."""
    return entry(name).make.__module__.rsplit(".", 1)[1]
