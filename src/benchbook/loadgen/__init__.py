"""Load generators: one module per tool, each producing the same tidy measurement.

A tool object (``Wrk``, ``Locust``) holds one validated load and knows how to run it
against ``host + path``, leaving its raw output on disk before parsing it.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class ToolRun:
    measured: dict[str, float | int | None]  # the measurement columns of a tidy row
    wall_s: float
    client_cpu_s: float
    raw_path: Path


class LoadTool(Protocol):
    name: str
    load: Any  # the validated load, a dataclass (stored in the run's manifest)
    closed_loop: bool  # a fixed number of requests in flight (Little's law applies)

    @property
    def slug(self) -> str: ...  # e.g. "c100", "u1000": names raw files

    def describe(self) -> str: ...  # the load, for progress lines

    def row_fields(self) -> dict[str, object]: ...  # connections/threads or users

    def client_cores(self, available: int) -> int: ...  # cores the tool can use at most

    def run(
        self,
        host: str,
        path: str,
        raw_prefix: Path,
        cpus: tuple[int, ...] | None,
        duration_s: float | None = None,
    ) -> ToolRun: ...
