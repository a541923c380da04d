"""Lost records of write runs: duplicate ids counted exactly, a sample's wrong reads scaled
to its run, with the sample's 95 % interval, and the store's own count beside them."""

import math
import re

import numpy as np
import pandas as pd
from scipy.stats import beta

from benchbook.analyse.words.lost_records import lost_brief, lost_records, lost_summary
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import Run


def run(target: str, created, distinct, store, checked, wrong) -> dict:
    return {
        "target": target,
        "created": created,
        "distinct_ids": distinct,
        "store_new": store,
        "resolved_checked": checked,
        "resolved_wrong": wrong,
    }


def clopper_pearson(wrong: int, checked: int) -> tuple[float, float]:
    """The exact binomial 95 % interval from beta quantiles (independent of the code's
    scipy.stats.binomtest)."""
    low = 0.0 if wrong == 0 else beta.ppf(0.025, wrong, checked - wrong + 1)
    high = 1.0 if wrong == checked else beta.ppf(0.975, wrong + 1, checked - wrong)
    return low, high


def only(results: list[dict]) -> str:
    (sentence,) = lost_records(pd.DataFrame(results))
    return sentence


def test_duplicate_ids_only_are_counted_exactly() -> None:
    # 150 confirmed, 140 distinct ids: 10 records overwritten; the 130 with an id of
    # their own (140 − 10) were all read back, none wrong.
    sentence = only([run("dup", 150, 140, 140, 130, 0)])
    assert sentence == (
        "**dup**: 150 URLs confirmed with 201 in 1 run; 10 lost (10 overwritten by a "
        "later URL given the same id; the 10 ids given out more than once keep one URL each, "
        "not read back); the store's own count matches the confirmed ids."
    )
    assert lost_summary(pd.DataFrame([run("dup", 150, 140, 140, 130, 0)])) == (
        "Of the URLs created in this session's write runs: **dup** lost 10 of 150 URLs it had "
        "confirmed with 201."
    )


def test_a_sample_with_wrong_reads_is_scaled_to_the_run_with_its_interval() -> None:
    # 2,000 distinct ids; 25 of a 500-record sample wrong → 25/500 × 2,000 = 100.
    low, high = clopper_pearson(25, 500)
    lo, hi = math.floor(2000 * low), math.ceil(2000 * high)
    assert 25 <= lo < 100 < hi <= 2000 - 475
    results = [run("lossy", 2000, 2000, 1940, 500, 25)]
    assert only(results) == (
        f"**lossy**: 2,000 URLs confirmed with 201 in 1 run; about 100 lost "
        f"(95 % CI {lo}–{hi}: 25 of a 500-record sample read back wrong, scaled to 2,000); "
        "the store's own count is 60 short of the confirmed ids."
    )
    assert lost_summary(pd.DataFrame(results)) == (
        "Of the URLs created in this session's write runs: **lossy** lost about 100 (95 % interval "
        f"{lo}–{hi}) of 2,000 URLs it had confirmed with 201."
    )


def test_the_old_reading_of_the_sample_as_the_whole_run_is_gone() -> None:
    # The report's case: 37 wrong in a 500-record sample of 1,909 is not "lost 37".
    sentence = only([run("go-shortener-lossy", 1909, 1909, 1863, 500, 37)])
    assert f"about {round(37 / 500 * 1909)} lost" in sentence  # 141
    assert "the store's own count is 46 short of the confirmed ids" in sentence
    assert "lost 37 " not in lost_summary(
        pd.DataFrame([run("go-shortener-lossy", 1909, 1909, 1863, 500, 37)])
    )


def interval(sentence: str) -> tuple[int, int]:
    low, high = re.search(r"95 % CI ([\d,]+)–([\d,]+)", sentence).groups()
    return int(low.replace(",", "")), int(high.replace(",", ""))


def test_the_interval_covers_the_true_count_of_a_known_population() -> None:
    # Two runs whose true losses are known: 120 of 2,400 and 30 of 1,500 records with an
    # id of their own read back wrong; 500 of each drawn without replacement, as
    # data_loss does. The interval must contain 150 in at least 95 % of the draws.
    rng = np.random.default_rng(7)
    truth, draws, covered = 120 + 30, 300, 0
    for _ in range(draws):
        wrong_a = rng.hypergeometric(120, 2400 - 120, 500)
        wrong_b = rng.hypergeometric(30, 1500 - 30, 500)
        sentence = only(
            [
                run("lossy", 2400, 2400, 2280, 500, wrong_a),
                run("lossy", 1500, 1500, 1470, 500, wrong_b),
            ]
        )
        low, high = interval(sentence)
        covered += low <= truth <= high
    assert covered / draws >= 0.95


def test_each_run_is_scaled_by_its_own_sample() -> None:
    # Run 1: 50 of a 500 sample of 1,000 wrong → 100; run 2: all 300 read back, none
    # wrong → 0. Pooling the samples would say 50/800 × 1,300 ≈ 81.
    sentence = only([run("t", 1000, 1000, 900, 500, 50), run("t", 300, 300, 300, 300, 0)])
    assert "about 100 lost" in sentence
    assert "50 of the 800 checked read back wrong, scaled run by run to the 1,300" in sentence


