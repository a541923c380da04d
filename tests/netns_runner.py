"""An experiment on network-namespace hosts that would load for a minute: the child of
tests/test_netns.py, which kills it (SIGKILL, as a dying kernel would be) mid-run.

Usage: python netns_runner.py RUNS_DIR
"""

import os
import sys

from benchbook import measure

if __name__ == "__main__":
    os.environ["BENCHBOOK_RUNS_DIR"] = sys.argv[1]
    os.environ["BENCHBOOK_SPEED_REFERENCE"] = "0"
    measure.run(
        measure.Experiment(
            "netns_killed",
            ["go-hello"],
            measure.tool("wrk", connections=2, threads=1, duration="60s"),
            warmup="0s",
            repetitions=1,
            hosts=measure.hosts("netns", added_rtt="1ms"),
        )
    )
