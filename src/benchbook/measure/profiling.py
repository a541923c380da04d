"""A profiled phase: where each headline server's CPU time goes under load, recorded
after an experiment's measured rounds and never mixed into their numbers.

Each profiled target's server is started afresh through the harness's normal path
(services, start, verification), under a real profiler, given the load of its first
measured configuration for a short window, and stopped. Its rows go to the run's
``profiled.csv`` (req/s *while profiled*: the profiler's overhead shows against the
measured rounds), its profiles to ``profiles/<target>.folded`` (folded stacks, one
``frame;frame;… count`` line per stack, root first; frames are ``function (file)``
for both languages) and ``profiles/<target>.svg`` (a flame graph by inferno).

The profilers, one module per language in ``measure/profilers/``:

- Python servers run as py-spy's child (``py-spy record --subprocesses -- <command>``):
  no ptrace permission is needed, and uvicorn's or gunicorn's workers are included.
  py-spy samples the whole process tree's life, start-up included; idle threads are
  not sampled, and the analysis sets start-up (import) stacks apart.
- Go servers serve the runtime's own profiler on a loopback side port (``-pprof``, see
  servers/go/internal/profiling); a CPU profile is fetched over the load's window and
  turned into folded stacks with ``go tool pprof -raw``.

A notebook calls ``profiling.profile(run, targets=…, window=…)`` with the run
``measure.run(…, profiled=True)`` returned: that run carries its experiment's plan
(servers, loads, pinning), which the phase starts from, and its reuse key holds this
module and the profilers of its servers' languages.
``BENCHBOOK_PROFILED_PHASE=0`` skips the phase (a stored profiled phase is still read).
"""

import csv
import math
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

from benchbook.measure.experiment_plan import Config, ExperimentPlan, PlannedRun
from benchbook.measure.instances import slug, start_instance
from benchbook.measure.pinning import Pinning
from benchbook.measure.profilers.go import GoPprof
from benchbook.measure.profilers.perf import PerfRecord
from benchbook.measure.profilers.python import PySpy
from benchbook.measure.registry import ServerSpec
from benchbook.measure.rounds import verify_instance
from benchbook.measure.run_store import Run
from benchbook.measure.targets import load_plan
from benchbook.measure.tools.base import LoadPlan
from benchbook.runs.durations import parse_duration
from benchbook.runs.layout import BUILD_BIN, repo_relative
from benchbook.runs.runlock import machine_lock

PROFILED_CSV = "profiled.csv"
PROFILES_DIR = "profiles"
FLAMEGRAPH = BUILD_BIN / "inferno-flamegraph"  # built by `make setup` (Makefile)
SWITCH = "BENCHBOOK_PROFILED_PHASE"
STARTUP_FRAME = "(<frozen importlib._bootstrap"  # a Python stack still importing modules
# The profilers a language may declare (servers.toml), by the name each gives itself.
PROFILERS = {profiler.name: profiler for profiler in (PySpy, GoPprof, PerfRecord)}


def profile(run: Run, targets: Sequence[str] | None = None, window: object = "3s") -> list[dict]:
    """The profiled phase of ``run`` (see the module's docstring): one row per target in
    ``targets`` (labels; default: every target but A/A copies and multi-server tools),
    each loaded for ``window`` (whole seconds). A phase stored with the run is read back,
    not measured again."""
    stored = run.path / PROFILED_CSV
    if stored.exists():
        print(f"{run.run_id}: profiled phase read from {PROFILED_CSV}", flush=True)
        return read_rows(stored)
    if os.environ.get(SWITCH, "1") == "0":
        print(f"profiled phase skipped ({SWITCH}=0)", flush=True)
        return []
    if not isinstance(run, PlannedRun):
        raise ValueError(
            f"profile: {run.run_id} has no profiled phase, and it was not measured with "
            "measure.run in this session; call measure.run first"
        )
    if not run.experiment_plan.profiled:
        raise ValueError(
            f"profile: {run.run_id} was planned without a profiled phase; pass "
            "profiled=True to its Experiment, so that its profilers are part of the run's reuse "
            "key (a stored run then stands in only with the profilers it was profiled with)"
        )
    if (hosts := run.experiment_plan.hosts).kind != "local":
        raise ValueError(
            f"profile: {run.run_id} ran on {hosts.kind} hosts; the profiled phase runs "
            "servers on this machine only (loopback), so its profiles would not be of that run"
        )
    window_s = parse_duration("window", window)
    if window_s < 1 or window_s != int(window_s):
        raise ValueError(f"window: {window_s:g} s; load tools take whole seconds, e.g. '3s'")
    chosen = chosen_configs(run.experiment_plan.configs, targets)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    with machine_lock(f"{run.manifest()['experiment']} (profiled phase)") as lock:
        lock.name_run(run.run_id)
        rows = [profile_one(run, run.experiment_plan, config, window_s) for config in chosen]
    write_rows(stored, rows)
    run.update_manifest(profiled_phase={
        "started_utc": started, "window_s": window_s, "targets": [r["target"] for r in rows],
        "rows": PROFILED_CSV, "profiles": PROFILES_DIR, "profilers": profiler_versions(rows),
        "flame_graphs": renderer_version(),
    })  # fmt: skip
    return rows