def test_duplicates_and_a_sample_together() -> None:
    # 1,010 confirmed, 1,000 distinct: 10 overwritten; the ids of their own are taken as
    # 1,000 − 10 = 990 (each duplicate handed out twice); 50 of 500 wrong → 99 + 10.
    sentence = only([run("both", 1010, 1000, 1000, 500, 50)])
    assert "about 109 lost" in sentence
    assert "10 overwritten by a later URL given the same id" in sentence


def test_a_fully_checked_run_gives_an_exact_count_and_no_interval() -> None:
    sentence = only([run("full", 300, 300, 294, 300, 6)])
    assert sentence == (
        "**full**: 300 URLs confirmed with 201 in 1 run; 6 lost (6 of all 300 with an id "
        "of their own read back wrong); the store's own count is 6 short of the confirmed ids."
    )
    assert "CI" not in sentence and "about" not in sentence


def test_the_store_count_is_shown_beside_in_every_direction() -> None:
    def store_part(*runs: dict) -> str:
        return only(list(runs)).split("; ")[-1]

    assert store_part(run("s", 300, 300, 297, 300, 3)) == (
        "the store's own count is 3 short of the confirmed ids."
    )
    assert store_part(run("s", 300, 300, 304, 300, 3)) == (
        "the store holds 4 more new records than there are confirmed ids."
    )
    # A run short by 5 and another over by 2 do not cancel out.
    assert store_part(run("s", 300, 300, 295, 300, 3), run("s", 200, 200, 202, 200, 1)) == (
        "the store's own count is 5 short of the confirmed ids in some runs and holds 2 more "
        "in others."
    )
    assert store_part(run("s", 300, 300, None, 300, 3), run("s", 200, 200, 198, 200, 1)) == (
        "in the 1 run with a count, the store's own count is 2 short of the confirmed ids."
    )
    assert store_part(run("s", 300, 300, None, 300, 3)) == (
        "the store's own count is not available."
    )


def test_no_loss_when_everything_was_read_back() -> None:
    results = [run("clean", 300, 300, 300, 300, 0), run("clean", 200, 200, 200, 200, 0)]
    assert only(results) == (
        "**clean**: 500 URLs confirmed with 201 in 2 runs, each with an id of its own, "
        "each read back as created (checked: 500); the store's own count matches the "
        "confirmed ids — nothing lost."
    )
    assert lost_summary(pd.DataFrame(results)) == (
        "Of the URLs created in this session's write runs: clean lost none."
    )


def test_no_loss_in_a_sample_says_it_was_a_sample() -> None:
    # 0 of 500 wrong: the Clopper–Pearson upper end is 1 − 0.025^(1/500), scaled to 2,000.
    at_most = math.ceil(2000 * (1 - 0.025 ** (1 / 500)))
    results = [run("clean", 2000, 2000, 2000, 500, 0)]
    sentence = only(results)
    assert "nothing lost" not in sentence
    assert (
        f"none of the 500 sampled read back wrong, so at most about {at_most} lost (95 %)"
    ) in sentence
    assert lost_summary(pd.DataFrame(results)) == (
        "Of the URLs created in this session's write runs: clean lost none in a sample of 500 "
        f"(at most about {at_most}, 95 % upper bound)."
    )


def test_runs_without_writes_are_left_out() -> None:
    assert lost_records(pd.DataFrame([{"target": "read", "rps": 1.0}])) == []
    assert lost_summary(pd.DataFrame([{"target": "read", "rps": 1.0}])) == ""
    mixed = pd.DataFrame([{"target": "read", "created": None}, run("w", 10, 10, 10, 10, 0)])
    assert [s.split(":")[0] for s in lost_records(mixed)] == ["**w**"]


def test_page_1_names_who_lost_records_and_counts_the_rest() -> None:
    results = [
        run("two-step", 9573, 145, 145, 145, 0),  # ids handed out again: 9,428 overwritten
        run("sampled-lossy", 2000, 2000, 1940, 500, 25),  # about 100 from a sample
        run("clean", 300, 300, 300, 300, 0),
        run("sampled-clean", 2000, 2000, 2000, 500, 0),
    ]
    assert lost_brief(pd.DataFrame(results)) == (
        "**two-step** lost 9,428 of 9,573 and **sampled-lossy** lost about 100 of 2,000 URLs "
        "confirmed with 201; the other 2 lost none that sampled reads could find."
    )
    kept = [run("clean", 300, 300, 300, 300, 0)]
    assert lost_brief(pd.DataFrame(kept)) == "No write setup lost a URL it had confirmed."
    assert lost_brief(pd.DataFrame([{"target": "read", "rps": 1.0}])) == ""


def test_page_ones_sentence_names_servers_as_a_reader_knows_them() -> None:
    # session S9's write runs: two setups lost URLs; no harness label reaches page 1
    run = Run(REPO_ROOT / "data" / "runs" / "20261127T034447Z-04_url_shortener_post-eaf2")
    said = lost_brief(run.results())
    assert "**Go net/http + Redis (two steps, create requests)** lost about" in said
    # the id scheme behind the losses is said in words, from the rows' ids factor
    assert said.endswith(
        " Two steps: each create reads the last id, then writes the next one back (the "
        "article's code), so two creates at once can take the same id and the later URL "
        "overwrites the first."
    )
    assert "go-shortener" not in said and "python-shortener" not in said
