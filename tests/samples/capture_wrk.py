"""Re-capture the wrk samples the parser tests read, from real servers and real wrk.

Run from the repository root: .venv/bin/python tests/samples/capture_wrk.py
"""

import shutil
import tempfile
from pathlib import Path

from benchbook.measure.registry import Registry, Target
from benchbook.measure.servers import build_server, start_server
from benchbook.measure.tools.wrk import ClosedLoopLoad, run_wrk
from benchbook.runs.layout import REGISTRY_PATH, REPO_ROOT

SAMPLES = Path(__file__).parent / "wrk"
TEST_REGISTRY = REPO_ROOT / "tests" / "servers" / "servers.toml"

# sample name: (registry, server, variant, connections, threads, duration, timeout)
CAPTURES = {
    "normal": (REGISTRY_PATH, "go-iodelay", None, 50, 2, "2s", "2s"),
    "python_asyncio": (REGISTRY_PATH, "python-iodelay", "asyncio+h11", 50, 2, "2s", "2s"),
    "timeouts": (TEST_REGISTRY, "go-slow", None, 10, 1, "3s", "1s"),
    "non_2xx": (TEST_REGISTRY, "status-500", None, 10, 1, "1s", "2s"),
}


def main() -> None:
    SAMPLES.mkdir(exist_ok=True)
    logs = Path(tempfile.mkdtemp())
    for name, (registry_path, server, variant, c, t, d, timeout) in CAPTURES.items():
        spec = Registry.load(registry_path).get(server)
        build_server(spec)
        load = ClosedLoopLoad.from_params(c, t, d, timeout)
        target = Target(server, variant)
        with start_server(spec, target, spec.resolve_params({}), logs / f"{name}.log") as s:
            run_wrk(s.url, load, SAMPLES / f"{name}.txt")
        print(f"captured {name}: {SAMPLES / f'{name}.txt'}")
    shutil.rmtree(logs)


if __name__ == "__main__":
    main()
