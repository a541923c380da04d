"""Lesson 04's exercise helpers, without servers: the think-time run's wait and length,
the disk's sync time, bbolt's bound and the share of confirmed records kept."""

import math

import pandas as pd
import pytest

from benchbook.analyse.experiments.shortener import mean_wait_s
from benchbook.course.exercise import Settings
from benchbook.course.exercises import url_shortener as ex


def test_the_classroom_setting_counts_two_of_the_authors_waits_after_the_first() -> None:
    wait, run_s = ex.think_time_load(Settings("5s", 3))
    assert wait == "10-9000ms"
    assert run_s == math.ceil(1 + 3 * 4.505 + 1) == 16


def test_a_longer_round_keeps_its_duration() -> None:
    assert ex.think_time_load(Settings("30s", 1)) == ("10-9000ms", 30)


def test_the_smoke_round_scales_the_wait_so_two_waits_are_still_counted() -> None:
    # CI's failure: 3 s runs (three waits from the start) left no whole second to count.
    wait, run_s = ex.think_time_load(Settings("1s", 1))
    assert wait == "2-1800ms"
    assert run_s == 5 and run_s - 1 - mean_wait_s(wait) - 1 >= 2 * mean_wait_s(wait)


def test_a_sync_takes_a_positive_time(tmp_path) -> None:
    taken = ex.sync_ms(tmp_path, samples=20)
    assert 0 < taken < 1000


def test_a_create_takes_its_cpu_time_then_two_syncs() -> None:
    assert ex.bolt_creates_rate(0.1, 0.2) == pytest.approx(2500)
    assert ex.bolt_creates_rate(25, 0.2) == pytest.approx(1000 / 50.2)  # the article's SD card


def counts(created: int, distinct: int, checked: int, wrong: int) -> dict[str, int]:
    return {
        "created": created,
        "distinct_ids": distinct,
        "resolved_checked": checked,
        "resolved_wrong": wrong,
    }


def test_a_store_that_kept_every_record_kept_all_of_them() -> None:
    assert ex.kept_share(pd.DataFrame([counts(900, 900, 500, 0), counts(100, 100, 100, 0)])) == 1


def test_reused_ids_and_wrong_read_backs_are_lost() -> None:
    runs = pd.DataFrame([counts(1000, 40, 0, 0), counts(1000, 960, 500, 5)])
    assert ex.kept_share(runs) == pytest.approx(1000 / 2000 * (1 - 5 / 500))


def test_no_record_confirmed_is_an_error() -> None:
    with pytest.raises(ValueError, match="no record confirmed"):
        ex.kept_share(pd.DataFrame([counts(0, 0, 0, 0)]))
