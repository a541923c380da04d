"""One load-tool invocation → one tidy row, raw output saved before it is parsed.

The store is reset first (services emptied, records created). The server's responses
are sampled during the run and every request re-verified after it: wrong answers flag
the row ``bad_response``. A run that created records is checked for lost ones
(``data_loss``). A server that exits during the run gives a row flagged ``server_died``
that says what happened; its numbers, if the tool produced any, are kept but never
ranked.
"""

import os
import time
from contextlib import ExitStack
from pathlib import Path

import psutil

from benchbook.measure import data_loss, foreign_cpu
from benchbook.measure.experiment_plan import Config, ExperimentPlan
from benchbook.measure.flags import flags_for
from benchbook.measure.instances import Instance, StoreCount
from benchbook.measure.pinning import Pinning
from benchbook.measure.registry import Request, Target
from benchbook.measure.run_store import Run
from benchbook.measure.sampling import (
    SamplerError,
    cpu_seconds_between,
    host_cpu_jiffies,
    sampler_for,
    steal_pct,
)
from benchbook.measure.servers import died_message
from benchbook.measure.targets import load_plan
from benchbook.measure.tools.base import LoadPlan, LoadToolError, ToolRun
from benchbook.measure.verification import ResponseSampler, all_problems, request_problems
from benchbook.runs.layout import repo_relative
from benchbook.runs.limits import Limit, limit_columns

Row = dict[str, object]


def measure_run(
    run: Run,
    plan: ExperimentPlan,
    instance: Instance,
    config: Config,
    rep: int,
    busy_at_start: float = 0.0,
) -> Row:
    """The row of one repetition of one configuration (see the module's docstring).
    ``busy_at_start``: what other work used of the CPU when measuring began, if the
    machine had not settled (machine_check), which every row then carries."""
    sends = plan.sends[config.target]
    requests = [r for r, _ in sends]
    row = identity_columns(plan.name, instance, config, rep, requests)
    if not instance.server.process.running():
        return row | died(instance, f"the pause before repetition {rep}")
    raw_prefix = run.raw_path(f"rep{rep:02d}_{config.slug}")
    capture_dir = raw_prefix.with_name(raw_prefix.name + "_created")
    instance.reset(plan.records)
    load = load_plan(instance, config.target, sends, capture_dir)
    before = instance.store_count() if load.capture_status else None
    pinning, ceilings = plan.pinning, plan.measured_ceilings
    try:
        result, usage, problems_during = _loaded(instance, config, load, requests, raw_prefix,
                                                 pinning)  # fmt: skip
    except (LoadToolError, SamplerError, psutil.NoSuchProcess):
        if instance.server.process.running():
            raise
        return row | died(instance, f"repetition {rep}")
    row |= usage | {
        "headroom": ceilings.headroom(config.tool.setting, float(result.measured["rps"] or 0)),
        "raw_path": repo_relative(result.raw_path),
    }
    row |= context_columns(plan, instance, config, requests, busy_at_start)
    flags = flags_for(
        row,
        int(row["client_cores"]),
        config.tool.closed_loop,
        ceiling_is_tools=config.tool.setting in ceilings.tool_bound,
    ) + config.tool.own_flags(row)
    if instance.exposed and instance.exposed.network_bound(row.get("bytes_per_s")):
        flags.append("network_bound")
    row |= limit_columns(row | {"flags": ";".join(flags)})
    if row["limit"] == Limit.MACHINE:
        flags.append("busy_machine")
    if not instance.server.process.running():
        return row | died(instance, f"repetition {rep}", flags)
    incidents = []
    if before is not None:
        row |= _data_loss_columns(instance, config.target, rep, capture_dir, before, row, flags,
                             incidents)  # fmt: skip
    _wrong_answers(instance, config.target, rep, problems_during, flags, incidents)
    return row | {"incident": " ".join(incidents), "flags": ";".join(flags)}


def context_columns(
    plan: ExperimentPlan,
    instance: Instance,
    config: Config,
    requests: list[Request],
    busy_at_start: float = 0.0,
) -> Row:
    """What the rule of what set a rate reads beyond the measurements (runs.limits): the
    cores the server and the tool may use, the waits the server and the link add."""
    pinning = plan.pinning
    everything = len(os.sched_getaffinity(0))
    waits, delay_ms = instance.waits([r.name for r in requests])
    return {
        "server_cores": len(pinning.server_cpus or ()) or everything,
        "client_cores": config.tool.client_cores(len(pinning.load_cpus or ()) or everything),
        "cpus_shared": not pinning.server_cpus,
        "server_waits": waits,
        "server_delay_ms": delay_ms,
        "link_rtt_ms": plan.hosts.link.added_rtt_ms if plan.hosts.kind != "local" else 0,
        "busy_at_start": busy_at_start,
    }


