"""Does measuring through the harness cost the server throughput?

The same wrk command runs against the same Go server, alternately by hand
(``subprocess.run``, Requests/sec read from wrk's text) and through the harness
(process group, CPU/RSS sampling thread, raw file, parse, flags). Pairs alternate
their order (ABBA) so drift on a shared machine does not favour either side.
Prints the median ratio harness/by-hand of req/s with its confidence interval, and the
host's CPU steal meanwhile (a noisy host widens the interval); the target is >= 0.98.
"""

import argparse
import os
import re
import subprocess
import tempfile
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import cast

from benchbook.analyse.numbers.stats import summarize
from benchbook.measure.calibration import latest_ceilings
from benchbook.measure.instances import start_instance
from benchbook.measure.measured_run import measure_run
from benchbook.measure.planning import plan_experiment
from benchbook.measure.registry import Registry
from benchbook.measure.run_store import Run
from benchbook.measure.sampling import host_cpu_jiffies, steal_pct
from benchbook.measure.servers import build_server
from benchbook.measure.tools import tool
from benchbook.measure.tools.wrk import Wrk, wrk_command
from benchbook.measure.verification import verify
from benchbook.runs.experiment import Experiment

TARGET = 0.98


def by_hand(argv: list[str], cpus: tuple[int, ...] | None) -> float:
    pinned = ["taskset", "-c", ",".join(map(str, cpus))] if cpus else []
    out = subprocess.run(pinned + argv, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--duration", default="5s")
    args = parser.parse_args()

    os.environ["BENCHBOOK_RUNS_DIR"] = tempfile.mkdtemp(prefix="benchbook-overhead-")
    registry = Registry.load()
    spec = registry.get("go-iodelay")
    build_server(spec)
    wrk = tool("wrk", connections=100, threads=4, duration=args.duration, timeout="2s")
    # The plan every measured run takes, as measure.run builds it: one server, one tool.
    experiment = Experiment("harness_overhead", ["go-iodelay"], wrk, warmup=0,
                            repetitions=args.pairs, records=0, restart=False)  # fmt: skip
    plan = plan_experiment(experiment)
    plan = replace(plan, ceilings=latest_ceilings())  # read when measuring, as run_experiment does
    config, pinning = plan.configs[0], plan.pinning
    load = cast(Wrk, config.tool).load
    run = Run.create(plan.experiment, plan.worked_out())
    logs = Path(os.environ["BENCHBOOK_RUNS_DIR"])
    ratios = []
    host_before = host_cpu_jiffies()
    with ExitStack() as stack:
        instance = start_instance(stack, registry, spec, config.target,
                                  plan.params_of(config.target), logs,
                                  pinning.server_cpus)  # fmt: skip
        verify(instance.port, spec, spec.name)
        argv = wrk_command(instance.server.url + "/", load)
        by_hand(argv, pinning.load_cpus)  # warm-up
        for pair in range(1, args.pairs + 1):
            order = ("hand", "harness") if pair % 2 else ("harness", "hand")
            rps = {}
            for side in order:
                if side == "hand":
                    rps[side] = by_hand(argv, pinning.load_cpus)
                else:
                    rps[side] = measure_run(run, plan, instance, config, pair)["rps"]
            ratios.append(rps["harness"] / rps["hand"])
            print(f"pair {pair}: by hand {rps['hand']:,.0f} req/s, "
                  f"harness {rps['harness']:,.0f} req/s, ratio {ratios[-1]:.3f}")  # fmt: skip
    ratio = summarize(ratios)
    verdict = "meets" if ratio.median >= TARGET else "misses"
    print(f"median ratio harness/by hand: {ratio.median:.3f} over {ratio.n} pairs, "
          f"{100 * ratio.confidence:.1f} % CI {ratio.low:.3f}-{ratio.high:.3f} "
          f"({verdict} the {TARGET} target); host CPU steal meanwhile "
          f"{steal_pct(host_before, host_cpu_jiffies()):.0f} %")  # fmt: skip
    print(f"command: {' '.join(argv)}")


if __name__ == "__main__":
    main()
