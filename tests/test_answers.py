"""Each question's plain answer starts with the answer, and its first word follows the
numbers: constructed headlines, as analyse.findings makes them."""

from dataclasses import replace

import pandas as pd

from benchbook.analyse.experiments import open_loop
from benchbook.analyse.findings import answer_note, answers, figures
from benchbook.analyse.findings.headlines import Headline
from benchbook.runs.calibration import Ceilings


def headline(ratio: float, significant: bool = True, metric: str = "rps", **fields) -> Headline:
    base = dict(label="a vs b: requests per second", verdict="", brief="", ratio=ratio,
                ci_low=ratio * 0.9, ci_high=ratio * 1.1, ci_level=0.95, n="6 rounds", p=0.03,
                significant=significant, article="", article_ratio=None, reproduced="",
                reproduced_why="", metric=metric, sides=("Go net/http", "FastAPI"))  # fmt: skip
    return Headline(**(base | fields))


def test_a_figure_is_pooled_where_there_is_a_model_and_a_bound_says_at_least() -> None:
    pooled = headline(7.0, pooled_ratio=7.8, pooled_low=7.4, pooled_high=8.2)
    assert figures.figure(pooled) == "7.8× (95 % CI 7.4–8.2×)"
    # with a model for the next session, the interval its verdict is judged on beside it
    modelled = replace(pooled, predict_low=6.9, predict_high=8.8)
    assert figures.figure(modelled) == "7.8× (95 % CI 7.4–8.2×; next session 6.9–8.8×)"
    lower = headline(0.5, metric="ns_per_op", pooled_ratio=0.5, pooled_low=0.45,
                     pooled_high=0.55, predict_low=0.4, predict_high=0.625)  # fmt: skip
    assert figures.ranked(lower) == (
        "2.00× lower (95 % CI 1.82–2.22× lower; next session 1.60–2.50× lower)"
    )
    bound = headline(2.1, reproduced_why="a lower bound", sessions=8)
    assert figures.figure(bound) == "at least 2.1× (the lowest of 8 sessions on this machine class)"
    unmeasurable = replace(bound, ratio=None)  # a bound within the other side's own spread
    assert "at least" not in figures.figure(unmeasurable)
    assert figures.figure(headline(2.0)).startswith("2.00× (95 % CI 1.80–2.20×")


def test_how_much_faster_starts_with_by_and_no_difference_with_not() -> None:
    text = answers.how_much_faster([headline(7.8), headline(4.8)], "when every request waits")
    assert text.startswith("By 7.8× (95 % CI 7.0–8.6×) against FastAPI and 4.8×")
    none = answers.how_much_faster([headline(1.02, significant=False)], "here")
    assert none.startswith("Not measurably here")


def test_the_protocol_answer_follows_the_direction_of_the_times() -> None:
    def call(ratio: float, name: str, **fields) -> Headline:
        return headline(ratio, metric="ns_per_op", label=f"{name}: HTTP vs gRPC", **fields)

    http_faster = [call(0.5, "Python, HealthCheck")]
    both_http = http_faster + [call(0.8, "Python, CreateSession")]
    # in the headlines' order, each call named
    assert answers.faster_protocol(both_http, "one at a time, over loopback") == (
        "No: for Python, HealthCheck and Python, CreateSession, called one at a time, over "
        "loopback, HTTP/JSON took less time per call than gRPC (2.00× and 1.25× lower)."
    )
    one_unclear = http_faster + [call(0.9, "Go, HealthCheck", significant=False)]
    assert answers.faster_protocol(one_unclear).endswith(
        "; for Go, HealthCheck, neither was significantly faster."
    )
    grpc_faster = [headline(3.0, metric="ns_per_op", label="Python: HTTP vs gRPC")]
    assert answers.faster_protocol(grpc_faster).startswith("Yes, gRPC was faster")
    both = http_faster + grpc_faster
    assert answers.faster_protocol(both).startswith("It depends on the backend")


def test_the_articles_tool_as_the_limit_answers_not_comparable() -> None:
    article = headline(1.0, significant=False, reproduced="different conditions: not comparable")
    text = answers.under_the_articles_tool([article, headline(10.0)], "wrk")
    # the verdict's own words: the article's settings measured the load tool, not a gap
    assert text.startswith(
        "Not comparable: under the article's settings the load tool, not the servers, set both"
    )
    assert "With wrk, Go served 10× (95 % CI 9.0–11×) the requests per second of FastAPI." in text
    named = answers.under_the_articles_tool(
        [article, headline(10.0)], "wrk", python="FastAPI with its access log on"
    )
    assert named.endswith("the requests per second of FastAPI with its access log on.")
    # shorter runs than the article's are said where the answer invokes its settings
    short = answers.under_the_articles_tool(
        [article, headline(10.0)], "wrk", runs="2 runs of 15 s a server, not its five of 30 s"
    )
    assert short.startswith(
        "Not comparable: under the article's users and wait (2 runs of 15 s a server, not its "
        "five of 30 s) "
    )


