"""The server registry (servers/servers.toml): what can be measured and how to run it.

Adding a server is one folder plus one entry in the TOML file; nothing here names a
particular server. An entry says how to build and start the server, which services it
needs (Redis, started first on a port of its own), and the requests it must answer —
each a method, a path, headers and a body, with the response it must give — which
verification, re-verification after load and every load tool read alike.
"""

import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from benchbook.measure.languages import LanguageSpec, Toolchain, language_of, registry_languages
from benchbook.measure.load_paths import LoadPaths, checked_path
from benchbook.measure.params import SettingError, as_list, require_choice
from benchbook.measure.record_store import Records
from benchbook.runs.layout import REGISTRY_PATH, REPO_ROOT
from benchbook.runs.server_waits import Waits

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")


@dataclass(frozen=True)
class Expect:
    """The response a request must get. ``json`` maps a field of a JSON object to
    'type:string' (or integer, number, boolean, object, array), a template such as
    '{sent.url}' or '{record.id}', or a literal; ``headers`` map a header to a template
    or a literal."""

    status: int
    content_type: str | None = None
    body: str | None = None
    body_pattern: str | None = None
    json: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GrpcSpec:
    """A gRPC server's API: the .proto (for ghz) and the generated Python module whose
    descriptors give verification the messages (no code generator at run time)."""

    proto: str
    descriptors: str


@dataclass(frozen=True)
class Request:
    """One request a server answers. ``path`` may hold ``{id}``: the id of a record the
    harness created first (see Records); ``body`` may hold ``{unique}``: a value no
    other request of the run sends (a new URL to shorten, say)."""

    name: str
    method: str  # an HTTP method, or GRPC: path is then "package.Service/Method"
    path: str
    expect: Expect  # for GRPC: status is the gRPC code (0: OK), json the response's fields
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None  # for GRPC: the request message as JSON
    grpc: "GrpcSpec | None" = None  # where a GRPC request's messages are described

    @property
    def needs_record(self) -> bool:
        templates = [self.path, *self.expect.json.values(), *self.expect.headers.values()]
        return any("{id}" in t or "{record." in t for t in templates)

    @property
    def unique_body(self) -> bool:
        return self.body is not None and "{unique}" in self.body

    @property
    def writes(self) -> bool:
        return self.method in WRITE_METHODS


@dataclass(frozen=True)
class Variant:
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    # Experiment factors this variant stands for (columns of their own in the results).
    factors: Mapping[str, object] = field(default_factory=dict)
    # Parameters of the services this variant's instance runs with.
    services: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    waits: Waits | None = None  # the server's own unless the variant declares one


@dataclass(frozen=True)
class ServerParam:
    default: float
    minimum: float


@dataclass(frozen=True)
class ServiceSpec:
    """A program a server depends on (e.g. Redis), started before it on its own loopback
    port; ``kind`` names how the harness talks to it (see benchbook.measure.services)."""

    name: str
    kind: str
    command: tuple[str, ...]
    params: Mapping[str, str]


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
    requests: tuple[Request, ...]
    variants: Mapping[str, Variant]
    services: tuple[str, ...] = ()
    records: Records | None = None
    factors: Mapping[str, object] = field(default_factory=dict)
    grpc: GrpcSpec | None = None  # a gRPC server: ready when it accepts a connection
    title: str = ""  # the name a reader knows, e.g. "Go net/http"
    load_paths: LoadPaths | None = None  # None: any ad-hoc path (verification checks it)
    toolchain: Toolchain | None = None  # what its build needs on PATH (its language's)
    waits: Waits | None = None  # a wait it adds to each request (a sleep), if any

    def request(self, name: str) -> Request:
        found = {r.name: r for r in self.requests}
        require_choice("requests", name, found, of=self.name)
        return found[name]

    def resolve_params(self, overrides: Mapping[str, object]) -> dict[str, float]:
        """Defaults updated with ``overrides``, each checked against its minimum."""
        values: dict[str, float] = {k: p.default for k, p in self.params.items()}
        for key, value in overrides.items():
            require_choice("server_params", key, self.params, of=self.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise SettingError(key, f"{value!r} is not a number ({self.name})")
            if value < self.params[key].minimum:
                raise SettingError(
                    key,
                    f"{value} is below the minimum of {self.params[key].minimum} for {self.name}",
                )
            values[key] = value
        return values


@dataclass(frozen=True)
class Target:
    """One thing to measure: a server, in one of its variants (None if it has none),
    loaded with one of its requests (by name) or on an ad-hoc GET path (None for both:
    its first request), with server parameters that differ between targets (a sweep
    over uvicorn workers, say)."""

    server: str
    variant: str | None = None
    path: str | None = None
    request: str | None = None
    params: tuple[tuple[str, object], ...] = ()
    # A weighted mix of requests (by name) instead of one: ((name, weight), …).
    mix: tuple[tuple[str, float], ...] = ()
    # A second name for the same target, measured as if it were another one in the same
    # rounds: the A/A control, whose differences are the setup's own noise.
    copy: str = ""

    @property
    def instance(self) -> "Target":
        """The server process this target runs on: same server, variant and params."""
        return Target(self.server, self.variant, params=self.params)

    def with_mix(self, mix: tuple[tuple[str, float], ...]) -> "Target":
        return Target(self.server, self.variant, params=self.params, mix=mix, copy=self.copy)

    @property
    def label(self) -> str:
        settings = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.params]
        mix = (
            "mix " + " ".join(f"{name}:{weight:g}" for name, weight in self.mix) if self.mix else ""
        )
        parts = (self.server, self.variant, *settings, self.request, self.path, mix, self.copy)
        return " ".join(part for part in parts if part)