def window_for(duration: object, at_most_s: int = 3) -> str:
    """A profiled window as long as the measured runs' ``duration``, at most
    ``at_most_s`` and at least a second (whole seconds: '3s')."""
    seconds = parse_duration("duration", duration)
    return f"{max(1, min(at_most_s, math.floor(seconds)))}s"


def chosen_configs(configs: Sequence[Config], targets: Sequence[str] | None) -> list[Config]:
    """The first configuration of each profiled target, in ``targets``' order."""
    firsts: dict[str, Config] = {}
    for config in configs:
        if config.target.copy or config.together:
            continue  # an A/A copy is the same server; Go's benchmarks load several at once
        firsts.setdefault(config.target.label, config)
    if targets is None:
        return list(firsts.values())
    for label in targets:
        if label not in firsts:
            raise ValueError(
                f"targets: {label!r} cannot be profiled; valid choices: {', '.join(firsts)}"
            )
    return [firsts[label] for label in dict.fromkeys(targets)]


def profile_one(run: Run, plan: ExperimentPlan, config: Config, window_s: float) -> dict:
    """One target: started afresh under its profiler, verified, loaded, stopped; or, when
    its language declares no profiler, a row that says why."""
    target = config.target
    spec = plan.specs[target.server]
    language = plan.registry.languages[spec.language].declared
    if not language.profiler:
        return unprofiled(plan, config, spec, window_s, language.unprofiled_because)
    profiler = profiler_for(spec, language.profiler)
    if why := profiler.unavailable():
        return unprofiled(plan, config, spec, window_s, why)
    out = run.path / PROFILES_DIR
    out.mkdir(exist_ok=True)
    prefix = out / slug(target.label)
    print(f"profiled: {target.label} under {profiler.name}, {config.tool.describe()}, "
          f"{window_s:g} s", flush=True)  # fmt: skip
    with ExitStack() as stack:
        wrapped, extra = profiler.wrap(spec, prefix)
        params = {**plan.params_of(target), **extra}
        instance = start_instance(stack, plan.registry, wrapped, target.instance, params,
                                  out, plan.pinning.server_cpus)  # fmt: skip
        if plan.verify:
            verify_instance(instance, [target], plan.records)
        instance.reset(plan.records)
        load = load_plan(instance, target, plan.sends[target], None)
        with profiler.recording(instance, prefix, window_s):
            measured = load_for(config, instance.server.url, load, prefix, plan.pinning, window_s)
        profiler.finish(instance)
    folded = profiler.folded(prefix)
    stacks = folded.read_text().splitlines() if folded.exists() else []
    svg = flame_graph(folded, f"{target.label} under load ({profiler.name})", language.flame_graph)
    return {
        "experiment": plan.name, "target": target.label,
        "server": target.server, "language": spec.language, "tool": config.tool.name,
        "load": config.tool.describe(), "window_s": window_s,
        "rps_while_profiled": measured.get("rps"),
        "lat_p99_ms_while_profiled": measured.get("lat_p99_ms"),
        "requests_while_profiled": measured.get("requests"), "load_runs": measured["runs"],
        "profiler": profiler.name, "profiler_version": profiler.version(),
        "profiler_errors": profiler.errors(instance.server.log_path),
        "samples": sum(int(line.rsplit(" ", 1)[1]) for line in stacks if " " in line),
        "folded": repo_relative(folded), "svg": repo_relative(svg) if svg else "",
    }  # fmt: skip


