"""CPU and memory of a process tree while a load runs (psutil)."""

import threading
import time
from dataclasses import dataclass

import numpy as np
import psutil

SAMPLE_INTERVAL_S = 0.1
# A timeline must reach this close to both ends of a stretch it is asked about.
COVERAGE_SLACK_S = 1.0

CpuTimeline = list[tuple[float, float]]  # (Unix time, CPU seconds used so far)


@dataclass(frozen=True)
class ResourceUse:
    cpu_pct: float  # percent of one core, summed over the tree (200 = two full cores)
    peak_rss_mb: float


class SamplerError(RuntimeError):
    """CPU/memory sampling stopped or does not cover what it is asked about: the numbers
    it would give are wrong, so none are given."""


class TreeSampler:
    """Samples a process and its descendants (uvicorn workers, forked Locust workers).

    CPU time is read at start and stop, so it is exact for processes alive at both
    ends. Every ``SAMPLE_INTERVAL_S`` the tree's RSS (the peak is kept) and its CPU
    time so far (a timeline, to measure a stretch of the run) are sampled.
    """

    def __init__(self, pid: int):
        self._root = psutil.Process(pid)
        self._peak_rss = 0
        self.cpu_timeline: CpuTimeline = []
        self.process_timelines: dict[int, CpuTimeline] = {}  # each process's own
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _tree(self) -> list[psutil.Process]:
        try:
            return [self._root, *self._root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def _cpu_seconds(self) -> dict[int, float]:
        seconds = {}
        for proc in self._tree():
            try:
                times = proc.cpu_times()
                seconds[proc.pid] = times.user + times.system
            except psutil.NoSuchProcess:
                pass
        return seconds

    def _sample(self) -> None:
        try:
            while not self._stop.is_set():
                rss, cpu, now = 0, 0.0, time.time()
                for proc in self._tree():
                    try:
                        with proc.oneshot():
                            rss += proc.memory_info().rss
                            times = proc.cpu_times()
                    except psutil.NoSuchProcess:
                        continue
                    cpu += times.user + times.system
                    own = self.process_timelines.setdefault(proc.pid, [])
                    own.append((now, times.user + times.system))
                self._peak_rss = max(self._peak_rss, rss)
                self.cpu_timeline.append((now, cpu))
                self._stop.wait(SAMPLE_INTERVAL_S)
        except BaseException as error:  # reported by __exit__: a silent stop would
            self._error = error  # make every later CPU figure too low

    def __enter__(self) -> "TreeSampler":
        self._start_cpu = self._cpu_seconds()
        self._start_wall = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._end_cpu = self._cpu_seconds()
        self._wall = time.monotonic() - self._start_wall
        self._stop.set()
        self._thread.join()
        if self._error is not None and exc[0] is None:
            raise SamplerError(
                f"sampling process {self._root.pid} stopped early: {self._error!r}"
            ) from self._error

    @property
    def usage(self) -> ResourceUse:
        used = sum(cpu - self._start_cpu.get(pid, 0.0) for pid, cpu in self._end_cpu.items())
        return ResourceUse(
            cpu_pct=100 * used / self._wall if self._wall > 0 else 0.0,
            peak_rss_mb=self._peak_rss / 2**20,
        )


def sampler_for(process: object) -> TreeSampler:
    """The sampler of a ManagedProcess: psutil's here, its host's for one on another
    machine (hosts.remote samples on the server host itself)."""
    host = getattr(process, "host", None)
    return host.sampler(process) if host is not None else TreeSampler(process.pid)  # type: ignore[attr-defined]


def cpu_seconds_between(timeline: CpuTimeline, start: float, end: float) -> float:
    """CPU seconds a sampled tree used between two Unix times, interpolating linearly
    between the samples around each end. A timeline that does not reach both ends
    (interpolation would silently clamp) is an error."""
    if (
        not timeline
        or timeline[0][0] > start + COVERAGE_SLACK_S
        or (timeline[-1][0] < end - COVERAGE_SLACK_S)
    ):
        covered = f"{timeline[0][0]:.1f}–{timeline[-1][0]:.1f}" if timeline else "nothing"
        raise SamplerError(
            f"CPU samples cover {covered}, not the stretch {start:.1f}–{end:.1f} asked about"
        )
    times = [t for t, _ in timeline]
    cpus = [c for _, c in timeline]
    return float(np.interp(end, times, cpus) - np.interp(start, times, cpus))


def busiest_process_pct(
    timelines: dict[int, CpuTimeline], start: float, end: float
) -> float | None:
    """The busiest single process between two Unix times, in percent of one core, of the
    processes sampled over the whole stretch: a single-threaded worker (Locust's) is at
    its limit at one core whatever its tree's total is. None when none covers it."""
    shares = []
    for timeline in timelines.values():
        try:
            shares.append(100 * cpu_seconds_between(timeline, start, end) / (end - start))
        except SamplerError:
            continue  # started or ended inside the stretch
    return max(shares, default=None)


def host_cpu_jiffies() -> tuple[int, int]:
    """(steal, total) CPU time of the whole machine so far, from /proc/stat.

    Steal is time the hypervisor gave this VM's CPUs to someone else: on a shared
    host it can halve what every process here gets, whatever the benchmark does.
    """
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    steal = fields[7] if len(fields) > 7 else 0
    return steal, sum(fields[:8])  # guest time is already counted in user time


def steal_pct(before: tuple[int, int], after: tuple[int, int]) -> float:
    """Share of the machine's CPU time stolen between two host_cpu_jiffies() readings."""
    total = after[1] - before[1]
    return 100 * (after[0] - before[0]) / total if total > 0 else 0.0