def _placeholders(values: Mapping[str, object]) -> dict[str, str]:
    def text(value: object) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    base = {"python": sys.executable, "root": str(REPO_ROOT)}
    return base | {k: text(v) for k, v in values.items()}


def fill(template: Iterable[str], values: Mapping[str, object]) -> list[str]:
    """Substitute {port}, {python}, {root}, server parameters, {<service>_port} and
    {data_dir} into a command."""
    subs = _placeholders(values)
    try:
        return [part.format(**subs) for part in template]
    except KeyError as missing:
        raise ValueError(f"servers.toml uses placeholder {missing} that has no value") from None


class Registry:
    def __init__(
        self,
        servers: Mapping[str, ServerSpec],
        path: Path,
        services: Mapping[str, ServiceSpec] | None = None,
        languages: Mapping[str, LanguageSpec] | None = None,
    ):
        self.servers = dict(servers)
        self.services = dict(services or {})
        self.languages = dict(languages or {})
        self.path = path

    @classmethod
    def load(cls, path: Path = REGISTRY_PATH) -> "Registry":
        with open(path, "rb") as f:
            raw = tomllib.load(f)
        services = {
            name: _parse_service(name, entry) for name, entry in raw.get("services", {}).items()
        }
        languages = registry_languages(raw, path)
        servers = {n: _parse_server(n, entry, languages) for n, entry in raw["servers"].items()}
        for spec in servers.values():
            for service in spec.services:
                if service not in services:
                    raise ValueError(
                        f"{path}: {spec.name} needs service {service!r}, which has no "
                        f"[services.{service}] entry; have {', '.join(services) or 'none'}"
                    )
        return cls(servers, path, services, languages)

    def merged(self, other: "Registry") -> "Registry":
        """This registry with another's servers and services added (tests combine the
        real servers with misbehaving ones)."""
        return Registry(
            {**self.servers, **other.servers}, other.path, {**self.services, **other.services},
            {**self.languages, **other.languages},
        )  # fmt: skip

    def get(self, name: str) -> ServerSpec:
        require_choice("servers", name, self.servers)
        return self.servers[name]

    def service(self, name: str) -> ServiceSpec:
        require_choice("service", name, self.services)
        return self.services[name]

    def targets(
        self,
        servers: object,
        variants: Mapping[str, object] | None = None,
        paths: Mapping[str, object] | None = None,
        requests: Mapping[str, object] | None = None,
        sweeps: Mapping[str, Mapping[str, list[object]]] | None = None,
    ) -> list[Target]:
        """Expand server names into targets: a server with variants gets the chosen ones
        (all when none are chosen); one target per chosen request (by name) and per
        ad-hoc path; one per value of each swept server parameter."""
        chosen = {
            "variants": dict(variants or {}),
            "paths": dict(paths or {}),
            "requests": dict(requests or {}),
            "sweeps": dict(sweeps or {}),
        }
        names = as_list("servers", servers)
        specs = {name: self.get(name) for name in names}
        for option, given in chosen.items():
            for name in given:
                if name not in names:
                    raise SettingError(
                        option, f"given for {name!r}, which is not among the servers"
                    )
        targets: list[Target] = []
        for name, spec in specs.items():
            if name in chosen["variants"] and not spec.variants:
                raise SettingError("variants", f"{name} has no variants")
            server_variants: list[str | None] = (
                as_list("variants", chosen["variants"][name])
                if name in chosen["variants"]
                else list(spec.variants) or [None]
            )
            loads: list[tuple[str | None, str | None]] = [
                (None, checked_path(spec.name, spec.load_paths, p))
                for p in _chosen(chosen["paths"], name, "paths")
            ] + [
                (spec.request(r).name, None) for r in _chosen(chosen["requests"], name, "requests")
            ]
            settings = _sweep_settings(name, spec, chosen["sweeps"].get(name, {}))
            for variant in server_variants:
                if variant is not None:
                    require_choice("variants", variant, spec.variants, of=name)
                for params in settings:
                    targets.extend(
                        Target(name, variant, path, request, params)
                        for request, path in loads or [(None, None)]
                    )
        return targets


