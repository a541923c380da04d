"""The names a reader knows for the registry's servers and variants: the ``title`` and
``language`` of each in servers.toml, and the waits each declares (which the rule of what
set a rate reads for runs stored before their rows recorded them). The report names what
runs measured by them; the harness's registry (benchbook.measure.registry) reads the rest
of the file, how to build, start and check a server, which the report does not need."""

import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from benchbook.runs.layout import REGISTRY_PATH
from benchbook.runs.server_waits import Waits


@dataclass(frozen=True)
class Titled:
    title: str  # e.g. "Go net/http"; '' when the registry gives none
    language: str
    variants: dict[str, str] = field(default_factory=dict)  # variant → its title or ''
    waits: Waits | None = None
    variant_waits: dict[str, Waits] = field(default_factory=dict)


@dataclass(frozen=True)
class Titles:
    servers: dict[str, Titled]

    @classmethod
    def load(cls, path: Path = REGISTRY_PATH) -> "Titles":
        """The registry's titles and waits, parsed once per version of the file: every
        stored run's rows ask (runs.limits)."""
        return _parsed(path, path.stat().st_mtime_ns)

    @classmethod
    def parse(cls, path: Path) -> "Titles":
        with open(path, "rb") as f:
            raw = tomllib.load(f)["servers"]
        return cls(
            {
                name: Titled(
                    entry.get("title", ""),
                    entry["language"],
                    {v: spec.get("title", "") for v, spec in entry.get("variants", {}).items()},
                    Waits.from_entry(entry.get("waits")),
                    {
                        v: waits
                        for v, spec in entry.get("variants", {}).items()
                        if (waits := Waits.from_entry(spec.get("waits")))
                    },  # fmt: skip
                )
                for name, entry in raw.items()
            }
        )

    def title(self, server: str, variant: str | None = None) -> str:
        """The variant's title, else the server's (and the variant's name), else the
        registry's names."""
        titled = self.servers[server]
        base = titled.title or server
        return (variant and titled.variants.get(variant)) or (
            f"{base} {variant}" if variant else base
        )

    def waits(self, server: str, variant: str | None = None) -> Waits | None:
        """The wait a server's variant declares, else the server's (None: none, or a
        server the registry no longer has)."""
        titled = self.servers.get(server)
        if titled is None:
            return None
        return (variant and titled.variant_waits.get(variant)) or titled.waits


@functools.lru_cache(maxsize=4)
def _parsed(path: Path, mtime_ns: int) -> Titles:
    return Titles.parse(path)
