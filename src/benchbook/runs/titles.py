"""The names a reader knows for the registry's servers and variants: the ``title`` and
``language`` of each in servers.toml. The report names what runs measured by them; the
harness's registry (benchbook.measure.registry) reads the rest of the file, how to build,
start and check a server, which the report does not need."""

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from benchbook.runs.layout import REGISTRY_PATH


@dataclass(frozen=True)
class Titled:
    title: str  # e.g. "Go net/http"; '' when the registry gives none
    language: str
    variants: dict[str, str] = field(default_factory=dict)  # variant → its title or ''


@dataclass(frozen=True)
class Titles:
    servers: dict[str, Titled]

    @classmethod
    def load(cls, path: Path = REGISTRY_PATH) -> "Titles":
        with open(path, "rb") as f:
            raw = tomllib.load(f)["servers"]
        return cls(
            {
                name: Titled(
                    entry.get("title", ""),
                    entry["language"],
                    {v: spec.get("title", "") for v, spec in entry.get("variants", {}).items()},
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
