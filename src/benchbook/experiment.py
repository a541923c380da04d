"""One experiment, end to end: servers up, verified, warmed up, measured in turns.

Everything a notebook passes in is validated before the first process starts, and
every measurement is on disk (raw output, then its row) before the next one begins.
"""

import os
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import asdict, dataclass

from benchbook import checks
from benchbook.layout import repo_relative
from benchbook.loadgen.wrk import parse_wrk_output, run_wrk, wrk_command, wrk_path
from benchbook.params import ClosedLoopLoad, parse_duration, require_int
from benchbook.registry import Registry, ServerSpec, Target
from benchbook.results import Run
from benchbook.sampling import TreeSampler
from benchbook.servers import RunningServer, build_server, start_server, verify_server


@dataclass(frozen=True)
class Pinning:
    """Disjoint CPU sets for servers and the load tool (None: not pinned).

    Pinning a Go server also sets its GOMAXPROCS, which the runtime derives from the
    CPU affinity it starts with.
    """

    server_cpus: tuple[int, ...] | None
    load_cpus: tuple[int, ...] | None


def plan_pinning(pin_cpus: bool) -> Pinning:
    cpus = sorted(os.sched_getaffinity(0))
    if not pin_cpus or len(cpus) < 2:
        return Pinning(None, None)
    half = len(cpus) // 2
    return Pinning(tuple(cpus[:half]), tuple(cpus[half:]))


def split_server_params(
    specs: Mapping[str, ServerSpec], server_params: Mapping[str, object]
) -> dict[str, dict[str, float]]:
    """Give each server the parameters it declares; a name no server declares is an error."""
    declared = {key for spec in specs.values() for key in spec.params}
    for key in server_params:
        if key not in declared:
            raise ValueError(
                f"server_params: {key!r} is not a parameter of {', '.join(specs)}; "
                f"valid choices: {', '.join(sorted(declared))}"
            )
    return {
        name: spec.resolve_params({k: v for k, v in server_params.items() if k in spec.params})
        for name, spec in specs.items()
    }


def run_wrk_experiment(
    experiment: str,
    servers: object,
    variants: Mapping[str, object] | None = None,
    *,
    connections: object,
    threads: object,
    duration: object,
    timeout: object = "2s",
    warmup: object = "2s",
    repetitions: object = 5,
    server_params: Mapping[str, object] | None = None,
    pin_cpus: bool = True,
    registry: Registry | None = None,
) -> Run:
    """Measure every target with wrk, ``repetitions`` times, interleaved A B C A B C …

    Interleaving makes drift on a shared machine hit every server alike instead of
    whichever happened to run last.
    """
    registry = registry or Registry.load()
    targets = registry.targets(servers, variants)
    load = ClosedLoopLoad.from_params(connections, threads, duration, timeout)
    warmup_s = parse_duration("warmup", warmup, allow_zero=True)
    if warmup_s and (warmup_s < 1 or warmup_s != int(warmup_s)):
        raise ValueError(f"warmup: {warmup_s:g} s; wrk takes whole seconds (0 to skip warm-up)")
    reps = require_int("repetitions", repetitions, 1)
    specs = {t.server: registry.get(t.server) for t in targets}
    params_by_server = split_server_params(specs, server_params or {})
    pinning = plan_pinning(bool(pin_cpus))
    wrk_path()  # fail now, not after the servers started, if wrk is missing

    run = Run.create(
        experiment,
        params={
            "targets": [t.label for t in targets],
            "tool": "wrk",
            "load": asdict(load),
            "warmup_s": warmup_s,
            "repetitions": reps,
            "server_params": params_by_server,
            "pinning": asdict(pinning),
            "registry": repo_relative(registry.path),
        },
    )
    for spec in specs.values():
        build_server(spec)
    with ExitStack() as stack:
        running = []
        for target in targets:
            spec = specs[target.server]
            server = start_server(
                spec,
                target,
                params_by_server[target.server],
                log_path=run.path / "servers" / f"{_slug(target)}.log",
                cpus=pinning.server_cpus,
            )
            stack.enter_context(server)
            running.append(server)
        for server in running:
            verify_server(server)
        run.update_manifest(
            servers={
                s.target.label: {"command": s.process.argv, "log": repo_relative(s.log_path)}
                for s in running
            }
        )
        if warmup_s:
            for server in running:
                print(f"warm-up {server.target.label}: {warmup_s:g} s", flush=True)
                run_wrk(
                    _load_url(server),
                    load,
                    run.raw_path(f"warmup_{_slug(server.target)}.txt"),
                    cpus=pinning.load_cpus,
                    duration_s=warmup_s,
                )
        total = reps * len(running)
        for rep in range(1, reps + 1):
            for i, server in enumerate(running):
                step = (rep - 1) * len(running) + i + 1
                print(
                    f"[{step}/{total}] {server.target.label} repetition {rep}/{reps}: "
                    + " ".join(wrk_command(_load_url(server), load)[1:5]),
                    flush=True,
                )
                row = measure_wrk_run(run, server, load, rep, pinning)
                run.append(row)
                print(
                    f"    {row['rps']:,.0f} req/s, p99 {row['lat_p99_ms'] or float('nan'):.2f} ms"
                    + (f"  [{row['flags']}]" if row["flags"] else ""),
                    flush=True,
                )
    return run


def _slug(target: Target) -> str:
    return target.label.replace(" ", "_").replace("+", "-")


def _load_url(server: RunningServer) -> str:
    return server.url + server.spec.endpoints[0].path


def measure_wrk_run(
    run: Run, server: RunningServer, load: ClosedLoopLoad, rep: int, pinning: Pinning
) -> dict[str, object]:
    """One wrk invocation → one tidy row, raw output saved before it is parsed."""
    raw_path = run.raw_path(f"rep{rep:02d}_{_slug(server.target)}.txt")
    with TreeSampler(server.process.pid) as sampler:
        wrk = run_wrk(_load_url(server), load, raw_path, cpus=pinning.load_cpus)
    measured = parse_wrk_output(raw_path.read_text(errors="replace"))
    usage = sampler.usage
    row: dict[str, object] = {
        "experiment": run.manifest()["experiment"],
        "repetition": rep,
        "server": server.target.server,
        "language": server.spec.language,
        "variant": server.target.variant or "",
        "endpoint": server.spec.endpoints[0].path,
        "tool": "wrk",
        "connections": load.connections,
        "threads": load.threads,
        **measured,
        "server_cpu_pct": round(usage.cpu_pct, 1),
        "server_rss_mb": round(usage.peak_rss_mb, 1),
        "client_cpu_pct": round(100 * wrk.client_cpu_s / wrk.wall_s, 1),
        "raw_path": repo_relative(raw_path),
    }
    client_cores = min(load.threads, len(pinning.load_cpus or os.sched_getaffinity(0)))
    row["flags"] = ";".join(checks.flags_for(row, client_cores, closed_loop=True))
    return row
