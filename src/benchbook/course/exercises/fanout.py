"""Lesson 03's exercises: fan-out's speed-up past the crossover, from each mode's cost per
unit of work, and a busy server's throughput from its CPU time per request."""

from dataclasses import dataclass

import pandas as pd

from benchbook import measure
from benchbook.analyse.experiments.fan_out import label_paths
from benchbook.analyse.numbers import formatting as fmt
from benchbook.course.exercise import Exercise, Outcome, Settings
from benchbook.course.exercises import measuring
from benchbook.runs.store import Run

NOTEBOOK = "03_goroutine_fanout"
SERVER = "go-fanout"
ID = 9  # the notebook's crossover id (every id scans the whole table: all cost the same)


def path(mode: str, work: int) -> str:
    """What a request for ``mode`` (sc or cc) at ``work`` loads: '/cc/9?work=30000'."""
    return f"/{mode}/{ID}?work={work}"


def target(mode: str, work: int) -> str:
    """The target that loads ``path(mode, work)``, as the results name it."""
    return f"{SERVER} {path(mode, work)}"


@dataclass(frozen=True)
class Cost:
    """A request's time as a line in the work it asks for: ``fixed_us`` + ``per_unit_us``
    × work (µs; work = table scans per lookup)."""

    fixed_us: float
    per_unit_us: float

    @classmethod
    def through(cls, small: tuple[int, float], large: tuple[int, float]) -> "Cost":
        """The line through two (work, µs per request) points, measured at a small and a
        large work."""
        (w1, t1), (w2, t2) = small, large
        if w2 <= w1:
            raise ValueError(f"work: {w1} then {w2}; give the smaller work first")
        per_unit = (t2 - t1) / (w2 - w1)
        return cls(t1 - per_unit * w1, per_unit)

    def at(self, work: float) -> float:
        return self.fixed_us + self.per_unit_us * work


def speedup(sequential: Cost, fanned_out: Cost, work: float) -> float:
    """How many times the sequential endpoint's req/s the fanned-out one serves at
    ``work``, one request at a time: the ratio of their times per request."""
    return sequential.at(work) / fanned_out.at(work)


def us_per_request(results: pd.DataFrame) -> pd.Series:
    """µs per request by (mode, work), from rows measured at one connection: one request
    in flight, so Little's law makes the time per request 1 / req/s (median over rounds)."""
    rows = label_paths(results)
    one = rows[rows["connections"] == 1]
    if one.empty:
        raise ValueError(f"no rounds at 1 connection; measured: {sorted(set(rows['connections']))}")
    return 1e6 / one.groupby(["mode", "work"])["rps"].median()


def costs(times: pd.Series, small: int, large: int) -> dict[str, Cost]:
    """Each mode's Cost through its times at ``small`` and ``large`` work."""
    return {
        mode: Cost.through((small, times[(mode, small)]), (large, times[(mode, large)]))
        for mode in ("sc", "cc")
    }


def cores(run: Run) -> int:
    """The CPUs the run's unpinned server could use: the machine's, as its manifest says."""
    return int(run.manifest()["provenance"]["machine"]["cpus_available"])


def saturated_rps(cores: int, cpu_ms_per_request: float) -> float:
    """The most req/s ``cores`` busy cores serve when each request takes
    ``cpu_ms_per_request`` of CPU (the utilization law at 100 %)."""
    if cores < 1 or cpu_ms_per_request <= 0:
        raise ValueError(f"cores {cores}, CPU {cpu_ms_per_request} ms; give 1+ and above 0")
    return cores / (cpu_ms_per_request / 1000)