def _chosen(given: Mapping[str, object], server: str, option: str) -> list[str]:
    return as_list(option, given[server]) if server in given else []


def _sweep_settings(
    server: str, spec: ServerSpec, sweeps: Mapping[str, list[object]]
) -> list[tuple[tuple[str, object], ...]]:
    """Every combination of the swept parameters' values ([()] when none is swept)."""
    settings: list[tuple[tuple[str, object], ...]] = [()]
    for key, values in sweeps.items():
        require_choice(f"swept parameter of {server}", key, spec.params)
        if not isinstance(values, list | tuple) or not values:
            raise ValueError(f"sweep of {server}.{key}: give a non-empty list, e.g. [1, 2, 4]")
        settings = [(*s, (key, v)) for s in settings for v in values]
    return settings


def _parse_request(server: str, entry: Mapping, grpc: GrpcSpec | None) -> Request:
    method = entry.get("method", "GET").upper()
    path = entry["path"]
    expect = dict(entry["expect"])
    if method == "GRPC" and grpc is None:
        raise ValueError(f"{server}: a GRPC request needs the server's grpc table")
    return Request(
        name=entry.get("name", f"{method} {path}"),
        method=method,
        path=path,
        expect=Expect(**expect),
        headers=dict(entry.get("headers", {})),
        body=entry.get("body"),
        grpc=grpc if method == "GRPC" else None,
    )


def _parse_service(name: str, entry: Mapping) -> ServiceSpec:
    try:
        return ServiceSpec(
            name=name,
            kind=entry["kind"],
            command=tuple(entry["command"]),
            params={k: str(v) for k, v in entry.get("params", {}).items()},
        )
    except (KeyError, TypeError) as err:
        raise ValueError(f"servers.toml: service {name!r} is malformed ({err})") from None


def _parse_server(name: str, entry: Mapping, languages: Mapping[str, LanguageSpec]) -> ServerSpec:
    language = language_of(name, entry.get("language", ""), languages)
    try:
        records = entry.get("records")
        grpc = GrpcSpec(**entry["grpc"]) if "grpc" in entry else None
        return ServerSpec(
            name=name,
            language=entry["language"],
            description=entry.get("description", ""),
            dir=REPO_ROOT / entry["dir"],
            build=tuple(entry.get("build", language.build)),
            command=tuple(entry["command"]),
            env=dict(entry.get("env", {})),
            ready_path=entry.get("ready_path", "/"),
            params={
                key: ServerParam(default=p["default"], minimum=p.get("min", 0))
                for key, p in entry.get("params", {}).items()
            },
            requests=tuple(_parse_request(name, r, grpc) for r in entry["requests"]),
            variants={
                v: Variant(
                    args=tuple(spec.get("args", ())),
                    env=dict(spec.get("env", {})),
                    factors=dict(spec.get("factors", {})),
                    services={s: dict(p) for s, p in spec.get("services", {}).items()},
                    waits=Waits.from_entry(spec.get("waits")),
                )
                for v, spec in entry.get("variants", {}).items()
            },
            services=tuple(entry.get("services", ())),
            records=Records(**records) if records else None,
            factors=dict(entry.get("factors", {})),
            grpc=grpc,
            title=entry.get("title", ""),
            load_paths=LoadPaths.from_entry(entry.get("load_paths")),
            toolchain=language.toolchain,
            waits=Waits.from_entry(entry.get("waits")),
        )
    except (KeyError, TypeError) as err:
        raise ValueError(f"servers.toml: entry {name!r} is malformed ({err})") from None
