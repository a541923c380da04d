"""Each server placed on the scale of a ceiling server: one in a language compiled without
a garbage collector (servers.toml says which), paired round by round."""

import pandas as pd

from benchbook.analyse import ceiling_scale
from benchbook.runs.languages import Language, load_languages

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


def rows(with_ceiling: bool = True) -> pd.DataFrame:
    found = []
    for round_, ceiling in enumerate(CEILING_RPS, start=1):
        here = {("c-iodelay", "c"): 1.0} if with_ceiling else {}
        here |= {side: shares[round_ - 1] for side, shares in SHARES.items()}
        for (target, language), share in here.items():
            found.append({"run_id": "r", "repetition": round_, "target": target,
                          "server": target.split(" ")[0], "language": language,
                          "rps": ceiling * share, "flags": ""})  # fmt: skip
    return pd.DataFrame(found)


def test_each_server_is_placed_on_the_ceiling_with_its_paired_interval() -> None:
    declared = load_languages() | {"c": C}
    assert ceiling_scale.ceiling_targets(rows(), declared) == ["c-iodelay"]
    assert ceiling_scale.sentence(rows(), declared=declared) == (
        "c-iodelay, compiled with no garbage collector, set the ceiling here at 10,010 req/s "
        "(median): Go net/http reaches 80 % of the ceiling (95 % CI 79–81 %), "
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
        "at 10,010 req/s (median): Go net/http reaches 80 % of the ceiling"
    )


def test_a_ceiling_the_load_tool_held_down_makes_every_share_an_upper_bound() -> None:
    """Notebook 02's Rust server under wrk -t1: client_bound in every run (S11)."""
    declared = load_languages() | {"c": C}
    limited = rows()
    ceiling = limited["target"] == "c-iodelay"
    limited.loc[ceiling, "flags"] = "client_bound;short_run"
    assert ceiling_scale.sentence(limited, declared=declared) == (
        "c-iodelay, compiled with no garbage collector, reached 10,010 req/s here (median) "
        "with the load tool at its limit (client_bound in 6 of 6 runs): the ceiling lies "
        "higher, so each share of it is an upper bound: Go net/http at most 80 % "
        "(95 % CI 79–81 %), FastAPI (uvicorn's defaults) at most 20 % (95 % CI 19–21 %)."
    )
    limited.loc[ceiling & (limited["repetition"] > 3), "flags"] = ""  # half the runs: not most
    assert "set the ceiling here" in ceiling_scale.sentence(limited, declared=declared)