def unprofiled(
    plan: ExperimentPlan, config: Config, spec: ServerSpec, window_s: float, why: str
) -> dict:
    """The row of a target that is not profiled: its language declares no profiler, or
    the one it declares cannot run here; ``why`` says which."""
    print(f"not profiled: {config.target.label}: {why}", flush=True)
    target = config.target
    return {
        "experiment": plan.name, "target": target.label, "server": target.server,
        "language": spec.language, "tool": config.tool.name, "load": config.tool.describe(),
        "window_s": window_s, "profiler": "", "unprofiled_because": why, "samples": 0,
        "folded": "", "svg": "",
    }  # fmt: skip


def load_for(
    config: Config, url: str, plan: LoadPlan, prefix: Path, pinning: Pinning, window_s: float
) -> dict[str, float | None]:
    """The configuration's load for ``window_s``: one run of a tool that takes a duration;
    repeated runs of one that counts calls (ghz) until the window is filled. Returns req/s
    (over all the runs' time), the runs' median p99 and the requests sent."""
    started, runs = time.monotonic(), []
    while not runs or time.monotonic() - started < window_s:
        raw = prefix.with_name(f"{prefix.name}_load{len(runs) + 1:02d}")
        runs.append(config.tool.run(url, plan, raw, pinning.load_cpus, duration_s=window_s))
    wall = sum(r.wall_s for r in runs)
    p99s = sorted(float(r.measured["lat_p99_ms"]) for r in runs
                  if r.measured.get("lat_p99_ms") is not None)  # fmt: skip
    return {
        "rps": sum(float(r.measured.get("rps") or 0) * r.wall_s for r in runs) / wall,
        "lat_p99_ms": p99s[len(p99s) // 2] if p99s else None,
        "requests": sum(int(r.measured.get("requests") or 0) for r in runs),
        "runs": len(runs),
    }


def profiler_for(spec: ServerSpec, name: str) -> PySpy | GoPprof | PerfRecord:
    """The profiler its language declares (servers.toml), by name."""
    if name not in PROFILERS:
        raise ValueError(
            f"{spec.name}: language {spec.language!r} declares profiler {name!r}; the harness "
            f'has {", ".join(PROFILERS)} (or declare none = "<why>")'
        )
    return PROFILERS[name]()


def flame_graph(folded: Path, title: str, palette: str) -> Path | None:
    """The folded stacks as an SVG flame graph (inferno-flamegraph, in its language's
    ``palette``), or None when inferno is not built or there is nothing to draw."""
    if not FLAMEGRAPH.exists() or not folded.exists() or not folded.read_text().strip():
        return None
    svg = folded.with_suffix(".svg")
    # Start-up (imports: py-spy samples the server from its start) is left out, as the
    # analysis leaves it out of the shares: the graph is of the load.
    stacks = "".join(
        line for line in folded.read_text().splitlines(keepends=True) if STARTUP_FRAME not in line
    )
    if not stacks.strip():
        return None
    with open(svg, "wb") as out:
        subprocess.run([str(FLAMEGRAPH), "--title", title, "--countname", "samples",
                        "--colors", palette, "--hash", "--minwidth", "1", "--no-javascript"],
                       input=stacks.encode(), stdout=out, check=True)  # fmt: skip
    return svg


def renderer_version() -> str:
    if not FLAMEGRAPH.exists():
        return "none (inferno-flamegraph not built: make setup)"
    # inferno-flamegraph has no --version: the Makefile's stamp names what it built.
    stamps = sorted(BUILD_BIN.glob(".inferno-*"))
    return (
        f"inferno-flamegraph {stamps[-1].name.removeprefix('.inferno-')}"
        if stamps
        else ("inferno-flamegraph (version unknown)")
    )


def profiler_versions(rows: Sequence[Mapping[str, object]]) -> dict[str, str]:
    return {str(r["language"]): str(r["profiler_version"]) for r in rows if r["profiler"]}


def write_rows(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    fields = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def read_rows(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
