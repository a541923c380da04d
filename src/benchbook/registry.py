"""The server registry (servers/servers.toml): what can be measured and how to run it.

Adding a server is one folder plus one entry in the TOML file; nothing here names a
particular server.
"""

import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from benchbook.layout import REGISTRY_PATH, REPO_ROOT
from benchbook.params import as_list, require_choice


@dataclass(frozen=True)
class Endpoint:
    """A URL path and the response it must give before the server is measured."""

    path: str
    status: int
    content_type: str | None = None
    body: str | None = None
    body_pattern: str | None = None


@dataclass(frozen=True)
class Variant:
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ServerParam:
    default: float
    minimum: float


@dataclass(frozen=True)
class ServerSpec:
    name: str
    language: str
    description: str
    dir: Path
    build: tuple[str, ...]
    command: tuple[str, ...]
    env: Mapping[str, str]
    ready_path: str
    params: Mapping[str, ServerParam]
    endpoints: tuple[Endpoint, ...]
    variants: Mapping[str, Variant]

    def resolve_params(self, overrides: Mapping[str, object]) -> dict[str, float]:
        """Defaults updated with ``overrides``, each checked against its minimum."""
        values: dict[str, float] = {k: p.default for k, p in self.params.items()}
        for key, value in overrides.items():
            require_choice(f"server parameter of {self.name}", key, self.params)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{self.name}.{key}: {value!r} is not a number")
            if value < self.params[key].minimum:
                raise ValueError(
                    f"{self.name}.{key}: {value} is below the minimum of {self.params[key].minimum}"
                )
            values[key] = value
        return values


@dataclass(frozen=True)
class Target:
    """One thing to measure: a server in one of its variants (None if it has none)."""

    server: str
    variant: str | None = None

    @property
    def label(self) -> str:
        return f"{self.server} {self.variant}" if self.variant else self.server


def _placeholders(values: Mapping[str, object]) -> dict[str, str]:
    def text(value: object) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    base = {"python": sys.executable, "root": str(REPO_ROOT)}
    return base | {k: text(v) for k, v in values.items()}


def fill(template: Iterable[str], values: Mapping[str, object]) -> list[str]:
    """Substitute {port}, {python}, {root} and server parameters into a command."""
    subs = _placeholders(values)
    try:
        return [part.format(**subs) for part in template]
    except KeyError as missing:
        raise ValueError(f"servers.toml uses placeholder {missing} that has no value") from None


class Registry:
    def __init__(self, servers: Mapping[str, ServerSpec], path: Path):
        self.servers = dict(servers)
        self.path = path

    @classmethod
    def load(cls, path: Path = REGISTRY_PATH) -> "Registry":
        with open(path, "rb") as f:
            raw = tomllib.load(f)
        return cls(
            {name: _parse_server(name, entry) for name, entry in raw["servers"].items()}, path
        )

    def get(self, name: str) -> ServerSpec:
        require_choice("server", name, self.servers)
        return self.servers[name]

    def targets(
        self, servers: object, variants: Mapping[str, object] | None = None
    ) -> list[Target]:
        """Expand server names into targets; a server with variants gets the chosen ones,
        or all of them when none are chosen."""
        chosen = dict(variants or {})
        targets: list[Target] = []
        for name in as_list("servers", servers):
            spec = self.get(name)
            if not spec.variants:
                if chosen.get(name):
                    raise ValueError(f"variants: {name} has no variants")
                targets.append(Target(name))
                continue
            names = (
                as_list(f"variants of {name}", chosen[name]) if name in chosen else spec.variants
            )
            for variant in names:
                require_choice(f"variant of {name}", variant, spec.variants)
                targets.append(Target(name, variant))
        for name in chosen:
            if name not in {t.server for t in targets}:
                raise ValueError(f"variants: given for {name!r}, which is not among the servers")
        return targets


def _parse_server(name: str, entry: Mapping) -> ServerSpec:
    try:
        return ServerSpec(
            name=name,
            language=entry["language"],
            description=entry.get("description", ""),
            dir=REPO_ROOT / entry["dir"],
            build=tuple(entry.get("build", ())),
            command=tuple(entry["command"]),
            env=dict(entry.get("env", {})),
            ready_path=entry.get("ready_path", "/"),
            params={
                key: ServerParam(default=p["default"], minimum=p.get("min", 0))
                for key, p in entry.get("params", {}).items()
            },
            endpoints=tuple(Endpoint(**e) for e in entry["endpoints"]),
            variants={
                v: Variant(args=tuple(spec.get("args", ())), env=dict(spec.get("env", {})))
                for v, spec in entry.get("variants", {}).items()
            },
        )
    except (KeyError, TypeError) as err:
        raise ValueError(f"servers.toml: entry {name!r} is malformed ({err})") from None
