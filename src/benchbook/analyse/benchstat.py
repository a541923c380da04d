"""benchstat, the Go team's statistics for ``go test -bench`` output, run on a run's raw
outputs: the independent cross-check of this package's own medians and intervals."""

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchbook.runs.layout import built_tool


class BenchstatError(RuntimeError):
    """benchstat could not read the outputs it was given."""


def benchstat(outputs: Mapping[str, Sequence[Path]], scratch: Path) -> str:
    """benchstat's own table over runs of the benchmark binary, one column per label
    (e.g. python, go): the cross-check of our statistics. benchstat wants at least 6
    runs of a benchmark for a confidence interval; it prints '~' where it finds no
    significant difference."""
    scratch.mkdir(parents=True, exist_ok=True)
    inputs = []
    for label, paths in outputs.items():
        joined = scratch / f"{label}.txt"
        joined.write_text("".join(p.read_text(errors="replace") for p in paths))
        inputs.append(f"{label}={joined}")
    done = subprocess.run([str(built_tool("benchstat")), *inputs], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    if done.returncode != 0:
        raise BenchstatError(f"benchstat failed: {done.stderr}")
    return done.stdout
