"""vegeta: an open-loop HTTP load generator (requests sent on a fixed schedule,
``-rate`` per second, whatever the replies do, by up to ``-max-workers`` workers), on one
load host or spread over several (one attack per host, results merged).

Its output is read by vegeta_output (the JSON report, HDR quantiles, per-request records).
"""

import base64
import json
import math
import secrets
import subprocess
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from benchbook.measure.hosts.addresses import require_allowed
from benchbook.measure.hosts.exposure import LoadHost
from benchbook.measure.params import require_int
from benchbook.measure.tools import Calibration, Capabilities, ToolEntry, VersionPin
from benchbook.measure.tools.base import (
    Job,
    LoadPlan,
    ToolDefaults,
    ToolRun,
    go_binary_version,
    require_exit,
    run_all_to_files,
)
from benchbook.measure.tools.vegeta_output import (
    VegetaError,
    error_counts_from_records,
    max_in_flight,
    parse_hdrplot,
    parse_vegeta_csv,
    parse_vegeta_report,
)
from benchbook.runs.durations import parse_duration
from benchbook.runs.layout import built_tool
from benchbook.runs.limits import number

# An open-loop run is short of its rate when it sent less than this share of it.
RATE_SHORTFALL = 0.95
# vegeta stops after -duration; past this much more (plus its -timeout), it is hung.
DEADLINE_GRACE_S = 15.0


@dataclass(frozen=True)
class OpenLoopLoad:
    """Requests sent on a schedule: ``rate`` per second for ``duration_s``, whatever the
    replies do, by at most ``max_workers`` workers over at most ``max_connections``
    connections (bounded, so an overloaded server cannot exhaust the ephemeral ports)."""

    rate: float
    duration_s: float
    max_workers: int
    max_connections: int
    timeout_s: float

    @classmethod
    def from_params(
        cls, rate: object, duration: object, max_workers: object, max_connections: object,
        timeout: object,
    ) -> "OpenLoopLoad":  # fmt: skip
        try:
            per_second = float(rate)
        except (TypeError, ValueError):
            raise ValueError(f"rate: {rate!r} is not a number of requests per second") from None
        if not per_second > 0:
            raise ValueError(f"rate: {per_second:g} must be above zero")
        load = cls(
            rate=per_second,
            duration_s=parse_duration("duration", duration),
            max_workers=require_int("max_workers", max_workers, 1),
            max_connections=require_int("max_connections", max_connections, 1),
            timeout_s=parse_duration("timeout", timeout),
        )
        if load.max_connections > load.max_workers:
            raise ValueError(
                f"max_connections: {load.max_connections} is more than max_workers "
                f"({load.max_workers}); a worker holds at most one connection"
            )
        return load


def vegeta_path() -> Path:
    return built_tool("vegeta")


def target_count(plan: LoadPlan, requests: float) -> int:
    """Targets to write: one per request when bodies must be unique, else one cycle of
    the mix over every record (vegeta starts again from the first)."""
    if any(r.body and "{unique}" in r.body for r in plan.requests):
        return max(1, math.ceil(requests))
    return len(plan.order()) * max([1, *(len(r.ids) for r in plan.requests)])


def targets_file(url: str, plan: LoadPlan, count: int, path: Path) -> None:
    """``count`` targets in vegeta's JSON format, cycling through the plan's requests by
    weight, ``{id}`` through the records and ``{unique}`` numbered: vegeta sends them in
    order (and starts again from the first if it needs more)."""
    order = plan.order()
    nonce = secrets.token_hex(4)
    with open(path, "w") as out:
        for n in range(count):
            r = plan.requests[order[n % len(order)]]
            target_path = r.path.replace("{id}", r.ids[n % len(r.ids)]) if r.ids else r.path
            target = {
                "method": r.method,
                "url": url + target_path,
                "header": {k: [v] for k, v in r.headers.items()},
            }
            if r.body is not None:
                body = r.body.replace("{unique}", f"{nonce}-{n}")
                target["body"] = base64.b64encode(body.encode()).decode()
            out.write(json.dumps(target) + "\n")


