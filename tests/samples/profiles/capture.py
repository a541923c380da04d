"""Re-capture the real profiles tests/test_profiles.py classifies: each server started by
the harness under its profiler (benchbook.measure.profiling), loaded with wrk (ghz for
gRPC) for a few seconds, its folded stacks gzipped here.

Usage: .venv/bin/python tests/samples/profiles/capture.py   (about a minute)
"""

import gzip
import os
import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
WRK = {"connections": 20, "threads": 1, "duration": "2s"}
# (file name, servers, measure.run options, target labels to profile)
CASES = [
    ("hello", ["go-hello", "python-hello"], {}, None),
    ("iodelay", ["go-iodelay", "python-iodelay"],
     {"variants": {"python-iodelay": ["asyncio+h11"]}}, None),
    ("fanout", ["go-fanout"], {"paths": {"go-fanout": ["/sc/9", "/cc/9"]}}, None),
    ("shortener", ["go-shortener", "python-shortener"],
     {"variants": {"go-shortener": ["bolt"], "python-shortener": ["redis"]},
      "requests": {"go-shortener": ["create"], "python-shortener": ["create"]}}, None),
    ("governance-http", ["go-governance-http", "python-governance-http"],
     {"requests": {name: ["HealthCheck"] for name in ("go-governance-http",
                                                      "python-governance-http")}}, None),
]  # fmt: skip


def main() -> None:
    os.environ["BENCHBOOK_RUNS_DIR"] = tempfile.mkdtemp(prefix="benchbook-capture-")
    os.environ["BENCHBOOK_SPEED_REFERENCE"] = "0"
    from benchbook import measure
    from benchbook.measure import profiling

    for _name, servers, options, targets in CASES:
        load = measure.tool("wrk", **WRK)
        run = measure.run(
            measure.Experiment(
                "capture_profiles", servers, load, warmup="0s", repetitions=1, **options
            )
        )
        for row in profiling.profile(run, targets=targets, window="3s"):
            folded = Path(row["folded"])
            with open(folded, "rb") as src, gzip.open(HERE / (folded.name + ".gz"), "wb") as out:
                shutil.copyfileobj(src, out)
            print(f"{folded.name}: {row['samples']} samples, {row['rps_while_profiled']:.0f} req/s")
    shutil.rmtree(os.environ["BENCHBOOK_RUNS_DIR"])


if __name__ == "__main__":
    main()
