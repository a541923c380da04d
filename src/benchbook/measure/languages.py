"""The harness's part of each ``[languages.<name>]`` table of the registry: the toolchain
its servers' builds need on PATH, and the build its servers share unless an entry gives
its own (run in the server's folder; outputs under build/, never under servers/, whose
files are what a run depends on). What a reader sees of a language — its title, colours,
profiler or why there is none — is benchbook.runs.languages, read by both sides."""

import shutil
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from benchbook.runs.languages import Language, parse_language
from benchbook.runs.layout import REGISTRY_PATH


@dataclass(frozen=True)
class Toolchain:
    program: str  # what must be on PATH to build: "cargo"
    install: str  # how to get it, for the message when it is missing

    def missing(self) -> bool:
        return shutil.which(self.program) is None


@dataclass(frozen=True)
class LanguageSpec:
    declared: Language
    toolchain: Toolchain | None = None
    build: tuple[str, ...] = ()  # its servers' build command, unless they give their own


def parse_languages(raw: Mapping[str, Mapping]) -> dict[str, LanguageSpec]:
    """A registry file's ``languages`` tables."""
    specs = {}
    for name, entry in raw.items():
        toolchain = entry.get("toolchain")
        specs[name] = LanguageSpec(
            declared=parse_language(name, entry),
            toolchain=Toolchain(toolchain["program"], toolchain["install"]) if toolchain else None,
            build=tuple(entry.get("build", ())),
        )
    return specs


def registry_languages(raw: Mapping, path: Path) -> dict[str, LanguageSpec]:
    """A registry file's language tables (``raw``: the file read); a registry other than
    the main one (the tests' misbehaving servers) may also use the main one's."""
    inherited = {}
    if path != REGISTRY_PATH:
        with open(REGISTRY_PATH, "rb") as f:
            inherited = parse_languages(tomllib.load(f).get("languages", {}))
    return inherited | parse_languages(raw.get("languages", {}))


def missing_toolchains(needs: Iterable[tuple[str, Toolchain | None]]) -> list[str]:
    """'cargo (Rust's cargo: …), to build rust-hello, rust-iodelay' for each toolchain
    not on PATH, from (server, the toolchain its build needs) pairs."""
    wanted: dict[Toolchain, list[str]] = {}
    for server, toolchain in needs:
        if toolchain is not None and toolchain.missing():
            wanted.setdefault(toolchain, []).append(server)
    return [
        f"{t.program} ({t.install}), to build {', '.join(servers)}" for t, servers in wanted.items()
    ]


def language_of(server: str, name: str, languages: Mapping[str, LanguageSpec]) -> LanguageSpec:
    """A server's language, which the registry must declare: a language nobody declared
    would be built, profiled and drawn by guesswork."""
    if name not in languages:
        raise ValueError(
            f"servers.toml: {server} is in language {name!r}, which has no "
            f"[languages.{name}] table; declared: {', '.join(languages) or 'none'}"
        )
    return languages[name]
