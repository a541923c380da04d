"""Every verdict against an article, on constructed comparisons: reproduced only when the
article's figure lies inside the interval, otherwise it says how and why not."""

import pandas as pd
import pytest

from benchbook.analyse.findings import (
    NO_ARTICLE,
    NO_VALID_RUNS,
    NOT_REPRODUCED,
    NOT_RESOLVABLE,
    REPRODUCED,
    SAME_DIRECTION,
    SOMETHING_ELSE,
    TOO_FEW_RUNS,
    TOOL_LIMIT,
    headline,
    reproduction,
    setup_differences,
)
from benchbook.analyse.findings_format import BADGES, REPRODUCED_LABELS
from benchbook.analyse.stats import compare_paired

DRIFT = [1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1250.0, 1050.0, 1150.0]
JITTER = [1.00, 1.01, 0.99, 1.02, 0.98, 1.01, 0.99, 1.00]


def paired(ratio: float, rounds: int = 8):
    a = [v * ratio * j for v, j in zip(DRIFT[:rounds], JITTER[:rounds], strict=True)]
    return compare_paired(a, DRIFT[:rounds])


@pytest.mark.parametrize(
    ("c", "kwargs", "expected", "why"),
    [
        (paired(2.0), {"article_ratio": 2.0}, REPRODUCED, "lies within the interval"),
        (paired(2.0), {"article_ratio": 4.9, "differences": "one core per server"},
         SAME_DIRECTION, "outside the interval, smaller here; what differs: one core"),
        (paired(5.0), {"article_ratio": 4.0}, SAME_DIRECTION, "larger here"),
        (paired(0.5), {"article_ratio": 3.1}, NOT_REPRODUCED, "opposite direction"),
        (paired(1.0), {"article_ratio": 1.3}, NOT_REPRODUCED, "no significant difference"),
        (paired(2.0), {"article_ratio": 106.0, "measured_else": "its HTTP backend 404'd"},
         SOMETHING_ELSE, "404"),
        (paired(1.0), {"article_ratio": 1.29, "tool_limited": "its load tool was the limit"},
         TOOL_LIMIT, "load tool"),
        (paired(1.05), {"article_ratio": 1.5, "band": 1.08}, NOT_RESOLVABLE, "A/A control"),
        (paired(2.0, rounds=5), {"article_ratio": 3.0}, TOO_FEW_RUNS, "5 rounds"),
        (None, {"article_ratio": 3.0}, NO_VALID_RUNS, "no valid runs"),
        (paired(2.0), {"article_ratio": None}, NO_ARTICLE, "no figure"),
    ],
)  # fmt: skip
def test_each_verdict_and_its_reason(c, kwargs, expected, why) -> None:
    verdict, reason = reproduction(c, **kwargs)
    assert (verdict, why in reason) == (expected, True), reason


def test_every_verdict_has_a_badge() -> None:
    assert len(BADGES) == len(REPRODUCED_LABELS) == len(set(BADGES))


def test_a_bound_stays_a_bound_with_no_interval_or_p_value() -> None:
    rows = [
        {"run_id": "r", "repetition": i + 1, "target": t, "rps": v, "flags": "",
         "err_connect": 0, "err_read": 0, "err_write": 0, "err_timeout": 0, "non_2xx": 0,
         "requests": 1000, "headroom": None, "incident": ""}
        for t, values in (("go", [3000.0] * 6), ("py", [1000.0, 1010, 990, 1005, 995, 1000]))
        for i, v in enumerate(values)
    ]  # fmt: skip
    h = headline("go vs py", pd.DataFrame(rows), "go", "py", experiment="bound_test",
                 lower_bound="vegeta, not the server, was at its limit")  # fmt: skip
    assert h.brief.startswith("**go** took **at least 3.0×** the load of **py**: vegeta")
    assert (h.ci_low, h.ci_high, h.p, h.significant) == (None, None, None, False)


def test_what_differs_from_the_article_comes_from_the_runs_manifest() -> None:
    class StoredRun:
        def manifest(self) -> dict:
            loads = [{"duration_s": 3.0, "connections": 100}, {"duration_s": 3.0}]
            return {"params": {"pinning": {"server_cpus": [0]}, "loads": loads,
                               "repetitions": 6}}  # fmt: skip

    assert setup_differences(StoredRun()) == (
        "1 core per server (GOMAXPROCS 1), runs of 3 s, 100 connections, 6 rounds here "
        "(the article's settings: see Setup)"
    )
