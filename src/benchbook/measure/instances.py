"""A server as a run uses it: its process, the services it needs, a data folder of its
own and the records created for its requests.

Each instance gets its own services (a Redis per server variant, on its own port), so
that variants never share state; before every measured run the services are emptied and
fresh records created, so every repetition starts from the same store.
"""

import json
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from benchbook.measure.hosts.exposure import Exposure
from benchbook.measure.registry import Registry, ServerSpec, Target
from benchbook.measure.servers import RunningServer, free_port, start_server
from benchbook.measure.services import RunningService, start_service
from benchbook.measure.verification import Record, ad_hoc_get, create_records, send

if TYPE_CHECKING:  # tools import this module: no import back at run time
    from benchbook.measure.tools.base import LoadPlan, LoadTool, ToolRun


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


@dataclass(frozen=True)
class StoreCount:
    """What a server's count request says: records held, and write commits so far."""

    records: int | None
    commits: int | None


@dataclass
class Instance:
    target: Target  # the server, variant and swept parameters (no request)
    spec: ServerSpec
    server: RunningServer
    services: dict[str, RunningService] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    exposed: Exposure | None = None  # how load hosts reach it (None: loopback)
    params: Mapping[str, float] = field(default_factory=dict)  # the server's, as started

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def load_url(self) -> str:
        return self.exposed.url if self.exposed else self.server.url

    def load_with(
        self,
        tool: "LoadTool",
        plan: "LoadPlan",
        raw_prefix: Path,
        cpus: tuple[int, ...] | None,
        duration_s: float | None = None,
    ) -> "ToolRun":
        """``tool``'s run against this instance from its load host, or spread over its
        load hosts when there are several (the tool's run_spread)."""
        hosts = self.exposed.load_hosts if self.exposed else ()
        if len(hosts) > 1:
            return tool.run_spread(hosts, plan, raw_prefix, cpus, duration_s=duration_s)
        # Started on the load host: there, its sockets and processes belong to that host.
        with hosts[0].enter() if hosts else nullcontext():
            return tool.run(self.load_url, plan, raw_prefix, cpus, duration_s=duration_s)

    @property
    def factors(self) -> dict[str, object]:
        """The experiment factors this instance stands for: the server's own, its
        variant's, and the parameters swept across instances."""
        variant = self.spec.variants[self.target.variant] if self.target.variant else None
        return {
            **self.spec.factors,
            **(variant.factors if variant else {}),
            **dict(self.target.params),
        }

    def waits(self, requests: Sequence[str]) -> tuple[str, float]:
        """What this instance waits per request of a load of ``requests``, and for how
        many ms (server_waits; ('', 0) for none): its variant's declaration, else its
        server's."""
        variant = self.spec.variants[self.target.variant] if self.target.variant else None
        declared = (variant.waits if variant else None) or self.spec.waits
        return declared.resolved(self.params, requests) if declared else ("", 0.0)

    def reset(self, records: int) -> None:
        """Before a measured run: empty every service, then create ``records`` records
        (when the server can create any), so each run starts from the same store."""
        for service in self.services.values():
            service.client.empty()
        wanted = records if self.spec.records else 0
        self.records = create_records(self.port, self.spec, wanted) if wanted else []

    def store_count(self) -> StoreCount:
        """The server's count request (records.count_path), if it has one."""
        spec = self.spec.records
        if spec is None or spec.count_path is None:
            return StoreCount(None, None)
        fields = json.loads(send(self.port, ad_hoc_get(spec.count_path)).body)
        commits = fields.get(spec.commits_field) if spec.commits_field else None
        return StoreCount(fields.get(spec.count_field), commits)


def needed_services(spec: ServerSpec, target: Target) -> dict[str, Mapping[str, str]]:
    """Service name → the parameters this instance runs it with."""
    variant = spec.variants[target.variant] if target.variant else None
    wanted: dict[str, Mapping[str, str]] = {name: {} for name in spec.services}
    if variant:
        wanted |= variant.services
    return wanted


def start_instance(
    stack: ExitStack,
    registry: Registry,
    spec: ServerSpec,
    target: Target,
    params: Mapping[str, float],
    log_dir: Path,
    cpus: tuple[int, ...] | None,
) -> Instance:
    """Services first, each on a port of its own, then the server with their ports; all
    stopped (and the data folder removed) when ``stack`` closes."""
    name = slug(target.label)
    data_dir = Path(tempfile.mkdtemp(prefix=f"benchbook-{name}-"))
    stack.callback(shutil.rmtree, data_dir, ignore_errors=True)
    services = {}
    for service, service_params in needed_services(spec, target).items():
        services[service] = stack.enter_context(
            start_service(
                registry.service(service),
                service_params,
                free_port(),
                data_dir / service,
                log_dir / f"{name}_{service}.log",
                cpus,
            )
        )
    placeholders = {f"{s}_port": running.port for s, running in services.items()}
    server = stack.enter_context(
        start_server(
            spec,
            target,
            params,
            log_path=log_dir / f"{name}.log",
            cpus=cpus,
            placeholders={**placeholders, "data_dir": data_dir},
        )
    )
    return Instance(target, spec, server, services, params=dict(params))