@dataclass(frozen=True)
class Vegeta(ToolDefaults):
    """vegeta as a LoadTool: an open loop at ``load.rate`` requests per second."""

    load: OpenLoopLoad
    name = "vegeta"
    closed_loop = False
    extra_columns = ("target_rate", "achieved_rate", "max_workers", "max_in_flight",
                     "client_cpu_pct_by_host")  # fmt: skip

    @property
    def slug(self) -> str:
        return f"r{self.load.rate:g}"

    def describe(self) -> str:
        return (
            f"vegeta attack -rate {self.load.rate:g}/s -duration {self.load.duration_s:g}s "
            f"-max-workers {self.load.max_workers} -max-connections {self.load.max_connections}"
        )

    def row_fields(self) -> dict[str, object]:
        return {"target_rate": self.load.rate, "max_workers": self.load.max_workers}

    def own_flags(self, row: Mapping[str, object]) -> list[str]:
        """``rate_shortfall``: it sent less than RATE_SHORTFALL of the rate asked
        (the tool, not the schedule, set the load); ``workers_exhausted``: every worker
        it may use waited for a reply at once, so later requests left late."""
        flags = []
        if (number(row.get("achieved_rate")) or 0) < RATE_SHORTFALL * self.load.rate:
            flags.append("rate_shortfall")
        in_flight = number(row.get("max_in_flight"))
        if in_flight and in_flight >= self.load.max_workers:
            flags.append("workers_exhausted")
        return flags

    def run(
        self,
        host: str,
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        """attack → results.bin, then its JSON report and its per-request CSV, all kept."""
        here = LoadHost(host, "127.0.0.1", nullcontext)
        return self.run_spread((here,), plan, raw_prefix, cpus, duration_s)

    def spread_problem(self, load_hosts: int) -> str:
        """Every vegeta load spreads: one attack per host at an equal share of the rate."""
        return ""

    def run_spread(
        self,
        hosts: Sequence[LoadHost],
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        """vegeta's own distributed attack: one attack per load host, all at once, each at
        an equal share of the rate (and of the workers and connections); their binary
        results merged by ``vegeta report``, so the percentiles are exact over every
        request. The client CPU is the hosts' sum (``client_cpu_pct_by_host``: each)."""
        seconds = self.load.duration_s if duration_s is None else duration_s
        raw_prefix.parent.mkdir(parents=True, exist_ok=True)
        n = len(hosts)
        jobs, results = [], []
        for k, host in enumerate(hosts, 1):
            name = raw_prefix.name + (f"_host{k}" if n > 1 else "")
            targets = raw_prefix.with_name(name + "_targets.jsonl")
            rate = self.load.rate / n
            targets_file(require_allowed("host", host.url), plan,
                         target_count(plan, rate * seconds), targets)  # fmt: skip
            results.append(raw_prefix.with_name(name + ".bin"))
            argv = [
                str(vegeta_path()), "attack", "-format", "json", "-targets", str(targets),
                "-rate", f"{rate:g}/s", "-duration", f"{seconds:g}s",
                "-max-workers", str(max(1, self.load.max_workers // n)),
                "-max-connections", str(max(1, self.load.max_connections // n)),
                "-timeout", f"{self.load.timeout_s:g}s", "-redirects", "-1",
                "-output", str(results[-1]),
            ]  # fmt: skip
            jobs.append(Job(argv, raw_prefix.with_name(name + ".log"), None, host.enter))
        deadline = seconds + self.load.timeout_s + DEADLINE_GRACE_S
        finished = run_all_to_files(jobs, cpus, deadline)
        for job, done in zip(jobs, finished, strict=True):
            require_exit(done, "vegeta", job.log_path, VegetaError)
        measured, report = self._merged(results, raw_prefix)
        wall_s = max(done.wall_s for done in finished)
        if n > 1:
            by_host = [f"{100 * done.client_cpu_s / done.wall_s:.1f}" for done in finished]
            measured["client_cpu_pct_by_host"] = ";".join(by_host)
        return ToolRun(measured, wall_s, sum(done.client_cpu_s for done in finished), report)

    def _merged(self, results: list[Path], raw_prefix: Path) -> tuple[dict, Path]:
        """The measurement columns of every results file together (vegeta's JSON report,
        its HDR quantiles and its per-request records), and the report's path."""
        report = raw_prefix.with_name(raw_prefix.name + ".json")
        hdrplot = raw_prefix.with_name(raw_prefix.name + "_hdrplot.txt")
        records = raw_prefix.with_name(raw_prefix.name + ".csv")
        for out, options in ((report, ["report", "-type", "json"]),
                             (hdrplot, ["report", "-type", "hdrplot"]),
                             (records, ["encode", "-to", "csv"])):  # fmt: skip
            with open(out, "w") as f:
                subprocess.run([str(vegeta_path()), *options, *map(str, results)], stdout=f,
                               check=True, timeout=120)  # fmt: skip
        parsed = parse_vegeta_report(report.read_text(errors="replace"))
        measured = {k: v for k, v in parsed.items() if k not in ("throughput", "status_counts")}
        if parsed["requests"] > parsed["err_connect"] + parsed["err_timeout"]:
            measured |= parse_hdrplot(hdrplot.read_text(errors="replace"))
        frame = parse_vegeta_csv(records.read_text(errors="replace"))
        if (frame["code"] == 0).any():
            measured |= error_counts_from_records(frame)
        measured["max_in_flight"] = max_in_flight(frame)
        # Kept: the JSON report and the HDR quantiles. The per-request records (tens of
        # MB at tens of thousands of requests per second) gave the error kinds and the
        # most requests in flight above, and are not kept.
        for path in [*results, records]:
            path.unlink()
        return measured, report


def loads(
    rate: object,
    duration: object,
    max_workers: object = 1000,
    max_connections: object = 100,
    timeout: object = "10s",
) -> list[Vegeta]:
    """vegeta at each rate (requests per second: one, or a list), an open loop."""
    rates = rate if isinstance(rate, list | tuple) else [rate]
    return [
        Vegeta(OpenLoopLoad.from_params(r, duration, max_workers, max_connections, timeout))
        for r in rates
    ]


def vegeta_version() -> str:
    return go_binary_version(vegeta_path())


def calibration_loads(duration: object, rate: object, max_connections: object) -> list[Vegeta]:
    """A rate no server here answers, so the rate vegeta reaches is its own ceiling
    (bounded connections, so it cannot exhaust the ephemeral ports)."""
    return loads(rate, duration, max_workers=max_connections, max_connections=max_connections)


TOOL = ToolEntry(
    name="vegeta",
    make=loads,
    version=vegeta_version,
    installed=vegeta_path,
    pinned=VersionPin("servers/go/tools/go.mod", "github.com/tsenart/vegeta/v12"),
    capabilities=Capabilities(spreads_over_hosts=True),
    calibration=Calibration(
        "go-hello", calibration_loads, {"rate": 60_000, "max_connections": 100}
    ),
    about="open loop: requests on a schedule, whatever the replies do (Go)",
)
