"""Each server placed on the scale of a ceiling server: one in a language compiled without
a garbage collector (servers.toml says which), paired round by round."""

import pandas as pd

from benchbook.analyse.words import ceiling_scale
from benchbook.runs.languages import Language, load_languages
from benchbook.runs.limits import judged

C = Language(name="c", title="C", kind="compiled", garbage_collector=False, colours=("#555",),
             hatch="", words=("c",), speed_reference="", profiler="",
             unprofiled_because="no profiler for C here")  # fmt: skip
CEILING_RPS = [10000.0, 10100.0, 9900.0, 10050.0, 9950.0, 10020.0]  # median 10,010
# Each server's rate over the ceiling's in each round: Go's around 0.80 (0.79–0.81),
# FastAPI's around 0.20 (0.19–0.21); the copy is Go's A/A control, never placed.
SHARES = {
    ("go-iodelay", "go"): [0.79, 0.80, 0.81, 0.80, 0.79, 0.81],
    ("python-hello", "python"): [0.20, 0.21, 0.19, 0.20, 0.21, 0.19],
    ("go-iodelay (A/A copy)", "go"): [0.81, 0.80, 0.79, 0.80, 0.81, 0.79],
}


def rows(with_ceiling: bool = True, **ceiling_runs: object) -> pd.DataFrame:
    """Six rounds; every server at 96 % of its one core, wrk at half of its own (their
    rates their CPUs' own, runs.limits), unless ``ceiling_runs`` says otherwise of the
    ceiling server's runs."""
    found = []
    for round_, ceiling in enumerate(CEILING_RPS, start=1):
        here = {("c-iodelay", "c"): 1.0} if with_ceiling else {}
        here |= {side: shares[round_ - 1] for side, shares in SHARES.items()}
        for (target, language), share in here.items():
            found.append({"run_id": "r", "repetition": round_, "target": target,
                          "server": target.split(" ")[0], "language": language,
                          "rps": ceiling * share, "flags": "", "tool_setting": "wrk",
                          "connections": 100, "server_cpu_pct": 96.0, "server_cores": 1,
                          "client_cpu_pct": 50.0, "client_cores": 1}
                         | (ceiling_runs if target == "c-iodelay" else {}))  # fmt: skip
    return judged(pd.DataFrame(found))


def test_each_server_is_placed_on_the_ceiling_with_its_paired_interval() -> None:
    declared = load_languages() | {"c": C}
    assert ceiling_scale.ceiling_targets(rows(), declared) == ["c-iodelay"]
    assert ceiling_scale.sentence(rows(), declared=declared) == (
        "c-iodelay, compiled with no garbage collector, set the ceiling here at 10,010 req/s "
        "(this session's median; its CPU set its rate in 6 of 6 runs): Go net/http reaches "
        "80 % of the ceiling (95 % CI 79–81 %), "
        "FastAPI (uvicorn's defaults) 20 % (95 % CI 19–21 %)."
    )


def test_without_a_ceiling_server_there_is_no_sentence() -> None:
    declared = load_languages() | {"c": C}
    assert ceiling_scale.sentence(rows(with_ceiling=False), declared=declared) == ""
    # garbage collected or interpreted: not a ceiling, whatever its speed
    assert ceiling_scale.ceiling_targets(rows(), load_languages()) == []


def test_the_registrys_rust_server_is_the_ceiling_of_a_run() -> None:
    rust = rows().replace({"c-iodelay": "rust-iodelay", "c": "rust"})
    assert ceiling_scale.ceiling_targets(rust) == ["rust-iodelay"]
    assert ceiling_scale.sentence(rust).startswith(
        "Rust hyper (tokio, 1 thread), compiled with no garbage collector, set the ceiling here "
        "at 10,010 req/s (this session's median; its CPU set its rate in 6 of 6 runs): Go "
        "net/http reaches 80 % of the ceiling"
    )


