"""A bound printed for a headline is one every session of its machine class keeps, and a
bound that only shows the load tool's limit is not printed as a bound: constructed
sessions, as replication.spread's rows carry them."""

import math
from dataclasses import replace

import pandas as pd
import pytest

from benchbook.analyse.claims import bounds
from benchbook.analyse.experiments import open_loop
from benchbook.analyse.findings import figures
from benchbook.analyse.findings.headlines import bound_headline
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import comparison
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.words import bounds as bound_words

CLASS = "AMD EPYC (family 25, model 17, stepping 1), 2 CPUs"


def session(run_id: str, ratio: float, **fields: object) -> dict:
    """One row of replication.spread under bounds.extremes: ``ratio`` is its bound."""
    row = {"run_id": run_id, "machine_class": CLASS, "same_conditions": True,
           "current": False, "ratio": ratio, "ci_low": math.nan, "ci_high": math.nan}  # fmt: skip
    return row | fields


def test_a_printed_bound_is_the_lowest_of_the_classs_session_bounds() -> None:
    # wrk over locust HttpUser x1 in the sessions the issue names: one session's 31× was
    # printed while others of the class gave 14.6× and 15×, and a fresh one 13×.
    here, others = 31.0, [14.6, 15.0, 13.0]
    runs = [session("now", here, current=True)]
    runs += [session(f"s{i}", ratio) for i, ratio in enumerate(others)]
    runs += [session("other class", 2.0, machine_class="another CPU"),
             session("other conditions", 1.5, same_conditions=False)]  # fmt: skip
    bound = bounds.over_sessions(runs, here, spread=1.1)
    assert bound.value == min([here, *others]) and bound.sessions == 1 + len(others)
    text = bound_words.sentence(
        bound, ("wrk", "locust"), "requests per second", "the server set wrk's"
    )
    assert f"at least {fmt.ratio_at_least(min(others))} the requests per second" in text
    assert f"over {1 + len(others)} sessions on this machine class" in text
    assert f"this session alone: {fmt.ratio(here)}" in text


def test_adding_a_session_never_raises_a_printed_bound() -> None:
    runs = [session("now", 6.9, current=True)]
    printed = []
    for i, ratio in enumerate([7.2, 3.7, 6.4, 9.0]):
        runs.append(session(f"s{i}", ratio))
        printed.append(bounds.over_sessions(runs, 6.9, spread=1.1).value)
    assert printed == sorted(printed, reverse=True)


def test_without_stored_sessions_the_bound_is_this_sessions_and_says_so() -> None:
    bound = bounds.over_sessions([], 2.5, spread=1.2)
    assert (bound.value, bound.sessions) == (2.5, 1)
    assert "in this one session" in bound_words.sentence(bound, ("a", "b"), "req/s", "why")


def results(values: dict[str, list[float]], flags: dict[str, str] | None = None) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"run_id": "r", "repetition": i + 1, "target": target, "server": target, "rps": v,
             "flags": (flags or {}).get(target, "")}
            for target, vs in values.items()
            for i, v in enumerate(vs)
        ]
    )  # fmt: skip


def test_a_session_is_reduced_to_its_own_bound_for_spread() -> None:
    rows = results({"go": [3000.0, 2800, 3100], "py": [1000.0, 1400, 990]})
    # An invalid run lower than every valid one must not set the bound.
    rows.loc[len(rows)] = {"run_id": "r", "repetition": 4, "target": "go", "server": "go",
                           "rps": 100.0, "flags": "bad_response"}  # fmt: skip
    reduced = bounds.extremes("go", "py", "rps")(rows)
    valid = valid_rows(rows)
    expected = (
        valid.loc[valid["target"] == "go", "rps"].min()
        / valid.loc[valid["target"] == "py", "rps"].max()
    )
    assert comparison(reduced, "go", "py").ratio == pytest.approx(expected)
    assert bounds.session_bound(valid, "go", "py", "rps") == pytest.approx(expected)


def test_a_bound_from_a_run_where_the_tool_gave_out_among_the_other_sides_runs_is_no_bound() -> (
    None
):
    # Notebook 06's go-hello: its lowest run (vegeta at 94.5 % of a core where the
    # objective broke) lay just above FastAPI's highest, while FastAPI's own runs differed
    # by far more: "at least 1.02×" would read as Go ≈ FastAPI.
    valid = results({"go": [6620.0, 15481, 16500, 16500], "py": [5667.0, 4099, 3936, 6468]})
    why = "vegeta used 94–98 % of a core and the server 32–40 %"
    h = bound_headline("go vs py", valid, "go", "py", ("Go", "FastAPI"), why, "rps")
    assert "at least" not in h.brief and "No lower bound measurable" in h.brief and why in h.brief
    assert h.ratio is None
    assert "at least" not in figures.figure(h)
    tail = open_loop.stalls_and_capacity([h, h], "Stalls.")
    assert (
        "at least" not in tail
        and "no lower bound on their ratio: the load tool held the first back" in tail
    )
    # The same runs with Go's lowest above every FastAPI run by more than they differ.
    clear = results({"go": [12000.0, 15481, 16500, 16500], "py": [5667.0, 4099, 3936, 6468]})
    h = bound_headline("go vs py", clear, "go", "py", ("Go", "FastAPI"), why, "rps")
    assert h.ratio == pytest.approx(12000 / 6468) and "at least" in h.brief
    h = replace(h, sides=("Go", "FastAPI"))  # as headline() names them
    tail = open_loop.stalls_and_capacity([h, h], "Stalls.")
    assert "Go took at least 1.85× (one session) the load of FastAPI" in tail
    assert "no significant difference" not in tail  # a bound is not "no difference"
