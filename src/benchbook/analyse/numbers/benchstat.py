"""benchstat, the Go team's statistics for ``go test -bench`` output, run on a run's raw
outputs: the independent cross-check of this package's own medians and intervals."""

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchbook.runs import outputs
from benchbook.runs.layout import built_tool


class BenchstatError(RuntimeError):
    """benchstat could not read the outputs it was given."""


def benchstat(raw: Mapping[str, Sequence[Path]]) -> str:
    """benchstat's own table over runs of the benchmark binary, one column per label
    (e.g. python, go; each a run's raw outputs, loose or packed): the cross-check of our
    statistics. benchstat wants at least 6 runs of a benchmark for a confidence interval;
    it prints '~' where it finds no significant difference. Its inputs are joined in a
    temporary folder, so a stored run is never written to."""
    with tempfile.TemporaryDirectory(prefix="benchbook-benchstat-") as scratch:
        inputs = []
        for label, paths in raw.items():
            joined = Path(scratch) / f"{label}.txt"
            joined.write_text("".join(outputs.read_text(p) for p in paths))
            inputs.append(f"{label}={joined}")
        done = subprocess.run([str(built_tool("benchstat")), *inputs], capture_output=True,
                              text=True, timeout=120)  # fmt: skip
    if done.returncode != 0:
        raise BenchstatError(f"benchstat failed: {done.stderr}")
    return done.stdout
