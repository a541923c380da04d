"""The rules read-through 17 found missing (the report of AMD family 25 model 1): a setting
shared with the article is no difference from it, a pooled ratio is held against the A/A
control's pooled mean, an explanation that does not reach the article's figure shows
both sides beside the article's, and a caution is worded from counted flags."""

from pathlib import Path

import pandas as pd

from benchbook.analyse.claims import bounds as bounds_numbers
from benchbook.analyse.claims.bounds import Bound
from benchbook.analyse.claims.explanation import Explanation
from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.claims.verdicts import judge
from benchbook.analyse.findings import figures
from benchbook.analyse.findings.headlines import Headline
from benchbook.analyse.numbers.stats import compare_paired
from benchbook.analyse.rows.counted import suspect_flags
from benchbook.analyse.words import bounds as bound_words
from benchbook.analyse.words.flags import caution
from benchbook.analyse.words.setup import setup_differences
from benchbook.analyse.words.verdicts import control_sentence, verdict_and_reason
from benchbook.runs.manifest import migrate


class StoredRun:
    """A run pinned to one core, 3 s runs at 100 connections, 6 rounds."""

    def manifest(self) -> dict:
        loads = [{"duration_s": 3.0, "connections": 100}]
        stored = {"params": {"pinning": {"server_cpus": [0]}, "loads": loads,
                             "repetitions": 6}}  # fmt: skip
        return migrate(stored, Path("results.csv"))


def test_a_setting_shared_with_the_article_is_not_listed_as_a_difference() -> None:
    # notebook 01 listed "100 connections" among what may explain a gap from the article's
    # figure, while the article ran wrk -c100 too
    said = setup_differences(StoredRun(), shared=("connections",))
    assert said == (
        "here 1 core per server (GOMAXPROCS 1), runs of 3 s, 6 rounds, where the article's "
        "differ (see Setup; its 100 connections are used here too)"
    )


def test_a_pooled_band_says_it_is_the_a_a_controls_pooled_mean() -> None:
    # notebook 03 held a ratio pooled over 4 sessions (1.12×, 95 % CI 1.02–1.22×) against
    # the next A/A session's range (0.840–1.20×) and called it not resolvable
    control = {"estimate": 1.0, "low": 0.84, "high": 1.2, "level": 0.95, "predicted": True,
               "sessions": 4, "pooled_low": 0.93, "pooled_high": 1.07}  # fmt: skip
    said = control_sentence(1.07, control)
    assert "gave 1.00× over 4 sessions (95 % CI 0.930–1.07×)" in said
    assert "ratios pooled over 4 sessions no farther from 1 than 1.07× are not resolvable" in said
    one_session = {key: value for key, value in control.items() if not key.startswith("pooled")}
    assert "ratios no farther from 1 than 1.20×" in control_sentence(1.2, one_session)


def test_an_explanation_short_of_the_article_shows_each_side_beside_the_articles() -> None:
    # notebook 05: the 404 loop gave 60× (50–71×) here against the article's 106×: its failed
    # calls took 43.6 ms (the article's 42.5 ms), its gRPC calls 0.633 ms (0.401 ms)
    detail = ("; in this session its failed HTTP calls took 43.6 ms against the article's "
              "42.5 ms, and its gRPC calls 0.633 ms against 0.401 ms")  # fmt: skip
    loop = Explanation("its HTTP backend answered 404", 60.0, 50.0, 71.0, 0.95, detail=detail)
    c = compare_paired(pd.Series([0.6, 0.62, 0.61, 0.63, 0.6, 0.62]), pd.Series([1.0] * 6))
    verdict, why = verdict_and_reason(judge(c, 106.0, measured_else=loop))
    assert verdict == Verdict.NOT_REPRODUCED.label
    assert why.endswith(f"it does not explain this figure{detail}")


