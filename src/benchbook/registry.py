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
    """One thing to measure: a server, in one of its variants (None if it has none),
    loaded on one path (None: the first endpoint of its registry entry)."""

    server: str
    variant: str | None = None
    path: str | None = None

    @property
    def label(self) -> str:
        return " ".join(part for part in (self.server, self.variant, self.path) if part)


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
        self,
        servers: object,
        variants: Mapping[str, object] | None = None,
        paths: Mapping[str, object] | None = None,
    ) -> list[Target]:
        """Expand server names into targets: a server with variants gets the chosen ones
        (all when none are chosen); a server with ``paths`` gets one target per path."""
        chosen_variants, chosen_paths = dict(variants or {}), dict(paths or {})
        names = as_list("servers", servers)
        specs = {name: self.get(name) for name in names}
        for option, chosen in (("variants", chosen_variants), ("paths", chosen_paths)):
            for name in chosen:
                if name not in names:
                    raise ValueError(
                        f"{option}: given for {name!r}, which is not among the servers"
                    )
        targets: list[Target] = []
        for name, spec in specs.items():
            if name in chosen_variants and not spec.variants:
                raise ValueError(f"variants: {name} has no variants")
            server_variants: list[str | None] = (
                as_list(f"variants of {name}", chosen_variants[name])
                if name in chosen_variants
                else list(spec.variants) or [None]
            )
            server_paths: list[str | None] = (
                [_load_path(name, p) for p in as_list(f"paths of {name}", chosen_paths[name])]
                if name in chosen_paths
                else [None]
            )
            for variant in server_variants:
                if variant is not None:
                    require_choice(f"variant of {name}", variant, spec.variants)
                targets.extend(Target(name, variant, path) for path in server_paths)
        return targets


def _load_path(server: str, path: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"paths of {server}: {path!r} must start with '/', e.g. '/cc/9'")
    return path


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