def test_an_answers_figures_are_sorted_by_what_they_rest_on() -> None:
    pooled = headline(7.0, pooled_ratio=7.8, pooled_low=7.4, pooled_high=8.2)
    bound = headline(31.0, reproduced_why="a lower bound")
    session = headline(1.27)
    assert answer_note.figure_kinds(f"By {figures.figure(pooled)}.", [pooled]) == {"pooled"}
    assert answer_note.figure_kinds(f"It reached {figures.figure(bound)}.", [bound]) == {"bound"}
    # a bound no session supports is worded without a figure: it is no bound of the note's
    unsupported = replace(bound, ratio=None)
    assert figures.figure(unsupported) == (
        "no lower bound on their ratio: the load tool held the first back, and in this session "
        "its lowest run does not clear the other's highest by more than the other's own runs "
        "differ"
    )
    assert answer_note.figure_kinds(f"Go: {figures.figure(unsupported)}.", [unsupported]) == set()
    # a condition ("waits 1 ms") is no figure; a ratio of medians is one session's
    assert answer_note.figure_kinds("Yes, when every request waits 1 ms.", []) == set()
    assert answer_note.figure_kinds("1.27× with nothing added.", []) == {"one session"}
    assert answer_note.figure_kinds(f"{figures.figure(session)}.", [session]) == {"one session"}
    assert answer_note.figure_kinds("lost 12,797 of 48,471 URLs", []) == {"one session"}
    # a pooled estimate printed bare, without its interval
    assert answer_note.figure_kinds("in 3 of 3 comparisons, 7.8× at most", [pooled]) == {
        "pooled, no interval"
    }
    # read-through 12: "2 runs of 15 s" beside a pooled 15× is no bare 15×, and a ratio
    # the answer marks as one session's is that, whatever pooled figure it equals
    fifteen = headline(15.0, pooled_ratio=15.0, pooled_low=14.0, pooled_high=16.0)
    runs = f"2 runs of 15 s a server; with wrk, Go served {figures.figure(fifteen)}."
    assert answer_note.figure_kinds(runs, [fifteen]) == {"pooled"}
    marked = "over 10 ms, 7.8× (838 vs 819 req/s; one session's medians)"
    assert answer_note.figure_kinds(marked, [pooled]) == {"one session"}


def test_the_note_under_the_answers_names_the_answers_each_claim_is_true_of() -> None:
    note = answer_note.answers_note([{"bound"}, {"pooled"}, {"pooled", "one session"}])
    assert note.startswith("Answers 2 and 3 give the estimate pooled over this machine ")
    assert "Answer 1 gives a lower bound" in note
    assert "Answer 3 gives figures of one session" in note
    assert answer_note.answers_note([{"pooled"}, {"pooled"}]).startswith("Each answer gives")


def test_a_bound_with_many_sessions_says_why_it_is_not_pooled() -> None:
    from benchbook.analyse.words.findings_format import unpooled

    bound = {"sessions": 8, "reproduced_why": "a lower bound"}
    assert unpooled(bound) == (
        "8 sessions on this machine class: a lower bound, not pooled; each session's bound is below"
    )
    assert unpooled({"sessions": 1}) == "1 session on this machine class: not yet replicated"


def test_a_pooled_gain_beside_a_session_that_could_not_show_it_says_why() -> None:
    # the crossover: 1.33× pooled over 8 sessions, this session's 4+4 runs p = 0.343
    crossover = headline(1.30, n="4+4", p=0.343, pooled_ratio=1.33, pooled_low=1.27,
                         pooled_high=1.39, sessions=8)  # fmt: skip
    pooled = headline(0.83, metric="rps", pooled_ratio=0.83, pooled_low=0.81, pooled_high=0.86)
    text = answers.fan_out([pooled, crossover], cores="on 1 core (GOMAXPROCS 1)",
                           crossover_at="10,000 units of work a lookup, 1 connection")  # fmt: skip
    assert "with the server on 1 core (GOMAXPROCS 1)" in text
    assert (  # one setting of a sweep, as measured: not a rule about idle servers
        "Fan-out paid at one sweep setting (10,000 units of work a lookup, 1 connection, the "
        "server sharing the cores with wrk): "
    ) in text
    assert text.endswith(
        "1.33× (95 % CI 1.27–1.39×), pooled over 8 sessions; one session alone (4+4 runs) "
        "could not tell it from no difference (p = 0.343)."
    )
    shown = headline(1.30, n="6 rounds", p=0.03, pooled_ratio=1.33, pooled_low=1.27,
                     pooled_high=1.39, sessions=8)  # fmt: skip
    assert answers.fan_out([pooled, shown], "on 1 core").endswith("1.33× (95 % CI 1.27–1.39×).")