def identity_columns(
    experiment: str, instance: Instance, config: Config, rep: int, requests: list[Request]
) -> Row:
    """What the row is about: the experiment, the target, its factors, the tool's load."""
    target = config.target
    return {
        "experiment": experiment,
        "repetition": rep,
        "target": target.label,
        "server": target.server,
        "language": instance.spec.language,
        "variant": target.variant or "",
        "request": "+".join(r.name for r in requests),
        "method": "+".join(dict.fromkeys(r.method for r in requests)),
        "endpoint": "+".join(r.path for r in requests),
        "tool": config.tool.name,
        "tool_setting": config.tool.setting,
        **instance.factors,
        **config.tool.row_fields(),
    }


def _loaded(
    instance: Instance,
    config: Config,
    plan: LoadPlan,
    requests: list[Request],
    raw_prefix: Path,
    pinning: Pinning,
) -> tuple[ToolRun, Row, list[str]]:
    """The tool's run, with the server, its services and the host's CPU sampled and the
    server's answers checked about once a second: (the run, its resource columns, the
    wrong answers seen during it)."""
    sampled = _sampled_request(instance, requests)
    host_before, machine_before, started = (
        host_cpu_jiffies(),
        foreign_cpu.snapshot(),
        time.monotonic(),
    )
    with ExitStack() as samplers:
        server = samplers.enter_context(sampler_for(instance.server.process))
        services = [
            samplers.enter_context(sampler_for(s.process)) for s in instance.services.values()
        ]
        watch = samplers.enter_context(
            ResponseSampler(
                lambda: (
                    request_problems(instance.port, sampled, instance.records) if sampled else []
                ),
                instance.server.process.running,
            )
        )
        result = instance.load_with(config.tool, plan, raw_prefix, pinning.load_cpus)
    foreign = foreign_cpu.foreign_use(machine_before, foreign_cpu.snapshot(),
                                      time.monotonic() - started)  # fmt: skip
    server_cpu_s = server.usage.cpu_pct / 100 * result.wall_s
    loaded_s = result.wall_s
    if result.load_phase:
        start, end = result.load_phase
        server_cpu_s, loaded_s = cpu_seconds_between(server.cpu_timeline, start, end), end - start
    requests = float(result.measured.get("requests") or 0)
    usage: Row = {
        **result.measured,
        "server_cpu_pct": round(100 * server_cpu_s / loaded_s, 1),
        # What a request costs the server, whatever the machine's speed did to req/s.
        "server_cpu_ms_per_request": round(1000 * server_cpu_s / requests, 4) if requests else None,
        "server_rss_mb": round(server.usage.peak_rss_mb, 1),
        "client_cpu_pct": round(100 * result.client_cpu_s / result.wall_s, 1),
        "host_steal_pct": round(steal_pct(host_before, host_cpu_jiffies()), 1),
        # Other work on the machine while the tool ran: a woken server waits behind it.
        "foreign_cpu_pct": foreign.cpu_pct,
        "foreign_processes": foreign.processes_text(),
    }
    if result.busiest_process_pct is not None:
        usage["client_cpu_busiest_pct"] = round(result.busiest_process_pct, 1)
    if services:
        usage["service_cpu_pct"] = round(sum(s.usage.cpu_pct for s in services), 1)
        usage["service_rss_mb"] = round(sum(s.usage.peak_rss_mb for s in services), 1)
    return result, usage, watch.problems


def _sampled_request(instance: Instance, plan_requests: list[Request]) -> Request | None:
    """What to check during a run: a loaded request that writes nothing, else any
    registry request that writes nothing (checks must not add records)."""
    for request in [*plan_requests, *instance.spec.requests]:
        if not request.writes:
            return request
    return None


def _data_loss_columns(
    instance: Instance,
    target: Target,
    rep: int,
    capture_dir: Path,
    before: StoreCount,
    row: Row,
    flags: list[str],
    incidents: list[str],
) -> Row:
    """The data-loss columns of a run that created records; flags and incidents grow."""
    after = instance.store_count()
    slack = int(row.get("connections") or row.get("users") or 0)
    found = data_loss.lost_records(instance, capture_dir, before, after, slack)
    columns = found.columns()
    if before.commits is not None and after.commits is not None and row["requests"]:
        columns["store_commits_per_request"] = round(
            (after.commits - before.commits) / float(row["requests"]), 3
        )
    if found.problems:
        flags.append("data_loss")
        incidents.append(
            f"{target.label} lost data in repetition {rep}: " + "; ".join(found.problems)
        )
    return columns


def _wrong_answers(
    instance: Instance,
    target: Target,
    rep: int,
    during: list[str],
    flags: list[str],
    incidents: list[str],
) -> None:
    """Every request verified again after the run; wrong answers flag ``bad_response``."""
    paths = [target.path] if target.path else []
    problems = during + [
        f"after the run: {p}"
        for p in all_problems(instance.port, instance.spec, paths, instance.records)
    ]
    if problems:
        flags.append("bad_response")
        incidents.append(
            f"{target.label} served wrong responses in repetition {rep} "
            f"(verification passed before the load): " + "; ".join(problems)
        )


def died(instance: Instance, during: str, flags: list[str] = ()) -> Row:
    return {
        "flags": ";".join([*flags, "server_died"]),
        "incident": died_message(instance.server, during),
    }
