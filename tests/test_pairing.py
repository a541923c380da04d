"""Comparisons pair A and B round by round where the rows allow it, and say so."""

import pandas as pd
import pytest

from benchbook.analyse.findings.headlines import headline
from benchbook.analyse.numbers.pairing import (
    aa_band,
    comparison,
    count_text,
    runs_text,
    within_band,
)
from benchbook.analyse.words.conclusions import compare_targets


def rounds(rps_a: list[float], rps_b: list[float], run_id: str = "r1") -> pd.DataFrame:
    clean = dict.fromkeys(["err_connect", "err_read", "err_write", "err_timeout", "non_2xx"], 0)
    rows = [
        {"run_id": run_id, "repetition": i + 1, "target": target, "rps": value, "flags": ""}
        | clean
        | {"requests": 10 * value, "headroom": None, "tool_setting": "wrk", "incident": ""}
        | {"client_cpu_pct": 50.0, "server_cpu_pct": 99.0, "host_steal_pct": 0.0}
        for target, values in (("a", rps_a), ("b", rps_b))
        for i, value in enumerate(values)
    ]
    return pd.DataFrame(rows)


# The machine drifts 40 % over the rounds; A is 5 % faster than B in every round.
DRIFT = [1000, 1100, 1200, 1300, 1400, 1250, 1050, 1150]
FASTER = [v * 1.05 for v in DRIFT]


def test_rounds_are_paired_and_the_drift_cancels() -> None:
    c = comparison(rounds(FASTER, DRIFT), "a", "b")
    assert c.paired and c.n_a == 8
    assert c.ratio == pytest.approx(1.05) and c.significant
    assert count_text(c) == "8 rounds" and runs_text(c) == "8 rounds, paired"
    sentence = compare_targets(rounds(FASTER, DRIFT), "a", "b")
    assert "1.05" in sentence and "8 rounds, paired" in sentence


def test_several_rows_a_round_are_one_value_of_that_round() -> None:
    # two paths a round share its server and minute: not 16 independent runs a side, but
    # one value a round (their geometric mean), paired over the 8 rounds
    other_path = rounds([v * 1.2 for v in FASTER], [v * 1.2 for v in DRIFT])
    pooled = pd.concat([rounds(FASTER, DRIFT), other_path], ignore_index=True)
    c = comparison(pooled, "a", "b")
    assert c.paired and (c.n_a, c.n_b) == (8, 8)
    assert c.ratio == pytest.approx(1.05) and c.significant  # the drift still cancels
    # the medians printed are the runs', as the tables give them
    assert c.median_a == pooled.loc[pooled["target"] == "a", "rps"].median()


def test_a_round_with_one_side_missing_is_left_out() -> None:
    data = rounds(FASTER, DRIFT)
    data = data[~((data["target"] == "b") & (data["repetition"] == 3))]
    c = comparison(data, "a", "b")
    assert c.paired and c.n_a == 7


def test_fewer_rounds_than_a_paired_test_needs_are_compared_as_two_samples() -> None:
    # Five rounds could never give p < 0.05 paired (2/2^5); four runs a side can, unpaired.
    c = comparison(rounds(FASTER[:5], DRIFT[:5]), "a", "b")
    assert not c.paired and (c.n_a, c.n_b) == (5, 5)


def with_copy(a: list[float], copy: list[float], b: list[float]) -> pd.DataFrame:
    extra = rounds(copy, copy).query("target == 'a'").assign(target="a (A/A copy)")
    return pd.concat([rounds(a, b), extra], ignore_index=True)


def test_an_aa_control_gives_the_band_and_a_ratio_inside_it_is_no_verdict() -> None:
    # The copy strays up to ±6 % from the original round by round; A beats B by 4 %.
    noise = [1.06, 0.95, 1.05, 0.96, 1.04, 0.94, 1.06, 0.95]
    copy = [v * 1.04 * n for v, n in zip(DRIFT, noise, strict=True)]
    a = [v * 1.04 for v in DRIFT]
    data = with_copy(a, copy, DRIFT)
    control, band = aa_band(data)
    assert control == "a" and 1.03 < band < 1.08
    c = comparison(data, "a", "b")
    assert c.significant and within_band(c.ratio, band)
    h = headline("a vs b", data, "a", "b", experiment="pairing_test")
    assert h.brief.startswith("**Not resolvable on this machine**") and h.resolvable == band
    # A 30 % difference is far outside the band: a verdict as usual.
    far_copy = [v * 1.3 * n for v, n in zip(DRIFT, noise, strict=True)]
    far = with_copy([v * 1.3 for v in DRIFT], far_copy, DRIFT)
    assert (
        "served **1.30× the requests per second**"
        in headline("a vs b", far, "a", "b", experiment="pairing_test").brief
    )