def test_a_ceiling_the_load_tool_held_down_makes_every_share_an_upper_bound() -> None:
    """Notebook 02's Rust server under wrk -t1: client_bound in every run (S11)."""
    declared = load_languages() | {"c": C}
    limited = rows(client_cpu_pct=97.0, server_cpu_pct=60.0, flags="client_bound;short_run")
    assert ceiling_scale.sentence(limited, declared=declared) == (
        "c-iodelay, compiled with no garbage collector, reached 10,010 req/s here (this "
        "session's median), "
        "but the load tool (wrk at 97 % of its core) set that rate in 6 of 6 runs: the "
        "ceiling lies higher, so each share of it is an upper bound: Go net/http at most 81 % "
        "(the upper end of the 95 % CI of the 80 % measured, round by round), FastAPI "
        "(uvicorn's defaults) at most 21 % (the upper end of the 95 % CI of the 20 % "
        "measured, round by round)."
    )
    # the server at its own limit too (notebook 02's Rust at 92 % beside wrk at 92 %): the
    # ceiling is not far above the rate measured
    both = rows(client_cpu_pct=97.0, flags="client_bound;short_run")
    assert (
        "the ceiling lies at or a little above it (its own CPU was at 96 % too), so each "
        "share of it is an upper bound" in ceiling_scale.sentence(both, declared=declared)
    )
    some = rows(client_cpu_pct=97.0).assign(  # two of its six runs: not most
        limit=lambda r: r["limit"].where(
            (r["target"] != "c-iodelay") | (r["repetition"] <= 2), "server"
        )
    )
    limited = some
    assert "set the ceiling here" in ceiling_scale.sentence(limited, declared=declared)


def test_a_server_that_did_not_meet_its_own_limit_is_no_ceiling() -> None:
    """Notebook 01's Rust server holding a 1 ms sleep at 100 connections used 75 % of its
    core: the requests in flight set its rate, not its CPU, so nothing is placed on it."""
    declared = load_languages() | {"c": C}
    held = rows(server_cpu_pct=75.0, server_waits="a 1 ms sleep", server_delay_ms=1.0)
    assert ceiling_scale.sentence(held, declared=declared) == (
        "c-iodelay, compiled with no garbage collector, reached 10,010 req/s (median) at the "
        "same settings, but its rate was set by the requests in flight (100 at a time, held "
        "9.99 ms each: a 1 ms sleep per request, with its CPU at 75 % of its core), not by "
        "its CPU: it is no ceiling here, and no server is placed on it."
    )
    assert "% of the ceiling" not in ceiling_scale.sentence(held, declared=declared)


def test_a_server_above_the_no_gc_server_leaves_no_ceiling() -> None:
    """Notebook 01's Go served 1.2× Rust's rate: Rust set no ceiling, and no one reaches
    '120 % of the ceiling'."""
    declared = load_languages() | {"c": C}
    above = rows()
    go = above["target"] == "go-iodelay"
    above.loc[go, "rps"] = above.loc[go, "rps"] * 1.5  # 1.2× the ceiling server's rate
    said = ceiling_scale.sentence(above, declared=declared)
    assert said.startswith("c-iodelay, compiled with no garbage collector, reached 10,010")
    assert "but Go net/http served 1.20× that (95 % CI" in said
    assert said.endswith(
        "so it is no ceiling here, and no server's rate is given as a share of it."
    )
    assert "% of the ceiling" not in said


def test_a_server_as_fast_as_the_no_gc_server_is_not_placed_below_a_ceiling() -> None:
    """Notebook 01's Go at 36,673 req/s beside Rust's 36,437 (100 %, 95 % CI 83–110 %):
    Rust set no ceiling above Go, and the sentence says Go reached it."""
    declared = load_languages() | {"c": C}
    level = rows()
    go = level["target"] == "go-iodelay"
    wobble = [1.3, 1.2, 1.25, 1.3, 1.2, 1.25]  # Go's share 0.95–1.05, around 1
    level.loc[go, "rps"] = level.loc[go, "rps"] * wobble
    said = ceiling_scale.sentence(level, declared=declared)
    assert said.startswith(
        "c-iodelay, compiled with no garbage collector, reached 10,010 req/s here (this "
        "session's median; "
        "its CPU set its rate in 6 of 6 runs), and Go net/http reached 100 % of it "
    )
    assert (
        "so it set no ceiling measurably above Go net/http; FastAPI (uvicorn's defaults) "
        "reached 20 % " in said
    )
    assert "of the ceiling" not in said
