"""The layout shows the architecture, and these checks keep it that way: small modules
and functions, load tools as plug-ins that nothing else names, a table that finds them."""

import ast
import tomllib
from pathlib import Path

import pytest

from benchbook.measure.tools import (
    TOOLS,
    capabilities,
    module_name,
    spreading_tools,
    tool,
    tool_loads,
)
from benchbook.runs.columns import LOAD_TOOLS
from benchbook.runs.layout import REPO_ROOT

PACKAGE = REPO_ROOT / "src" / "benchbook"
TOOLS_DIR = PACKAGE / "measure" / "tools"
FORMAT_COLUMNS = PACKAGE / "runs" / "columns.py"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_longer_than_400_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in modules()
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_longer_than_60_lines() -> None:
    long = {}
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                name = f"{path.relative_to(PACKAGE)}:{node.name}"
                if lines > MAX_FUNCTION_LINES:
                    long[name] = lines
    assert long == {}


def test_every_tool_module_is_in_the_table_with_its_version() -> None:
    """A tool's module is its name; a companion that reads its output is <name>_output."""
    modules_ = {p.stem for p in TOOLS_DIR.glob("*.py")} - {"__init__", "base"}
    tool_modules = {m for m in modules_ if not m.startswith("_")}
    companions = {m for m in tool_modules if m.endswith("_output")}
    assert {name.replace("-", "") for name in TOOLS} == tool_modules - companions
    assert {m.removesuffix("_output") for m in companions} <= tool_modules
    for name, entry in TOOLS.items():
        assert entry.name == name and entry.version()


def test_no_module_but_a_tools_own_names_it() -> None:
    # A string that is exactly a tool's name, outside that tool's module (notebook-specific
    # analysis in analyse/experiments compares named tools, and may name them; so may the
    # course's exercises, which describe experiments as notebooks do, with measure.tool;
    # the run format lists the names its ``tool`` column holds, kept equal to the table).
    found = []
    for path in modules():
        if {"experiments", "exercises"} & set(path.parts) or path == FORMAT_COLUMNS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in TOOLS:
                if path.stem.removesuffix("_output") != str(node.value).replace("-", ""):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value!r}")
    assert found == []


def test_the_run_format_names_every_tool_of_the_table() -> None:
    assert sorted(LOAD_TOOLS) == sorted(TOOLS), (
        "a tool was added or removed: runs.columns.LOAD_TOOLS lists the names rows store"
    )


def test_an_unknown_tool_or_setting_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="no load tool 'wrkk'; valid choices: .*wrk"):
        tool("wrkk", connections=10)
    with pytest.raises(ValueError, match="wrk: .*unexpected keyword argument 'conections'"):
        tool("wrk", conections=10, duration="1s")
    loads = tool_loads(tool("wrk", connections="10,100", duration="1s"))
    assert [w.load.connections for w in loads] == [10, 100]


# The fewest settings that make one load of each tool (a new tool must add its own).
MINIMAL_SETTINGS = {
    "bombardier": {"connections": 1, "duration": "1s"},
    "ghz": {"concurrency": 1, "calls": 1},
    "go-bench": {"backends": {"go": {"http": "go-governance-http"}}, "bench": "Ops"},
    "locust": {"users": 1, "spawn_rate": 1, "wait": "0-0ms", "duration": "1s"},
    "vegeta": {"rate": 1, "duration": "1s"},
    "wrk": {"connections": 1, "duration": "1s"},
}


def test_every_tool_has_minimal_settings_below() -> None:
    assert set(MINIMAL_SETTINGS) == set(TOOLS)


@pytest.mark.parametrize("name", sorted(MINIMAL_SETTINGS))
def test_declared_capabilities_are_what_the_loads_implement(name: str) -> None:
    """Callers trust the ToolEntry's capabilities instead of probing the load: here,
    and only here, the load is probed, so a declaration cannot drift from the code."""
    (load,) = tool_loads(tool(name, **MINIMAL_SETTINGS[name]))
    declared = capabilities(load)
    assert declared == TOOLS[name].capabilities
    for method in ("run_spread", "spread_problem"):
        assert hasattr(load, method) == declared.spreads_over_hosts, method
    for member in ("servers", "measure_together"):
        assert hasattr(load, member) == declared.measures_together, member
    assert (name in spreading_tools()) == declared.spreads_over_hosts


def contract(name: str) -> dict:
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        contracts = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    (found,) = [c for c in contracts if c["name"] == name]
    return found


def test_the_contract_that_guards_the_tool_modules_lists_every_one() -> None:
    """import-linter checks only the modules a contract names, so a tool module missing
    from the list could be imported past the tools table without a failure."""
    listed = set(contract("only measure.tools reaches the tool modules")["forbidden_modules"])
    on_disk = {p.stem for p in TOOLS_DIR.glob("*.py")} - {"__init__", "base"}
    modules_ = {m for m in on_disk if not m.startswith("_")} | {module_name(n) for n in TOOLS}
    missing = {f"benchbook.measure.tools.{m}" for m in modules_} - listed
    assert missing == set(), "add them to the contract's forbidden_modules in pyproject.toml"
