"""Re-capture the Locust samples the parser tests read, from real servers and Locust.

Run from the repository root: .venv/bin/python tests/samples/capture_locust.py
The runs use --json-file as well as --json so the tests can show why the driver reads
stdout: with --processes, a worker's empty array overwrites the master's file.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

from benchbook.measure.registry import Registry, Target
from benchbook.measure.servers import build_server, start_server
from benchbook.measure.tools.base import get_plan
from benchbook.measure.tools.locust import LOCUSTFILE, plan_json
from benchbook.runs.layout import REGISTRY_PATH, REPO_ROOT

SAMPLES = Path(__file__).parent / "locust"
TEST_REGISTRY = REPO_ROOT / "tests" / "servers" / "servers.toml"

# sample name: (registry, server, server params, user class, extra Locust arguments)
CAPTURES = {
    "all_ok": (REGISTRY_PATH, "go-iodelay", {"delay_ms": 0}, "FastHttpUserPlan", []),
    "failures": (TEST_REGISTRY, "status-500", {}, "HttpUserPlan", []),
    "processes": (
        REGISTRY_PATH, "go-iodelay", {"delay_ms": 0}, "FastHttpUserPlan",
        ["--processes", "2", "--json"],
    ),
}  # fmt: skip


def main() -> None:
    SAMPLES.mkdir(exist_ok=True)
    logs = Path(tempfile.mkdtemp())
    for name, (registry_path, server, params, user, extra) in CAPTURES.items():
        spec = Registry.load(registry_path).get(server)
        build_server(spec)
        with start_server(spec, Target(server), spec.resolve_params(params),
                          logs / f"{name}.log", cpus=[0]) as s:  # fmt: skip
            prefix = str(SAMPLES / name)
            argv = [
                sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), user, "--headless",
                "-u", "10", "-r", "10", "-t", "3s", "--host", s.url, "--json-file", prefix,
                "--csv", prefix, "--csv-full-history", "--only-summary",
                "--bb-plan", plan_json(get_plan("/")),
                "--bb-wait-min", "0.01", "--bb-wait-max", "0.02", *extra,
            ]  # fmt: skip
            done = subprocess.run(argv, capture_output=True, text=True)
            (SAMPLES / f"{name}.stdout.txt").write_text(done.stdout)
        print(f"captured {name} (locust exit code {done.returncode})")


if __name__ == "__main__":
    main()
