"""The languages servers are written in, as the registry declares them once
(``[languages.<name>]`` in servers/servers.toml), read for the report: the name a reader
knows, what kind of language it is, its colours and hatch in every chart, the words a
chart label names it by, which machine-speed workload its servers' speed follows, and
its profiler (or why its servers are not profiled). How its servers are built and
which profiler module records them is the harness's part of the same table
(benchbook.measure.languages); rows store a server's ``language`` by its name."""

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from benchbook.runs.layout import REGISTRY_PATH


@dataclass(frozen=True)
class Language:
    name: str  # as rows store it: "go"
    title: str  # as a reader knows it: "Go"
    kind: str  # "compiled" or "interpreted"
    garbage_collector: bool
    colours: tuple[str, ...]  # its own colour first, then shades for variants
    hatch: str  # a matplotlib hatch for its bars ('' for none)
    words: tuple[str, ...]  # what names it in a chart label: itself, its frameworks
    # The machine-speed workload (a key of a manifest's machine_speed) its servers' speed
    # follows; '' when none was measured for it.
    speed_reference: str
    profiler: str  # the profiler's name; '' when its servers are not profiled …
    unprofiled_because: str  # … and why
    flame_graph: str = "hot"  # its flame graphs' palette (inferno-flamegraph --colors)

    @property
    def is_ceiling(self) -> bool:
        """Compiled and without a garbage collector: what a server reaches on a core
        with nothing between its code and the machine."""
        return self.kind == "compiled" and not self.garbage_collector


def load_languages(path: Path = REGISTRY_PATH) -> dict[str, Language]:
    """Every declared language, in the registry's order."""
    with open(path, "rb") as f:
        raw = tomllib.load(f).get("languages", {})
    return {name: parse_language(name, entry) for name, entry in raw.items()}


def parse_language(name: str, entry: Mapping) -> Language:
    try:
        profiler = dict(entry["profiler"])
        if bool(profiler.get("name")) == bool(profiler.get("none")):
            raise ValueError("profiler: give its name, or none = <why there is none>")
        return Language(
            name=name,
            title=entry["title"],
            kind=_one_of("kind", entry["kind"], ("compiled", "interpreted")),
            garbage_collector=bool(entry["garbage_collector"]),
            colours=tuple(entry["colours"]),
            hatch=entry.get("hatch", ""),
            words=tuple(entry.get("words", (name,))),
            speed_reference=entry.get("speed_reference", ""),
            profiler=profiler.get("name", ""),
            unprofiled_because=profiler.get("none", ""),
            flame_graph=profiler.get("flame_graph", "hot"),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"servers.toml: language {name!r} is malformed ({err})") from None


def _one_of(key: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{key} = {value!r}; choose {' or '.join(choices)}")
    return value


def title_of(name: str, languages: Mapping[str, Language]) -> str:
    """A language as a reader knows it; its name when not declared (an older run's)."""
    return languages[name].title if name in languages else name
