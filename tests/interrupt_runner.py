"""One load tool against a real server, meant to run until interrupted: the child
process of tests/test_interrupts.py, which sends it SIGINT (Ctrl-C) mid-run.

Usage: python interrupt_runner.py TOOL OUT_DIR
  TOOL: locust-workers, vegeta, ghz or gobench. Each tool's own run function is called
  directly (not an experiment), with a load that would last a minute, on 127.0.0.1.
"""

import signal
import sys
from contextlib import ExitStack
from pathlib import Path

from benchbook.measure.registry import Registry, Target
from benchbook.measure.servers import build_server, start_server
from benchbook.measure.tools.base import LoadPlan, LoadRequest, get_plan
from benchbook.measure.tools.ghz import Ghz, GrpcLoad
from benchbook.measure.tools.gobench import compile_benchmarks, run_benchmarks
from benchbook.measure.tools.locust import Locust, LocustLoad
from benchbook.measure.tools.vegeta import OpenLoopLoad, Vegeta
from benchbook.runs.layout import GO_MODULE

SERVERS = {
    "locust-workers": "go-hello",
    "vegeta": "go-hello",
    "ghz": "go-governance-grpc",
    "gobench": "go-governance-http",
}
HEALTH = "benchbook.governance.v1.GovernanceService/HealthCheck"


def main(tool: str, out: Path) -> None:
    spec = Registry.load().get(SERVERS[tool])
    build_server(spec)
    with ExitStack() as stack:
        server = stack.enter_context(
            start_server(spec, Target(spec.name), spec.resolve_params({}), out / "server.log")
        )
        if tool == "locust-workers":
            load = LocustLoad.from_params(10, 10, "10-20ms", "60s", "FastHttpUser", workers=2)
            Locust(load).run(server.url, get_plan("/"), out / "locust", None)
        elif tool == "vegeta":
            load = OpenLoopLoad.from_params(200, "60s", 100, 10, "5s")
            Vegeta(load).run(server.url, get_plan("/"), out / "vegeta", None)
        elif tool == "ghz":
            request = LoadRequest("HealthCheck", "GRPC", HEALTH, proto=spec.grpc.proto)
            load = GrpcLoad.from_params(2, 10_000_000, 1, "5s")
            Ghz(load).run(server.url, LoadPlan((request,)), out / "ghz", None)
        elif tool == "gobench":
            binary = compile_benchmarks("./governance/bench/", GO_MODULE, out / "bench.test")
            # The article's loop only logs its errors: it would run on after its server
            # stopped, so only the runner's own cleanup can end it early.
            env = {"GOVERNANCE_HTTP_ADDR": f"127.0.0.1:{server.port}",
                   "GOVERNANCE_ARTICLE_STYLE": "1"}  # fmt: skip
            bench = "ArticleStyle/http/HealthCheck$"
            run_benchmarks(binary, bench, "60s", env, out / "bench.txt", None)
        else:
            raise SystemExit(
                f"interrupt_runner: unknown tool {tool!r}; valid: {', '.join(SERVERS)}"
            )
    print("the load ended without an interrupt", flush=True)


if __name__ == "__main__":
    # Python's own Ctrl-C handler, even when started from a background job (which
    # starts with SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main(sys.argv[1], Path(sys.argv[2]))
