"""Generated sentences: the answer first, plain words, the caveats that change it."""

import pandas as pd
import pytest

from benchbook.analyse.claims.verdicts import judge
from benchbook.analyse.numbers.stats import compare, compare_paired
from benchbook.analyse.words.conclusions import (
    compare_targets,
    ratio_by_group,
    tool_limit_sentence,
    validity_notes,
    verdict,
)
from benchbook.analyse.words.headroom import headroom_note
from benchbook.analyse.words.verdicts import verdict_and_reason


def compare_values(va, vb, a: str, b: str, column: str, unit: str) -> str:
    """The two-sample verdict (runs not measured in rounds)."""
    return verdict(compare(va, vb), a, b, column, unit)


def runs(
    target: str, rps: list[float], flags: str, headroom: float | None = None, server_cpu=50.0
) -> list[dict]:
    return [
        {
            "target": target, "rps": value, "flags": flags, "headroom": headroom,
            "tool_setting": "locust HttpUser x1", "client_cpu_pct": 99.0,
            "server_cpu_pct": server_cpu, "err_connect": 0, "err_read": 0, "err_write": 0,
            "err_timeout": 0, "requests": 10_000, "experiment": "test", "host_steal_pct": 1.0,
            "incident": "",
        }
        for value in rps
    ]  # fmt: skip


FAST, SLOW = [1000.0, 1010.0, 1020.0, 1030.0, 1040.0], [500.0, 505.0, 510.0, 515.0, 520.0]


def test_a_significant_difference_reads_as_the_answer_with_its_own_interval() -> None:
    sentence = compare_targets(
        pd.DataFrame(runs("go", FAST, "") + runs("py", SLOW, "")), "go", "py"
    )
    assert sentence.startswith(
        "**go** served **2.00× the requests per second** of **py** (ratio 2.00×, "
    )
    assert "95 % CI 1.94–2.06×" in sentence  # the interval of the same estimate
    assert "medians 1,020 vs 510 req/s; p = 0.008; 5 runs each" in sentence


def test_lower_latency_is_said_as_times_lower_not_a_fraction() -> None:
    sentence = compare_values(
        pd.Series([1.0, 1.1, 1.2, 1.3, 1.4]), pd.Series([33.0, 34, 35, 36, 37]),
        "go", "py", "lat_p99_ms", "ms",
    )  # fmt: skip
    assert sentence.startswith("**go**'s p99 latency was **29× lower** than **py**'s")
    assert "0.03×" not in sentence.split("(")[0]
    # one direction in the sentence: the interval is "N× lower" too, never the ratio 0.03×
    assert "** than **py**'s (95 % CI 25–35× lower; medians" in sentence
    assert "ratio" not in sentence.split(";")[0] and " %, 95 % CI" not in sentence


def test_the_medians_ratio_beside_a_paired_estimate_reads_in_the_leads_direction() -> None:
    """Notebook 05 printed '1.56× lower … (their ratio 0.588×; …)': one time as 'N× lower'
    and the other as a fraction, for one comparison."""
    # ms, one value per round; three rounds on a slower machine, where Python slowed more
    go = pd.Series([0.30, 0.31, 0.32, 0.60, 0.61, 0.62])
    py = pd.Series([0.40, 0.41, 0.42, 1.50, 1.52, 1.55])
    c = compare_paired(go, py)
    medians = go.median() / py.median()
    assert c.significant and c.ratio < 1 and abs(c.ratio / medians - 1) > 0.05
    sentence = verdict(c, "go", "py", "lat_p50_ms", "ms")
    assert sentence.startswith("**go**'s median latency was **1.82× lower** than **py**'s")
    assert f"{1 / medians:.3f}" == "2.087"  # 0.460 vs 0.960 ms
    assert "(their ratio 2.1× lower; the ratio above is that of the typical round" in sentence


def test_a_lower_rate_is_said_as_a_share_of_the_other() -> None:
    sentence = compare_values(
        pd.Series([190.0, 195, 200, 205, 210]), pd.Series([1000.0, 1010, 990, 1005, 995]),
        "bbolt", "redis", "rps", "req/s",
    )  # fmt: skip
    assert sentence.startswith("**bbolt** served **20 % of the requests per second** of **redis**")
    assert "(20 %, " in sentence and "×" not in sentence.split(";")[0]


