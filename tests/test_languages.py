"""A language is a plug-in: declared once in the registry ([languages.<name>] in
servers/servers.toml) with how it is built, profiled and drawn, and read from there by
the harness (benchbook.measure.languages), the analysis and the report
(benchbook.runs.languages) alike; no other module names a language."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchbook.analyse.display import chart_style
from benchbook.analyse.findings.headlines import _go_side
from benchbook.measure.languages import Toolchain, missing_toolchains
from benchbook.measure.profiling import PROFILERS
from benchbook.measure.registry import Registry
from benchbook.measure.servers import ServerStartError, build_server
from benchbook.runs.languages import load_languages
from benchbook.runs.layout import REPO_ROOT

ABSENT = "benchbook-no-such-compiler"  # a program no PATH holds

GO = """
[languages.go]
title = "Go"
kind = "compiled"
garbage_collector = true
colours = ["#1565c0"]
toolchain = { program = "go", install = "Go" }
profiler = { name = "runtime/pprof" }
"""


def registry_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "servers.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_every_server_is_in_a_declared_language_with_a_profiler_or_a_reason() -> None:
    registry = Registry.load()
    assert {spec.language for spec in registry.servers.values()} <= set(registry.languages)
    for language in load_languages().values():
        # a name the harness has a profiler for, or none with its reason (parse_language
        # refuses both and neither)
        assert language.profiler in PROFILERS or language.unprofiled_because, language
        assert language.kind in ("compiled", "interpreted") and language.colours


def test_a_server_in_an_undeclared_language_is_refused(tmp_path: Path) -> None:
    path = registry_file(tmp_path, """
        [languages.go]
        title = "Go"
        kind = "compiled"
        garbage_collector = true
        colours = ["#1565c0"]
        profiler = { name = "runtime/pprof" }

        [servers.x]
        language = "zig"
        dir = "servers"
        command = ["x"]
        [[servers.x.requests]]
        path = "/"
        expect = { status = 200 }
    """)  # fmt: skip
    # the main registry's languages are inherited by another file: go, python, …
    with pytest.raises(ValueError, match=r"x is in language 'zig', which has no \[languages.zig\]"):
        Registry.load(path)


@pytest.mark.parametrize(
    ("given", "wrong", "message"),
    [
        ('kind = "compiled"', 'kind = "scripted"', "kind = 'scripted'; choose compiled or"),
        ('profiler = { name = "runtime/pprof" }', "profiler = {}", "give its name, or none ="),
    ],
)
def test_a_malformed_language_names_what_is_wrong(tmp_path: Path, given, wrong, message) -> None:
    path = registry_file(tmp_path, GO.replace(given, wrong))
    with pytest.raises(ValueError, match=f"language 'go' is malformed .*{message}"):
        load_languages(path)


def test_a_languages_build_is_its_servers_unless_an_entry_gives_its_own(tmp_path: Path) -> None:
    path = registry_file(tmp_path, f"""
        [languages.c]
        title = "C"
        kind = "compiled"
        garbage_collector = false
        colours = ["#555555"]
        toolchain = {{ program = "{ABSENT}", install = "a C compiler from your distribution" }}
        build = ["{ABSENT}", "-o", "{{root}}/build/c/server"]
        profiler = {{ none = "no profiler for C yet" }}

        [servers.shared]
        language = "c"
        dir = "servers"
        command = ["x"]
        [[servers.shared.requests]]
        path = "/"
        expect = {{ status = 200 }}

        [servers.own]
        language = "c"
        dir = "servers"
        build = ["make", "own"]
        command = ["x"]
        [[servers.own.requests]]
        path = "/"
        expect = {{ status = 200 }}
    """)  # fmt: skip
    registry = Registry.load(path)
    assert registry.get("shared").build == (ABSENT, "-o", "{root}/build/c/server")
    assert registry.get("own").build == ("make", "own")
    # A missing toolchain is named before anything is run, with how to get it.
    with pytest.raises(ServerStartError, match=f"building shared needs {ABSENT}, which is not"):
        build_server(registry.get("shared"))
    toolchain = registry.get("shared").toolchain
    assert missing_toolchains([("shared", toolchain), ("own", toolchain), ("py", None)]) == [
        f"{ABSENT} (a C compiler from your distribution), to build shared, own"
    ]
    assert missing_toolchains([("go-hello", Toolchain("sh", "a shell"))]) == []


def test_the_tests_misbehaving_servers_use_the_main_registrys_languages() -> None:
    registry = Registry.load(REPO_ROOT / "tests" / "servers" / "servers.toml")
    assert registry.get("go-slow").toolchain == Registry.load().get("go-hello").toolchain


def test_each_languages_servers_are_drawn_in_its_declared_colours() -> None:
    registry = Registry.load()
    for name, spec in registry.servers.items():
        language = registry.languages[spec.language].declared
        assert chart_style.family_of(name) == language.title, name
        assert chart_style.colour_for(name) == language.colours[0]
        assert chart_style.hatch_for(f"wrk: {name}") == language.hatch
    assert chart_style.family_of("wrk") == "load tool"


def test_the_speed_model_applies_where_the_sides_follow_the_two_workloads() -> None:
    # Go's servers follow the reference's Go workload, Python's its Python one (each
    # language's speed_reference); any other pair has nothing to scale it by.
    assert (_go_side(("go", "python")), _go_side(("python", "go"))) == ("a", "b")
    assert _go_side(("go", "go")) == _go_side(("go", "zig")) == ""


def test_every_build_writes_under_build_never_under_servers() -> None:
    # A build output under servers/ would be a file every run depends on.
    for spec in Registry.load().servers.values():
        outputs = [arg for arg in spec.build if "{root}" in arg]
        assert all(arg.startswith("{root}/build/") for arg in outputs), spec.name


@pytest.mark.parametrize(
    ("rust", "go"), [("rust-iodelay", "go-iodelay"), ("rust-hello", "go-hello")]
)
def test_a_rust_server_has_its_go_counterparts_route_checks_and_parameters(rust, go) -> None:
    registry = Registry.load()
    ours, theirs = registry.get(rust), registry.get(go)
    assert ours.language == "rust" and ours.dir == REPO_ROOT / "servers" / "rust"
    assert (ours.ready_path, ours.params) == (theirs.ready_path, theirs.params)

    def checks(spec):
        return [(r.method, r.path, r.expect.status, r.expect.content_type) for r in spec.requests]

    assert checks(ours) == checks(theirs)
    # its language's build, with a lockfile: the crates are those it was measured with
    assert ours.build == ("cargo", "build", "--release", "--locked", "--target-dir",
                          "{root}/build/rust")  # fmt: skip
    assert (REPO_ROOT / "servers" / "rust" / "Cargo.lock").exists()
    assert ours.toolchain is not None and ours.toolchain.program == "cargo"


def test_rust_is_declared_as_the_ceiling_and_profiled_by_perf() -> None:
    rust = load_languages()["rust"]
    assert rust.is_ceiling and not any(
        language.is_ceiling for name, language in load_languages().items() if name != "rust"
    )
    assert rust.profiler in PROFILERS and PROFILERS[rust.profiler]().name == "perf"
    assert chart_style.family_of("rust-hello") == "Rust" != chart_style.family_of("go-hello")


def test_the_build_make_setup_runs_names_a_missing_toolchain_before_building(tmp_path) -> None:
    # `make setup` builds every server with `python -m benchbook build`; with no toolchain
    # on PATH it names each missing one, how to get it and what needs it, and builds nothing.
    done = subprocess.run([sys.executable, "-m", "benchbook", "build"], cwd=REPO_ROOT,
                          env={"PATH": str(tmp_path), "PYTHONPATH": str(REPO_ROOT / "src")},
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 1 and "built" not in done.stdout
    assert done.stderr.startswith("missing: go (Go 1.26 or newer")
    assert "cargo (Rust's cargo 1.85 or newer" in done.stderr
    assert "to build rust-iodelay, rust-hello" in done.stderr
