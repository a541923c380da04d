"""Generated sentences: what they say about flags, load-tool limits and headroom."""

import pandas as pd

from benchbook.conclude import (
    compare_targets,
    headroom_note,
    ratio_by_group,
    tool_limit_sentence,
)


def runs(target: str, rps: list[float], flags: str, headroom: float | None = None) -> list[dict]:
    return [
        {
            "target": target, "rps": value, "flags": flags, "headroom": headroom,
            "tool_setting": "locust HttpUser x1", "client_cpu_pct": 99.0,
            "err_connect": 0, "err_read": 0, "err_write": 0, "err_timeout": 0,
            "requests": 10_000, "experiment": "test",
        }
        for value in rps
    ]  # fmt: skip


FAST, SLOW = [1000.0, 1010.0, 1020.0, 1030.0, 1040.0], [500.0, 505.0, 510.0, 515.0, 520.0]


def test_the_same_flags_on_both_sides_are_named_once() -> None:
    results = pd.DataFrame(runs("go", FAST, "client_bound") + runs("py", SLOW, "client_bound"))
    sentence = compare_targets(results, "go", "py")
    assert "**go** had **2.00×** the requests per second of **py**" in sentence
    assert sentence.count("client_bound 5/5") == 1 and "both sides' runs are flagged" in sentence


def test_flags_of_one_side_are_named_with_that_side() -> None:
    results = pd.DataFrame(runs("go", FAST, "") + runs("py", SLOW, "timeouts"))
    assert "Caution, py's runs are flagged (timeouts 5/5" in compare_targets(results, "go", "py")


def test_tool_limit_is_stated_only_when_most_runs_hit_it() -> None:
    limited = pd.DataFrame(runs("go", FAST, "client_bound;near_tool_ceiling", headroom=0.97))
    assert tool_limit_sentence(limited, "go") == (
        "For **go**, the load tool was the limit in 5 of 5 runs: locust HttpUser x1 used a "
        "median 99 % CPU and reached 97% of its ceiling, so the 1,020 req/s measure the "
        "tool, not the server."
    )
    assert tool_limit_sentence(pd.DataFrame(runs("go", FAST, "short_run")), "go") == ""


def test_headroom_note_with_and_without_a_calibration() -> None:
    calibrated = pd.DataFrame(runs("go", FAST, "", headroom=0.95) + runs("py", SLOW, "", 0.5))
    assert "5 of 10 runs reached 90% or more" in headroom_note(calibrated)
    assert "run `notebooks/00_load_generators.ipynb` first" in headroom_note(
        pd.DataFrame(runs("go", FAST, ""))
    )


def test_one_ratio_per_load_beside_the_articles() -> None:
    gap = pd.DataFrame(
        {"go/py": [1.01, 10.06], "verdict": ["~", "go > py"]},
        index=pd.Index(["Locust", "wrk"], name="load"),
    )
    assert ratio_by_group(gap, "go", "py", 1.29) == (
        "go/py req/s by load: Locust 1.01× (~); wrk 10.06× (go > py). The article's 1.29× "
        "compares what its load tool could produce as much as what its servers could serve."
    )