def test_a_caution_counts_each_suspect_flag_of_each_side_once() -> None:
    flags = ["littles_law", "littles_law;short_run", "", "errors"]
    rows = pd.DataFrame({"target": ["a", "a", "b", "b"], "flags": flags})
    tallies = {t: suspect_flags(rows, t) for t in ("a", "b")}
    assert tallies == {"a": {"littles_law": (2, 2)}, "b": {"errors": (1, 2)}}
    said = caution(tallies, {"a": "Go", "b": "FastAPI"}, "rps", plain=True)
    assert said == (
        "Caution: Go's runs had throughput and latency that disagree (2 of 2 runs): its "
        "latency figures are suspect; FastAPI's runs had connection errors (1 of 2 runs): "
        "part of its throughput is failed requests."
    )


def test_page_1_says_a_next_session_range_tells_nothing_where_it_spans_10000_fold() -> None:
    # words.sessions.next_session says so in the answers; page 1's short figure printed the
    # range itself ('next session 0.001–2,175×')
    h = Headline(label="freeze p90", brief="", verdict="", ratio=0.02, ci_low=0.01,
                 ci_high=0.04, ci_level=0.95, n="2+2", p=0.03, significant=True, article="",
                 article_ratio=None, reproduced="", reproduced_why="", pooled_ratio=0.02,
                 pooled_low=0.01, pooled_high=0.05, predict_low=0.0002,
                 predict_high=2175.0)  # fmt: skip
    assert "next session: no telling, its range spans over 10,000-fold" in figures.figure(h)


def test_a_bounds_own_runs_are_named_beside_this_sessions_figure() -> None:
    # page 1: "this session alone: 34× (49,971 vs 1,470 req/s)" beside wrk's median 57,191
    bound = Bound(value=27.0, sessions=4, here=34.0, spread=1.1)
    said = bound_words.sentence(bound, ("wrk", "Locust"), "requests per second", "why",
                                "49,971 vs 1,470 req/s")  # fmt: skip
    assert "this session alone: 34× (its lowest run of wrk vs its highest of Locust: " in said


def test_the_side_an_article_timed_instead_explains_its_figure_where_it_matches() -> None:
    # notebook 05: the article's 106× was 42.5 ms of failed HTTP calls over 0.401 ms of gRPC;
    # here the failed calls took 43.6 ms, gRPC 0.633 ms (a ratio of 60×, 50–71×): the HTTP
    # figure is the failures' time, the ratio's gap gRPC's on another machine
    loop = Explanation("its HTTP backend answered 404", 60.0, 50.0, 71.0, 0.95,
                       timed=43.6e6, article_timed=42.45e6)  # fmt: skip
    assert loop.explains(106.0)
    fast = Explanation("its HTTP backend answered 404", 0.8, 0.7, 0.9, 0.95,
                       timed=0.527e6, article_timed=1.05e6)  # fmt: skip
    assert not fast.explains(3.1)  # a failed HealthCheck here took half the article's


def test_a_capacity_bound_names_the_rates_its_two_runs_are() -> None:
    # read-through 19: "its highest of FastAPI: 7,740 vs 5,360 req/s" where 5,360 is the
    # rate at which FastAPI's best run broke the SLO, above its highest capacity (4,618)
    at_most = "capacity" + bounds_numbers.AT_MOST
    valid = pd.DataFrame({"target": ["go", "py"], "capacity": [7740.0, 4618.0],
                          at_most: [None, 5360.0]})  # fmt: skip
    ends = bound_words.placed_ends(valid, "capacity", ("Go", "FastAPI"))
    bound = Bound(value=0.6, sessions=4, here=1.44, spread=1.81)
    said = bound_words.sentence(bound, ("Go", "FastAPI"), "capacity", "why",
                                "7,740 vs 5,360 req/s", ends=ends)  # fmt: skip
    assert "(the last rate Go's lowest run met its SLO at vs the rate at which FastAPI's " in said
    assert bound_words.placed_ends(valid.drop(columns=at_most), "capacity", ("a", "b")) is None