def test_no_significant_difference_is_said_in_words() -> None:
    sentence = compare_values(
        pd.Series([1.0, 2, 3, 4]), pd.Series([1.5, 2.5, 3.5, 4.5]), "a", "b", "rps", "req/s"
    )
    assert sentence.startswith("**No significant difference** in requests per second between")
    assert "95 % CI" in sentence and "Too few" not in sentence  # 4 a side can reach p < 0.05


def test_too_few_runs_are_never_called_no_difference() -> None:
    # 3 runs a side, completely separated: still p = 0.1, so no verdict either way
    few, more = pd.Series([1.0, 1.1, 1.2]), pd.Series([10.0, 11, 12])
    sentence = compare_values(more, few, "a", "b", "rps", "req/s")
    assert sentence.startswith("**Too few runs to tell** **a** from **b** in requests per second")
    assert "(3+3; p < 0.05 needs 4 a side)" in sentence
    assert "90.0 % CI" in sentence  # 3 runs a side cannot give 95 %: the level reached
    assert "No significant difference" not in sentence
    assert sentence.endswith("Run more repetitions.")
    reproduced, why = verdict_and_reason(judge(compare(more, few), article_ratio=3.0))
    assert reproduced == "too few runs" and "3+3 runs cannot show any difference" in why


def test_the_same_flags_on_both_sides_are_named_once_with_their_consequence() -> None:
    results = pd.DataFrame(runs("go", FAST, "client_bound") + runs("py", SLOW, "client_bound"))
    sentence = compare_targets(results, "go", "py")
    assert sentence.count("client_bound") == 1
    assert (
        "Caution: both sides' runs had a load tool at its CPU limit (5 of 5 and 5 of 5 runs; "
        "flag `client_bound` under Validity): the load tool may be" in sentence
    )


def test_flags_of_one_side_are_named_with_that_side() -> None:
    results = pd.DataFrame(runs("go", FAST, "") + runs("py", SLOW, "timeouts"))
    assert (
        "Caution: py's runs had timed-out requests (5 of 5 runs; flag `timeouts` under "
        "Validity): its latency figures leave out the slowest"
        in compare_targets(results, "go", "py")
    )


@pytest.mark.parametrize(
    ("server_cpu", "ending"),
    [
        (20.0, "the server used only 20 % of its CPU: the 1,020 req/s measure the load tool, "
               "not the server."),
        (88.7, "the server also used 89 % of its CPU: both were near their limit, so 1,020 "
               "req/s is a lower bound of what the server can serve."),
    ],
)  # fmt: skip
def test_tool_limit_says_the_tool_was_measured_only_when_the_server_was_idle(
    server_cpu, ending
) -> None:
    limited = pd.DataFrame(
        runs("go", FAST, "client_bound;near_tool_ceiling", headroom=0.97, server_cpu=server_cpu)
    )
    sentence = tool_limit_sentence(limited, "go")
    assert sentence.startswith(
        "For **go**, the load tool was at its limit in 5 of 5 runs (locust HttpUser x1 used a "
        "median 99 % CPU and reached 97 % of its ceiling)"
    )
    assert sentence.endswith(ending)
    assert tool_limit_sentence(pd.DataFrame(runs("go", FAST, "short_run")), "go") == ""


def test_headroom_note_with_and_without_a_calibration() -> None:
    calibrated = pd.DataFrame(runs("go", FAST, "", headroom=0.95) + runs("py", SLOW, "", 0.5))
    assert "5 of 10 runs reached 90 % or more" in headroom_note(calibrated)
    assert "No run has a load-tool headroom" in headroom_note(pd.DataFrame(runs("go", FAST, "")))
    assert "went past" not in headroom_note(calibrated)
    past = pd.DataFrame(runs("go", FAST, "", headroom=1.58) + runs("py", SLOW, "", 0.5))
    assert headroom_note(past).endswith(
        "5 of 10 runs reached 90 % or more. 5 of them went past it, so this setting can "
        "produce more than notebook 00 measured, and a run flagged `near_tool_ceiling` may not "
        "have had the tool at its limit."
    )


def test_each_flag_is_explained_once_with_its_runs() -> None:
    results = pd.DataFrame(runs("go", FAST, "littles_law") + runs("py", SLOW, "littles_law"))
    notes = validity_notes(results)
    (littles,) = [n for n in notes if n.startswith("`littles_law`")]
    assert "throughput and latency disagree" in littles and "go (5/5), py (5/5)" in littles
    assert sum("littles_law" in n for n in notes) == 1


