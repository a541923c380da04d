"""What an experiment measures: its targets (server, variant, request or mix, swept
server parameters), each server's fixed parameters, the requests a target sends as a
load plan, and the columns its rows add to the core ones."""

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from benchbook.measure import data_loss
from benchbook.measure.instances import Instance
from benchbook.measure.params import as_list
from benchbook.measure.registry import Registry, Request, ServerSpec, Target
from benchbook.measure.tools.base import LoadPlan, LoadRequest, LoadTool
from benchbook.measure.verification import ad_hoc_get

SERVICE_COLUMNS = ["service_cpu_pct", "service_rss_mb"]


def split_server_params(
    specs: Mapping[str, ServerSpec], server_params: Mapping[str, object]
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, list[object]]]]:
    """Give each server the parameters it declares: fixed values, checked, and swept
    ones (a list, e.g. workers [1, 2, 4]: one server instance per value, the parameter a
    factor column of the results). A name no server declares is an error."""
    declared = {key for spec in specs.values() for key in spec.params}
    for key in server_params:
        if key not in declared:
            raise ValueError(
                f"server_params: {key!r} is not a parameter of {', '.join(specs)}; "
                f"valid choices: {', '.join(sorted(declared))}"
            )
    fixed: dict[str, dict[str, float]] = {}
    sweeps: dict[str, dict[str, list[object]]] = {}
    for name, spec in specs.items():
        own = {k: v for k, v in server_params.items() if k in spec.params}
        swept = {k: list(v) for k, v in own.items() if isinstance(v, list | tuple)}
        for key, values in swept.items():
            for value in values:
                spec.resolve_params({key: value})  # each value checked now
        fixed[name] = spec.resolve_params({k: v for k, v in own.items() if k not in swept})
        if swept:
            sweeps[name] = swept
    return fixed, sweeps


def select_targets(
    registry: Registry,
    servers: object,
    variants: Mapping[str, object] | None,
    paths: Mapping[str, object] | None,
    requests: Mapping[str, object] | None,
    mix: Mapping[str, float] | None,
    server_params: Mapping[str, object] | None,
) -> tuple[list[Target], dict[str, dict[str, float]]]:
    """The targets an experiment measures, and each server's fixed parameters."""
    names = as_list("servers", servers)
    specs = {name: registry.get(name) for name in names}
    fixed, sweeps = split_server_params(specs, server_params or {})
    targets = registry.targets(names, variants, paths, requests, sweeps)
    if mix:
        weights = {name: float(weight) for name, weight in dict(mix).items()}
        for spec in specs.values():
            for name in weights:
                spec.request(name)
        if any(w <= 0 for w in weights.values()):
            raise ValueError(f"mix: {mix!r}; every weight must be above zero")
        targets = list(dict.fromkeys(Target(t.server, t.variant, params=t.params) for t in targets))
        targets = [t.with_mix(tuple(weights.items())) for t in targets]
    return targets, fixed


def extra_columns(registry: Registry, targets: list[Target], tools: list[LoadTool]) -> list[str]:
    """The columns an experiment adds to the core ones: a column per factor, what its
    tools measure beyond the core, the data-loss counts of write runs, the services'
    CPU and memory."""
    columns: list[str] = []
    for target in targets:
        spec = registry.get(target.server)
        variant = spec.variants[target.variant] if target.variant else None
        columns += [*spec.factors, *(variant.factors if variant else {}), *dict(target.params)]
    for tool in tools:
        columns += list(tool.extra_columns)
    if any(captures(registry.get(t.server), loaded_requests(registry.get(t.server), t))
           for t in targets):  # fmt: skip
        columns += [*data_loss.COLUMNS, "store_commits_per_request"]
    if any(needed for t in targets for needed in services_of(registry, t)):
        columns += SERVICE_COLUMNS
    return list(dict.fromkeys(columns))


def services_of(registry: Registry, target: Target) -> list[str]:
    spec = registry.get(target.server)
    variant = spec.variants[target.variant] if target.variant else None
    return [*spec.services, *(variant.services if variant else {})]


def loaded_requests(spec: ServerSpec, target: Target) -> list[tuple[Request, float]]:
    """What a target sends: its mix, its request, its ad-hoc path, or the first request."""
    if target.path:
        return [(ad_hoc_get(target.path), 1.0)]
    if target.mix:
        return [(spec.request(name), weight) for name, weight in target.mix]
    return [(spec.request(target.request) if target.request else spec.requests[0], 1.0)]


def captures(spec: ServerSpec, sends: Iterable[tuple[Request, float]]) -> bool:
    """Whether a target that sends ``sends`` creates records, so its runs get the
    data-loss check."""
    return spec.records is not None and any(r.name == spec.records.create for r, _ in sends)


def load_plan(
    instance: Instance,
    target: Target,
    sends: Sequence[tuple[Request, float]],
    capture_dir: Path | None,
) -> LoadPlan:
    """The target's requests (``sends``) as load tools send them, on the instance's records."""
    ids = tuple(r.id for r in instance.records)
    plan = tuple(
        LoadRequest(
            name=target.path or request.name,
            method=request.method,
            path=request.path,
            headers=dict(request.headers),
            body=request.body,
            ids=ids if "{id}" in request.path else (),
            expected_status=request.expect.status,
            weight=weight,
            proto=request.grpc.proto if request.grpc else None,
        )
        for request, weight in sends
    )
    if not captures(instance.spec, sends):
        return LoadPlan(plan)
    create = instance.spec.request(instance.spec.records.create)
    return LoadPlan(plan, capture_status=create.expect.status, capture_dir=capture_dir)