def fanout_speedup(settings: Settings) -> Outcome:
    """One connection, the server on both cores: /sc and /cc at a small, a large and the
    asked work. The model: each mode's time per request as a line through the small and
    large work (its cost per unit of work), extended to the asked work."""
    small, large, asked = 1000, 10000, 30000
    works = (small, large, asked)
    run = measuring.run(
        "03_fanout_speedup",
        settings,
        servers=[SERVER],
        loads=measure.tool("wrk", connections=1, threads=1, duration=settings.duration),
        paths={SERVER: [path(mode, w) for w in works for mode in ("sc", "cc")]},
        pin_cpus=False,  # fan-out needs a second core
    )
    results = run.results()
    times = us_per_request(results)
    lines = costs(times, small, large)
    per_unit = ", ".join(f"{m} {fmt.significant(lines[m].per_unit_us * 1000, 3)} ns" for m in lines)
    return Outcome(
        measured=measuring.paired_ratio(results, target("cc", asked), target("sc", asked), "rps"),
        model=float(speedup(lines["sc"], lines["cc"], asked)),
        model_name=f"each mode's time per request, a line through work {small:,} and "
        f"{large:,} (per scan: {per_unit}), at work {asked:,}",
        measured_how=f"cc ÷ sc req/s in the same round at work {asked:,}, 1 connection, "
        f"{cores(run)} cores, {measuring.rounds(settings)}",
        run_id=run.run_id,
    )


def busy_server(settings: Settings) -> Outcome:
    """/cc at 32 connections, the server on every core: its req/s beside cores ÷ its CPU
    time per request, that CPU time measured at one connection in the same rounds."""
    work, busy = 30000, 32
    run = measuring.run(
        "03_busy_server",
        settings,
        servers=[SERVER],
        loads=measure.tool("wrk", connections=[1, busy], threads=1, duration=settings.duration),
        paths={SERVER: [path("cc", work)]},
        pin_cpus=False,  # every core for the server (wrk shares them)
    )
    results = run.results()
    cc = target("cc", work)
    cpu_ms = measuring.median(results[results["connections"] == 1], cc, "server_cpu_ms_per_request")
    available = cores(run)
    return Outcome(
        measured=measuring.median(results[results["connections"] == busy], cc, "rps"),
        model=saturated_rps(available, cpu_ms),
        model_name=f"{available} cores ÷ {fmt.significant(cpu_ms, 3)} ms of CPU per request "
        "(measured at 1 connection)",
        measured_how=f"/cc at work {work:,}, {busy} connections, {measuring.rounds(settings)}",
        run_id=run.run_id,
    )


EXERCISES = [
    Exercise(
        key="03.fanout_speedup",
        notebook=NOTEBOOK,
        title="Past the crossover: fan-out's speed-up at 30,000 scans",
        variable="fanout_speedup_x",
        unit="× sc's req/s",
        # The lines through the notebook's work = 1,000 and 10,000 predict within about
        # 15 % (the goroutines' cost per scan still falls past 10,000); Amdahl's ideal for
        # two cores (near 2×) and "no gain" (1×) both land outside 20 %.
        tolerance=0.2,
        explain="two goroutines on two cores should halve the lookups' time, yet cc's cost "
        "per scan is well above half of sc's. What do the two cores share (the machine's "
        "CPUs are virtual: are they whole cores?), what does waking a second one cost, and "
        "why does the gap to the line shrink as the work grows?",
        measure=fanout_speedup,
    ),
    Exercise(
        key="03.busy_server",
        notebook=NOTEBOOK,
        title="A busy server: goroutines at 32 connections",
        variable="busy_cc_rps",
        unit="req/s",
        # Cores ÷ CPU per request is a bound the busy server nearly reaches (wrk takes a
        # little of the cores). Cores ÷ the idle server's time per request (not its CPU
        # time) lands over half too high, one request at a time a fifth or more too low.
        tolerance=0.2,
        explain="at one connection a cc request took less time than CPU (two cores worked "
        "on it); at 32 connections every core is busy anyway. Why does fanning out no longer "
        "shorten anything, and what took the cores' time besides the server?",
        measure=busy_server,
    ),
]
