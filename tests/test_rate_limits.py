"""What set a rate: the rule on rows (runs.limits), the CPU of other work (foreign_cpu),
and the rule read back on the committed runs, where three sentences of the report went
wrong without it."""

import shutil
from collections.abc import Iterator

import pandas as pd
import pytest

from benchbook.analyse.display import ceilings, tables
from benchbook.analyse.findings import conclusion
from benchbook.analyse.rows.counted import without_controls
from benchbook.analyse.words import ceiling_scale
from benchbook.analyse.words import conclusions as conclude
from benchbook.measure import foreign_cpu
from benchbook.measure.calibration import ceilings_from
from benchbook.measure.foreign_cpu import Process, Snapshot
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.limits import Limit, limit_columns, limit_of
from benchbook.runs.store import Run, RunStore

COMMITTED = REPO_ROOT / "data" / "runs"

# A quiet run of a server on one core under wrk on another: what the rule reads.
QUIET = {
    "rps": 50_000.0, "connections": 100, "server_cpu_pct": 96.0, "server_cores": 1,
    "client_cpu_pct": 60.0, "client_cores": 1, "host_steal_pct": 0.0, "foreign_cpu_pct": 1.0,
    "server_cpu_ms_per_request": 0.02, "flags": "",
}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "limit"),
    [
        ({}, Limit.SERVER),
        # other work during the window wins over everything: it slows whatever it meets
        ({"foreign_cpu_pct": 120.0}, Limit.MACHINE),
        ({"busy_at_start": 180.0}, Limit.MACHINE),
        # the hypervisor's steal is time the run lacked: what was at its limit of what it
        # left still set the rate (60 % of a core when it took 33 %: 0.90 of what it left)
        ({"host_steal_pct": 15.0}, Limit.SERVER),
        ({"host_steal_pct": 33.0, "server_cpu_pct": 60.0}, Limit.SERVER),
        ({"host_steal_pct": 15.0, "server_cpu_pct": 60.0, "server_delay_ms": 1.0,
          "server_waits": "a 1 ms sleep"}, Limit.IN_FLIGHT),
        # … and where nothing was, the machine set it
        ({"host_steal_pct": 15.0, "server_cpu_pct": 55.0, "client_cpu_pct": 37.0},
         Limit.MACHINE),
        ({"host_steal_pct": 5.0, "server_cpu_pct": 55.0, "client_cpu_pct": 37.0}, Limit.NONE),
        ({"client_cpu_pct": 95.0}, Limit.LOAD_TOOL),
        ({"flags": "near_tool_ceiling"}, Limit.LOAD_TOOL),
        # a single-threaded worker at its core limits a tool with two cores
        ({"client_cores": 2, "client_cpu_pct": 110.0, "client_cpu_busiest_pct": 97.0},
         Limit.LOAD_TOOL),
        # a server that shares its cores with the tool can use what the tool leaves
        ({"server_cores": 2, "cpus_shared": True, "server_cpu_pct": 125.0,
          "client_cpu_pct": 60.0, "client_cores": 2}, Limit.SERVER),
        # with Redis beside it on its core, the server side is the two together
        ({"server_cpu_pct": 70.0, "service_cpu_pct": 27.0}, Limit.SERVER),
        # an open-loop tool that kept its schedule set the rate, busy server or not
        ({"target_rate": 50_000.0, "achieved_rate": 49_900.0, "connections": None},
         Limit.OFFERED),
        # a server that holds each request for its sleep, its CPU to spare
        ({"server_cpu_pct": 60.0, "server_delay_ms": 1.0, "server_waits": "a 1 ms sleep"},
         Limit.IN_FLIGHT),
        # one request in flight on a server of one core: each one's own time sets the rate
        ({"server_cpu_pct": 40.0, "connections": 1}, Limit.IN_FLIGHT),
        # a disk sync of no fixed length is a wait too
        ({"server_cpu_pct": 55.0, "server_waits": "a disk sync"}, Limit.IN_FLIGHT),
        ({"server_cpu_pct": 10.0, "connections": None, "users": 100, "think_ms": 15.0},
         Limit.THINK_TIME),
        # the largest wait of a request's cycle names the limit
        ({"server_cpu_pct": 5.0, "link_rtt_ms": 10.0, "server_delay_ms": 1.0,
          "server_waits": "a 1 ms sleep"}, Limit.LINK),
        # the busy machine of 2026-12-02, before its other work was recorded
        ({"server_cpu_pct": 55.0, "client_cpu_pct": 37.0, "foreign_cpu_pct": None},
         Limit.NONE),
        ({"server_cpu_pct": None}, Limit.UNRECORDED),
    ],
)  # fmt: skip
def test_each_row_gets_the_first_limit_it_met(change: dict, limit: Limit) -> None:
    assert limit_of(QUIET | change) == limit


def test_the_shares_judged_by_are_kept_beside_the_limit() -> None:
    held = QUIET | {"server_cpu_pct": 60.0, "server_delay_ms": 1.0, "server_waits": "a sleep"}
    assert limit_columns(held) == {
        "limit": "in flight",
        "server_cpu_share": 0.6,
        "client_cpu_share": 0.6,
        # 50,000 req/s × (1 ms + 0.02 ms) ÷ 100 in flight
        "bound_share": 0.51,
    }


