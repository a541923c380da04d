"""An experiment's description, as the notebook wrote it, and the plan worked out from it.

``Experiment`` is the one shape an experiment's settings take after the notebook's own
parameters: the notebook builds it (``measure.Experiment(…)``), ``measure.run`` takes it,
the run's manifest stores it as written (``stored()``, read back equal by ``from_stored``)
and its reuse key digests that stored form. Its parts are plain values: a tool's load is
``Load`` (the tool's name and its settings as given to ``measure.tool``), where the
servers and load tools run is ``Hosts`` (``measure.hosts``' arguments).

``RunPlan`` is what the harness worked out from a description before measuring — the
targets, each tool's load with its defaults filled in, the CPUs, the calibration read —
stored beside it, so that the analysis compares runs of different sessions by what they
did, typed, whatever notebook wrote them. Manifests from before descriptions were stored
(schema 1 and 2) are read into both shapes by benchbook.runs.manifest.
"""

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from benchbook.runs.durations import parse_duration


@dataclass(frozen=True)
class Load:
    """One load tool's settings as given: ``Load("wrk", {"connections": 100, "duration":
    "3s"})``; a list sweeps (one load each). ``server``: these loads are for that server
    only (loads given per server, e.g. rates around each server's capacity)."""

    tool: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    server: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", _frozen(dict(self.settings)))


@dataclass(frozen=True)
class Hosts:
    """Where servers and load tools run, as given to ``measure.hosts``: loopback by default."""

    kind: str = "local"
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", _frozen(dict(self.settings)))


LoadsGiven = Load | Sequence["LoadsGiven"] | Mapping[str, "LoadsGiven"]


@dataclass(frozen=True)
class Experiment:
    """Everything one experiment is measured with, as written (see the module's docstring).

    ``loads``: a Load, a list of them (lists are flattened), or a mapping from a server to
    its own loads. ``variants``/``paths``/``requests``/``mix`` pick what each server is
    sent; ``server_params`` a server's declared parameters (a list sweeps). ``verify=False``
    exists for one purpose: reproducing an article that timed failures. ``restart``
    (default) starts every server afresh for each round. ``control``: a target (its label)
    measured a second time in every round, the A/A control. ``profiled``: a profiled phase
    follows (profiling.profile), so its profilers are part of the run's reuse key.
    """

    name: str
    servers: Sequence[str]
    loads: LoadsGiven
    variants: Mapping[str, Sequence[str]] = field(default_factory=dict)
    paths: Mapping[str, Sequence[str]] = field(default_factory=dict)
    requests: Mapping[str, Sequence[str]] = field(default_factory=dict)
    mix: Mapping[str, float] = field(default_factory=dict)
    warmup: str | float = "2s"
    repetitions: int = 5
    server_params: Mapping[str, Any] = field(default_factory=dict)
    records: int = 1
    pin_cpus: bool = True
    verify: bool = True
    restart: bool | None = True  # None: a run from before it was recorded
    control: str | None = None
    hosts: Hosts = field(default_factory=Hosts)
    profiled: bool = False

    def __post_init__(self) -> None:
        """Lists become tuples and loads one flat tuple of Loads, so that a description
        stored and read back is equal to the one written (``servers`` may be 'a,b')."""
        servers = self.servers
        if isinstance(servers, str):
            servers = [s.strip() for s in servers.split(",") if s.strip()]
        object.__setattr__(self, "servers", _frozen(servers))
        object.__setattr__(self, "loads", tuple(_flat_loads(self.loads)))
        for name in ("variants", "paths", "requests", "server_params", "mix"):
            object.__setattr__(self, name, _frozen(getattr(self, name) or {}))

    @property
    def warmup_s(self) -> float:
        return parse_duration("warmup", self.warmup, allow_zero=True)

    def stored(self) -> dict[str, Any]:
        """The description as the manifest stores it (and the reuse key digests it)."""
        return _plain(asdict(self))

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> "Experiment":
        values = dict(stored)
        values["loads"] = [Load(**load) for load in values.get("loads", ())]
        values["hosts"] = Hosts(**values.get("hosts", {}))
        return cls(**values)


@dataclass(frozen=True)
class Pinning:
    """Disjoint CPU sets for the servers and the load tools (None: not pinned)."""

    server_cpus: tuple[int, ...] | None
    load_cpus: tuple[int, ...] | None


@dataclass(frozen=True)
class RunPlan:
    """What the harness worked out from a description (see the module's docstring).
    ``loads``: each tool's load with every setting it has (its defaults filled in, times
    in seconds); ``tools``: the tools' settings as their ceilings are named; ``hosts``:
    None on loopback; ``calibration``: the ceilings' run id and values, once read."""

    targets: tuple[str, ...]
    tools: tuple[str, ...]
    loads: tuple[Mapping[str, Any], ...]
    warmup_s: float
    runs_planned: int | None  # None: a run from before it was recorded, whose params do not say
    server_params: Mapping[str, Mapping[str, Any]]
    pinning: Pinning
    registry: str
    hosts: Mapping[str, Any] | None = None
    calibration: Mapping[str, Any] | None = None

    def stored(self) -> dict[str, Any]:
        return _plain(asdict(self))

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any]) -> "RunPlan":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in stored.items() if k in known}
        pinning = values.get("pinning") or {}
        cpus = [pinning.get(side) for side in ("server_cpus", "load_cpus")]
        values["pinning"] = Pinning(*(tuple(c) if c is not None else None for c in cpus))
        for name in ("targets", "tools", "loads"):
            values[name] = tuple(values.get(name, ()))
        return cls(**values)

    def load_values(self, setting: str) -> list[Any]:
        """The distinct values one load setting took (``duration_s``, ``connections``)."""
        return sorted({load[setting] for load in self.loads if load.get(setting)})


def _flat_loads(given: object) -> list[Load]:
    if isinstance(given, Load):
        return [given]
    if isinstance(given, Mapping):
        return [
            Load(load.tool, load.settings, server)
            for server, loads in given.items()
            for load in _flat_loads(loads)
        ]
    if isinstance(given, str) or not isinstance(given, Sequence):
        raise ValueError(f"loads: {given!r}; give loads made by measure.tool(name, …)")
    return [load for item in given for load in _flat_loads(item)]


def _frozen(value: Any) -> Any:
    """Lists as tuples, all the way down (mappings stay mappings)."""
    if isinstance(value, Mapping):
        return {k: _frozen(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _plain(value: Any) -> Any:
    """Tuples as lists, all the way down: what JSON stores and gives back."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