def test_a_difference_the_interval_cannot_tell_from_none_is_said_to_be_none() -> None:
    # an interval holding 1 never reads as "took 3.4× the load" or "does not pay"
    unclear = headline(3.4, significant=False, sides=("Go", "FastAPI"), ci_low=0.906,
                       ci_high=12.5, ci_level=0.95)  # fmt: skip
    tail = "A closed loop hid the stall."
    said = open_loop.stalls_and_capacity([headline(1.0), unclear], tail)
    assert "Go against FastAPI: no significant difference (3.4× (95 % CI 0.906–12.5×))" in said
    assert "took" not in said and "Within each server's p99 objective" in said
    # one objective for every server: its value is part of the answer
    said = open_loop.stalls_and_capacity([headline(1.0), unclear], tail, 20.0)
    assert "Within the p99 objective (p99 at most 20 ms), Go against FastAPI" in said
    crossover = headline(0.967, significant=False, ci_low=0.543, ci_high=1.66, ci_level=0.95)
    said = answers.fan_out([headline(1.0, significant=False), crossover], "on 1 core")
    assert "No significant difference either way" in said and "did not pay" not in said


def test_the_shortener_answer_gives_reads_then_writes_as_a_share_then_losses() -> None:
    reads = headline(4.5, sides=("Go net/http + Redis (get requests)", "aiohttp + Redis "
                                 "(gunicorn, 4 workers, get requests)"))  # fmt: skip
    article = headline(11.0)
    writes = headline(0.17, pooled_ratio=0.172, pooled_low=0.158, pooled_high=0.187,
                      sides=("Go + bbolt", "Go + Redis"))  # fmt: skip
    text = answers.reads_and_losses([reads, article, writes], lost="Nothing was lost.")
    assert text == (
        "Reading from the same storage (a Redis of its own each), Go net/http + Redis (get "
        "requests) served 4.5× (95 % CI 4.0–5.0×) the requests per second of aiohttp + "
        "Redis (gunicorn, 4 workers, get requests). Writing, Go + bbolt served 17 % (95 % CI "
        "16–19 %) of the requests per second of Go + Redis. Nothing was lost."
    )
    kept = answers.reads_and_losses([reads, article, writes], lost="", storage="a disk sync each")
    assert kept.endswith("16–19 %) of the requests per second of Go + Redis (a disk sync each).")
    # not significant: the quantity named, and one session's p where it is the figure's own
    unsure = replace(writes, significant=False, pooled_ratio=None, p=0.057)
    said = answers.reads_and_losses([reads, article, unsure], lost="")
    assert "Writing, Go + bbolt against Go + Redis, requests per second: 0.17" in said
    assert said.endswith(f", {unsure.n} runs, no test passed (p = 0.057).")
    within_band = replace(unsure, p=0.03)  # p < 0.05, yet no verdict: no "not significant"
    assert "significant" not in answers.reads_and_losses([reads, article, within_band], lost="")


def test_the_load_tool_answer_ranks_no_tools_whose_rates_are_level() -> None:
    """Notebook 00 of 2026-12-06: wrk 76,701 and bombardier 76,306 req/s, both held back
    by the server; Locust far below (lower bounds from the sessions)."""
    ceilings = Ceilings(run_id="r", by_setting={"wrk": 76_701.0, "bombardier": 76_306.0,
                        "vegeta": 38_359.0, "locust HttpUser x1": 2_113.0},
                        tool_bound=frozenset({"vegeta", "locust HttpUser x1"}))  # fmt: skip
    bound = headline(22.0, reproduced_why="a lower bound", sessions=5,
                     sides=("wrk", "locust HttpUser x1"))  # fmt: skip
    assert answers.load_tools([bound], ceilings) == (
        "wrk 76,701 and bombardier 76,306 req/s, level, both held back by the server, so each can "
        "do more; vegeta 38,359, locust HttpUser x1 2,113 req/s, each at its own limit (this "
        "session's medians). Against the same server, wrk reached at least 22× (the lowest of 5 "
        "sessions on this machine class) locust HttpUser x1's rate."
    )
    alone = replace(ceilings, by_setting=ceilings.by_setting | {"bombardier": 60_000.0})
    assert answers.load_tools([bound], alone).startswith(
        "wrk 76,701 req/s, held back by the server, so it can do more; vegeta 38,359, locust "
        "HttpUser x1 2,113 req/s, each at its own limit; bombardier 60,000 req/s (held back by "
        "the server) (this session's medians). "
    )
    behind = replace(bound, reproduced_why="", significant=False, ratio=1.01)
    assert "wrk was not ahead of every Locust setting" in answers.load_tools([behind], ceilings)
    # 2026-12-07: FastHttpUser x2's runs were mostly limited by neither side (its table
    # says "neither"), so its figure is no ceiling, and page 1 must not call it one
    two = replace(ceilings, by_setting=ceilings.by_setting | {"locust FastHttpUser x2": 7_330.0},
                  tool_bound=ceilings.tool_bound | {"locust FastHttpUser x2"})  # fmt: skip
    table = pd.DataFrame({"runs": [3], "runs counted": [1], "limited by": ["neither"]},
                         index=["locust FastHttpUser x2"])  # fmt: skip
    said = answers.load_tools([bound], two, table=table)
    assert (
        "; vegeta 38,359, locust HttpUser x1 2,113 req/s, each at its own limit; locust "
        "FastHttpUser x2 7,330 req/s (from 1 of its 3 runs; neither side's CPU limited the "
        "others) (this session's medians)."
    ) in said