def snapshot(ticks: dict[int, tuple[int, str, int]]) -> Snapshot:
    """Processes by PID as (parent, name, ticks so far)."""
    return Snapshot({p: Process(p, pp, n, t) for p, (pp, n, t) in ticks.items()}, 0, 0)


def test_other_work_is_what_processes_outside_the_runs_tree_used() -> None:
    # 100: the measuring process (its parent 50 a shell), 101 its server; 200 a build
    # (make) whose compiler 201 ran and ended inside the window; 2 kthreadd, 3 a kernel
    # thread; 300 an editor that started in the window
    before = snapshot({50: (1, "bash", 5), 100: (50, "python", 900), 101: (100, "hello", 10),
                       200: (1, "make", 40), 201: (200, "cc1", 300), 2: (0, "kthreadd", 0),
                       3: (2, "ksoftirqd/0", 1000)})  # fmt: skip
    after = snapshot({50: (1, "bash", 5), 100: (50, "python", 1000), 101: (100, "hello", 210),
                      200: (1, "make", 40 + 450), 2: (0, "kthreadd", 0),
                      3: (2, "ksoftirqd/0", 1900), 300: (1, "vim", 25)})  # fmt: skip
    used = foreign_cpu.foreign_use(before, after, seconds=2.0, root=100)
    # make reaped cc1's 450 ticks, of which 300 came before the window; vim's 25 ticks
    per_core = 100 / foreign_cpu.TICKS_PER_S / 2.0
    assert used.cpu_pct == pytest.approx((150 + 25) * per_core, abs=0.1)
    assert [name for name, _, _ in used.busiest] == ["make", "vim"]
    assert used.processes_text().startswith("make (PID 200)")


REPORTED = {  # the committed report's sessions of 2026-11-27 (family 26)
    "00_load_generators": "20261127T144954Z-00_load_generators-c84b",
    "01_io_concurrency": "20261127T131655Z-01_io_concurrency-cdd8",
    "02_hello_world_wrk": "20261127T155606Z-02_hello_world_wrk-39dd",
    "02_hello_world_locust_best": "20261127T155723Z-02_hello_world_locust_best-8ffc",
}


@pytest.fixture(scope="module")
def newest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, pd.DataFrame]]:
    """The reported sessions' rows, read from a runs folder of this module's own that
    holds them and every calibration session (a bound rests on all of them)."""
    folder = tmp_path_factory.mktemp("runs")
    calibrations = [r.run_id for r in RunStore(COMMITTED).runs("00_load_generators")]
    for run_id in {*REPORTED.values(), *calibrations}:
        (folder / run_id).mkdir()
        for name in ("manifest.json", "results.csv"):
            shutil.copy(COMMITTED / run_id / name, folder / run_id / name)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("BENCHBOOK_RUNS_DIR", str(folder))
        yield {experiment: Run(folder / run).results() for experiment, run in REPORTED.items()}


def test_a_rust_server_held_by_its_sleep_is_no_ceiling(newest) -> None:
    # Was: "Rust hyper … set the ceiling here at 44,954 req/s: Go net/http reaches 93 % of
    # the ceiling" — at 75 % of its core, 2.2 ms a request for a 1 ms sleep.
    said = ceiling_scale.sentence(newest["01_io_concurrency"])
    assert "no ceiling here" in said and "set the ceiling" not in said
    assert "% of the ceiling" not in said and "held 2.22 ms each" in said


def test_locust_users_that_wait_are_no_comparison_of_the_servers(newest) -> None:
    # Was: "Locust, best setting … 1.01×, no significant difference".
    loads = {
        "wrk": newest["02_hello_world_wrk"].query("tool == 'wrk'"),
        "Locust, best setting": newest["02_hello_world_locust_best"],
    }
    combined = pd.concat([without_controls(rows).assign(load=load) for load, rows in loads.items()])
    gap = tables.comparison_table(combined, "server", "go-hello", "python-hello", by=["load"])
    assert gap.loc["Locust, best setting", "verdict"] == (
        "not a comparison of servers: the users' wait set both rates"
    )
    assert gap.loc["wrk", "verdict"] == "go-hello higher"
    said = conclude.ratio_by_group(gap, "go-hello", "python-hello", 1.29)
    assert "1.01× (not a comparison of servers: the users' wait set both rates)" in said


def test_a_bound_rests_on_the_sessions_whose_tool_and_server_set_it(newest) -> None:
    # Was "at least 6.9×" and "at least 1.75×", from the session of 2026-11-27 03:24 whose
    # wrk runs reached 20–96k req/s with the server at 28–48 % of its core.
    rows = newest["00_load_generators"]
    run_id = rows["run_id"].iloc[0]
    wrk = "wrk"
    bound = ceilings.server_bound_reason(rows, wrk, ceilings_from(rows, run_id, "go-hello"))
    found = [
        conclusion.compare(
            f"wrk vs {setting}",
            rows,
            wrk,
            setting,
            "00_load_generators",
            select=ceilings.by_tool_setting,
            lower_bound=bound,
            sides_are="load tools",
        ).headline()  # fmt: skip
        for setting in ("locust HttpUser x1", "locust FastHttpUser x1")
    ]
    assert [round(h.ratio, 1) for h in found] == [25.4, 6.3]
    assert all("at least" in h.brief for h in found)