def test_one_ratio_per_load_beside_the_articles() -> None:
    gap = pd.DataFrame(
        {"go/py": [1.01, 10.06], "verdict": ["no significant difference", "go higher"]},
        index=pd.Index(["Locust", "wrk"], name="load"),
    )
    assert ratio_by_group(gap, "go", "py", 1.29) == (
        "go / py req/s by load: Locust 1.01× (no significant difference); wrk 10× (go higher). The "
        "article's 1.29× compares what its load tool could produce as much as what its servers "
        "could serve."
    )


def test_incidents_read_once_per_target_with_how_many_more() -> None:
    from benchbook.analyse.words.conclusions import incident_notes

    data = pd.DataFrame(
        {
            "target": ["a", "a", "a", "b", "c"],
            "incident": [
                "a lost 3 in repetition 1",
                "a lost 5 in repetition 2",
                "",
                "b died",
                None,
            ],
        }
    )
    assert incident_notes(data) == [
        "What happened: a lost 3 in repetition 1 (and in 1 more of its runs, each told in "
        "that run's results.csv).",
        "What happened: b died.",
    ]


def test_records_lost_under_reused_ids_say_how_often_an_id_was_reused() -> None:
    from benchbook.analyse.words.conclusions import incident_notes

    harness = (
        "s lost data in repetition 1: 2,410 records confirmed but only 38 distinct ids: "
        "2,372 were handed out twice, and each overwrote another; the store holds 38 new "
        "records for 38 confirmed ids"
    )
    data = pd.DataFrame(
        {"target": ["s"], "repetition": [1], "incident": [harness], "created": [2410],
         "distinct_ids": [38]}
    )  # fmt: skip
    (note,) = incident_notes(data)
    assert "handed out twice" not in note
    # 2,410 / 38 = 63.4 records an id, 2,410 − 38 overwritten; the harness's other finding stays
    assert "2,410 records confirmed under only 38 distinct ids (about 63 records an id)" in note
    assert "2,372 were overwritten by a later record given the same id" in note
    assert note.endswith("; the store holds 38 new records for 38 confirmed ids.")


def test_a_time_below_one_reads_lower_on_one_scale_and_alike_wherever_it_prints() -> None:
    from benchbook.analyse.words.conclusions import ranking
    from benchbook.analyse.words.sessions import ranked_interval

    # inverted from the unrounded ratio: 1/0.001724 is 580×, where the printed 0.0017×
    # would give 588×; 1/0.5224 is 1.91×, 1/0.5215 is 1.92×
    assert "**580× lower**" in ranking(1 / 580, "h", "g", "ns_per_op", "ns/op")
    assert "**1.91× lower**" in ranking(0.5224, "h", "g", "ns_per_op", "ns/op")
    assert "**1.92× lower**" in ranking(0.5215, "h", "g", "ns_per_op", "ns/op")
    # the interval on the same scale as the '× lower' it stands beside: 1/0.532, 1/0.511
    assert ranked_interval(0.522, 0.511, 0.532, "ns_per_op", "ns/op") == "1.88–1.96× lower"
    # a time below 1 whose interval reaches above 1: each end in its own direction
    assert ranked_interval(0.952, 0.885, 1.03, "lat_p50_ms") == "1.13× lower to 1.03× higher"
    # a rate below 1 reads as a share, and so does its interval
    assert ranked_interval(0.52, 0.51, 0.53, "rps") == "51–53 %"
    assert ranked_interval(1.3, 1.2, 1.4, "rps") == "1.20–1.40×"


def test_an_interval_end_near_1_keeps_the_digits_that_say_which_side_it_is_on() -> None:
    """Read-through 14: '0.806–1.00×' beside 'no significant difference' left a reader
    unable to tell whether the interval held 1 (its end was 1.0023)."""
    from benchbook.analyse.numbers import formatting as fmt

    assert fmt.interval(0.8066, 1.00228) == "0.807–1.002×"  # the other end as before
    assert fmt.interval(0.95, 1.0) == "0.950–1.00×"  # an end that is 1 reads as 1
    assert fmt.interval(1.19, 1.21) == "1.19–1.21×"


def test_an_end_of_a_hundred_or_more_lends_the_other_no_digits() -> None:
    """The report printed '95 % CI 4.433–2,175×' (and '137.0–1,299×' before it)."""
    from benchbook.analyse.numbers import formatting as fmt

    assert fmt.interval(4.4329, 2175.2) == "4.4–2,175×"
    assert fmt.interval(137.6, 1303.0) == "138–1,303×"
    assert fmt.interval(0.3, 120.0) == "0.30–120×"
