"""benchbook.analyse.experiments (notebook 06's analysis): the pause model and the freeze
comparison's arithmetic, capacity at an SLO on constructed runs, their charts — and real
open-loop runs: vegeta's rows, a rate it cannot send, and the freeze server under vegeta
and wrk."""

import math
import re

import numpy as np
import pandas as pd
import pytest
from conftest import descendants

from benchbook import measure
from benchbook.analyse.display import chart_style, plots
from benchbook.analyse.experiments import (
    capacity,
    capacity_wording,
    coordinated_omission,
    offered_load,
    open_loop,
)
from benchbook.analyse.experiments.capacity import CAPACITY
from benchbook.analyse.experiments.coordinated_omission import (
    MODEL,
    OPEN,
    OPEN_SHORT,
    REPORTED,
    TIMED,
    TIMED_SHORT,
)
from benchbook.analyse.findings.headlines import headline
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.stats import compare
from benchbook.runs.layout import REPO_ROOT

# --- the pause model


def test_pause_model_gives_the_hand_checked_quantiles_of_200_ms_every_second() -> None:
    # A share P/T = 20 % waits uniformly in (0, 200 ms): the q-quantile is 200 - (1 - q)·1000.
    model = coordinated_omission.pause_model(0.2, 1.0)
    assert model == pytest.approx({0.5: 0.0, 0.9: 100.0, 0.99: 190.0, 0.999: 199.0})
    assert coordinated_omission.pause_mean_ms(0.2, 1.0) == pytest.approx(20.0)  # P²/(2T)
    # A shorter pause leaves p90 on the fast path, which the model adds to every quantile.
    short = coordinated_omission.pause_model(0.05, 1.0, (0.9, 0.99, 0.999), service_ms=0.3)
    assert short == pytest.approx({0.9: 0.3, 0.99: 40.3, 0.999: 49.3})
    assert coordinated_omission.pause_mean_ms(0.05, 1.0) == pytest.approx(1.25)


def test_pause_model_agrees_with_requests_spread_evenly_over_a_period() -> None:
    period, pause = 1.0, 0.2
    sent = (np.arange(100_000) + 0.5) / 100_000 * period  # a schedule: evenly in time
    waits_ms = 1000 * np.where(sent >= period - pause, period - sent, 0.0)
    for share, expected in coordinated_omission.pause_model(pause, period).items():
        assert np.quantile(waits_ms, share) == pytest.approx(expected, abs=0.05)
    assert waits_ms.mean() == pytest.approx(
        coordinated_omission.pause_mean_ms(pause, period), abs=0.01
    )


@pytest.mark.parametrize(("pause", "period"), [(1.0, 1.0), (-0.1, 1.0), (2.0, 1.0)])
def test_a_pause_as_long_as_its_period_has_no_model(pause: float, period: float) -> None:
    with pytest.raises(ValueError, match="shorter than the period"):
        coordinated_omission.pause_model(pause, period)


# --- the freeze comparison, on constructed rows


def freeze_rows() -> pd.DataFrame:
    """Three vegeta runs near the model and three wrk runs as the freeze server gives them,
    as one run's results (numbers of the same shape as real runs: 10 connections, 10 ms
    think, 3 s)."""
    common = {"flags": "", "err_connect": 0, "err_read": 0, "err_write": 0, "err_timeout": 0,
              "non_2xx": 0, "headroom": np.nan, "duration_s": 3.0}  # fmt: skip
    vegeta = pd.DataFrame([
        common | {"target": "go-freeze", "tool": "vegeta", "repetition": r, "rps": 1000.0,
                  "requests": 3000,
                  "lat_mean_ms": 21.0 + r, "lat_p50_ms": 0.2, "lat_p90_ms": 104.0 + r,
                  "lat_p99_ms": 193.0 + r, "lat_p999_ms": 205.0, "max_in_flight": 202}
        for r in (1, 2, 3)
    ])  # fmt: skip
    wrk = pd.DataFrame([
        common | {"target": "go-freeze", "tool": "wrk", "repetition": r, "rps": 754.0,
                  "requests": 2263, "connections": 10, "think_ms": 10.0, "lat_mean_ms": 17.8,
                  "lat_p50_ms": 0.3, "lat_p90_ms": 88.0 + r, "lat_p99_ms": 194.0,
                  "lat_p999_ms": 199.0, "lat_p50_uncorrected_ms": 0.3,
                  "lat_p90_uncorrected_ms": 0.5, "lat_p99_uncorrected_ms": 194.0 + r,
                  "lat_p999_uncorrected_ms": 199.0, "flags": "littles_law"}
        for r in (1, 2, 3)
    ])  # fmt: skip
    return pd.concat([vegeta, wrk], ignore_index=True)


def test_freeze_runs_put_what_wrk_timed_beside_what_it_reports() -> None:
    results = freeze_rows()
    runs = coordinated_omission.freeze_runs(results)
    by_source = runs.groupby("target")["lat_p90_ms"].median()
    assert by_source[TIMED] == 0.5 and by_source[REPORTED] == 90.0
    assert runs.loc[runs["target"] == TIMED, "lat_mean_ms"].isna().all()
    assert (runs.loc[runs["target"] != OPEN, "flags"] == "littles_law").all()
    with pytest.raises(ValueError, match="uncorrected=True"):
        coordinated_omission.freeze_runs(results.drop(columns="lat_p90_uncorrected_ms"))
    with pytest.raises(ValueError, match=r"vegeta and wrk; these results have \['wrk'\]"):
        coordinated_omission.freeze_runs(results[results["tool"] == "wrk"])


def test_the_headline_names_what_wrk_timed_and_the_open_loop_briefly() -> None:
    runs = coordinated_omission.timed_vs_open_loop(freeze_rows())
    assert set(runs["target"]) == {TIMED_SHORT, OPEN_SHORT, REPORTED}


def test_freeze_percentiles_and_the_model_row() -> None:
    results = freeze_rows()
    table = coordinated_omission.freeze_percentiles(
        coordinated_omission.freeze_runs(results), 0.2, 1.0
    )
    cell = table.set_index(["source", "percentile"])
    assert cell.loc[(OPEN, "p90"), ["median", "low", "high", "n"]].tolist() == [
        106.0, 105.0, 107.0, 3]  # fmt: skip
    # The model: the pause model plus the fast path (the open loop's median p50).
    assert cell.loc[(MODEL, "p99"), "median"] == pytest.approx(190.2)
    assert cell.loc[(MODEL, "p50"), "median"] == pytest.approx(0.2)
    shown = coordinated_omission.freeze_table(table)
    assert shown.loc[OPEN, "p90 ms"] == "106 (105–107)"
    assert shown.loc[MODEL, "runs"] == "model"


def test_missed_stall_names_its_reference_and_says_when_wrk_is_close() -> None:
    results = freeze_rows()
    runs = coordinated_omission.freeze_runs(results)
    p90 = coordinated_omission.missed_stall_sentence(runs, 0.9)
    assert "**wrk's p90 as timed (uncorrected) missed 106 ms of stall**" in p90
    assert "open-loop p90 106 ms − wrk's 0.500 ms" in p90
    assert "as reported (corrected) missed 16.0 ms of stall" in p90
    p99 = coordinated_omission.missed_stall_sentence(runs, 0.99)
    assert "as timed (uncorrected) was close (1.00 ms more)" in p99
    assert "as reported (corrected) was close (1.00 ms less)" in p99
    assert coordinated_omission.missed_stall(100.0, 130.0) == "overstated it by 30.0 ms"


def test_what_wrk_assumed_and_what_reached_a_pause() -> None:
    results = freeze_rows()
    wrk = results[results["tool"] == "wrk"]
    # wrk's own arithmetic: 3,000,000 µs // (2263 // 10 = 226 requests per connection).
    assert coordinated_omission.fill_in_interval_ms(wrk) == pytest.approx(13.274)
    # 10 connections × 3 pauses of 2263 requests.
    assert coordinated_omission.stalled_share(wrk, 1.0) == pytest.approx(30 / 2263)
    sentences = " ".join(
        coordinated_omission.freeze_sentences(coordinated_omission.freeze_runs(results), 0.2, 1.0)
    )
    assert "At most 1.3 % of wrk's requests met a pause" in sentences
    assert "puts fewer requests into each pause" in sentences  # 13.3 ms > 10 + 0.3 ms
    assert "≈ 21 connections busy, from 10 connections" in sentences  # 754 × 27.8 ms
    brief = coordinated_omission.freeze_brief(coordinated_omission.freeze_runs(results), 0.2, 1.0)
    assert "more than the 1 % above a p99" in brief


# --- capacity at an SLO, on constructed runs


def load_rows(target: str, p99s: dict[float, list[float]], **columns: object) -> pd.DataFrame:
    """Runs of one target: rate → p99 per repetition; everything else quiet and valid."""
    rows = []
    for rate, values in p99s.items():
        for rep, p99 in enumerate(values, 1):
            rows.append({"run_id": "r", "experiment": "e", "target": target, "server": target,
                         "tool": "vegeta", "repetition": rep, "target_rate": rate,
                         "achieved_rate": rate,
                         "lat_p50_ms": p99 / 3, "lat_p99_ms": p99, "flags": "", "requests": 10_000,
                         "err_connect": 0, "err_read": 0, "err_write": 0, "err_timeout": 0,
                         "non_2xx": 0, "headroom": np.nan, "client_cpu_pct": 30.0,
                         "server_cpu_pct": 60.0} | columns)  # fmt: skip
    return pd.DataFrame(rows)


def repetition(caps: pd.DataFrame, target: str, rep: int = 1) -> pd.Series:
    return caps[(caps["target"] == target) & (caps["repetition"] == rep)].iloc[0]


def test_capacity_lies_where_p99_crosses_the_slo_on_a_log_scale() -> None:
    runs = load_rows("a", {100: [1.0], 200: [1.2], 400: [5.0], 800: [100.0]})
    caps = capacity.capacity_runs(runs, factor=10, floor_ms=1)
    found = repetition(caps, "a")
    assert found["slo_ms"] == 10.0  # 10 × the p99 at the lowest rate
    # 400 met it (5 ms), 800 broke it (100 ms): ln(10/5) / ln(100/5) of the way.
    expected = 400 + 400 * math.log(2) / math.log(20)
    assert found[CAPACITY] == pytest.approx(expected)
    assert (found["passed_rps"], found["failed_rps"], found["ended_by"], found["bound"]) == (
        400, 800, "slo", "")  # fmt: skip
    assert "placed between them on a log scale" in capacity_wording.capacity_sentence(caps, "a")


def test_an_invalid_run_never_counts_and_leaves_only_a_lower_bound() -> None:
    runs = load_rows("a", {100: [1.0, 1.0], 200: [1.2, 1.2], 400: [5.0, 5.0], 800: [100.0, 90]})
    runs.loc[(runs["target_rate"] == 400) & (runs["repetition"] == 2), "flags"] = "bad_response"
    caps = capacity.capacity_runs(runs)
    assert repetition(caps, "a", 1)["ended_by"] == "slo"
    flagged = repetition(caps, "a", 2)
    assert (flagged[CAPACITY], flagged["bound"], flagged["ended_by"]) == (
        200, "at least", "invalid")  # fmt: skip
    sentence = capacity_wording.capacity_sentence(caps, "a")
    assert "1 of 2 runs it is **only a lower bound**" in sentence
    # the median of bounds is a floor of the median, and the lowest run's floor is named
    assert "a median capacity of **at least" in sentence and "the lowest run's is at least 200" in (
        sentence
    )
    assert "the run at 400 req/s was invalid (bad_response 1/1)" in sentence


def test_a_server_that_never_meets_its_slo_has_no_capacity() -> None:
    runs = load_rows("slow", {100: [30.0, 40.0], 200: [60.0, 70.0]})
    caps = capacity.capacity_runs(runs, fixed_ms=20)
    assert caps[CAPACITY].isna().all() and (caps["bound"] == "below").all()
    assert "**never met its SLO**, even at the lowest rate offered (100 req/s)" in (
        capacity_wording.capacity_sentence(caps, "slow")
    )
    both = pd.concat([caps, capacity.capacity_runs(load_rows("fast", {100: [1.0, 1.0]}))])
    assert "cannot be ranked" in capacity_wording.capacity_comparison(both, "fast", "slow")


def test_the_tool_not_the_server_ends_the_scan_as_a_lower_bound() -> None:
    runs = load_rows("go", {100: [1.0] * 3, 1000: [2.0] * 3, 10_000: [50.0] * 3})
    top = runs["target_rate"] == 10_000
    # Repetition 1: the tool fell short of the top rate, whose p99 still met the SLO.
    runs.loc[top & (runs["repetition"] == 1), ["flags", "lat_p99_ms"]] = ["rate_shortfall", 3.0]
    # Repetition 2: the SLO broke while the tool, not the server, was at its CPU limit.
    runs.loc[top & (runs["repetition"] == 2), ["client_cpu_pct", "server_cpu_pct"]] = [95, 40]
    caps = capacity.capacity_runs(runs)
    assert repetition(caps, "go", 1)[["ended_by", "bound"]].tolist() == ["tool", "at least"]
    assert "rate_shortfall" in repetition(caps, "go", 1)["flags"]
    assert repetition(caps, "go", 2)[[CAPACITY, "ended_by"]].tolist() == [1000, "tool"]
    assert repetition(caps, "go", 3)["ended_by"] == "slo"  # the server was busy: its own limit
    sentence = capacity_wording.capacity_sentence(caps, "go")
    assert "vegeta used 95 % of a core and the server 40 %" in sentence
    assert "so that rate was not offered" in sentence


def test_failed_requests_break_the_slo_and_every_rate_met_is_a_lower_bound() -> None:
    runs = load_rows("a", {100: [1.0], 200: [1.0], 400: [1.0]})
    assert repetition(capacity.capacity_runs(runs), "a")[["ended_by", "bound"]].tolist() == [
        "every rate", "at least"]  # fmt: skip
    runs.loc[runs["target_rate"] == 400, "err_timeout"] = 101  # 1.01 % of the requests
    found = repetition(capacity.capacity_runs(runs), "a")
    assert (found[CAPACITY], found["ended_by"]) == (200, "slo")  # no p99 line to follow


def test_the_slo_has_a_floor_and_can_be_fixed() -> None:
    runs = load_rows("tiny", {100: [0.02], 200: [0.5]})
    assert capacity.slo_per_target(runs, factor=10, floor_ms=1.0) == {"tiny": 1.0}
    assert capacity.slo_per_target(runs, fixed_ms=50) == {"tiny": 50.0}
    with pytest.raises(ValueError, match="above 0 ms"):
        capacity.slo_per_target(runs, fixed_ms=0)


def test_capacity_comparison_is_a_ratio_with_its_interval_and_says_when_it_is_a_bound() -> None:
    grid = {100: [1.0] * 4, 1000: [2.0] * 4, 2000: [8.0, 9.0, 7.0, 8.5], 4000: [100.0] * 4}
    slow = load_rows("python", {100: [1.0] * 4, 1000: [100.0] * 4})  # breaks between the two
    caps = capacity.capacity_runs(pd.concat([load_rows("go", grid), slow]))
    sentence = capacity_wording.capacity_comparison(caps, "go", "python")
    assert sentence.startswith("**go** took **") and "95 % CI" in sentence
    ratio = compare(caps.loc[caps["target"] == "go", CAPACITY],
                    caps.loc[caps["target"] == "python", CAPACITY])  # fmt: skip
    assert ratio.significant and f"{fmt.p_value(ratio.p_value)}; 4+4 runs" in sentence
    assert f"ratio {fmt.ratio(ratio.ratio)}" in sentence
    assert capacity_wording.capacity_label(caps, "go", "python").endswith("within the SLO")
    # The same runs with go stopped by its tool: its capacities are only lower bounds.
    busy = load_rows("go", grid)
    busy.loc[busy["target_rate"] == 4000, "client_cpu_pct"] = 99
    caps = capacity.capacity_runs(pd.concat([busy, slow]))
    # A side held down by its tool has no two-sided interval and no test: the comparison
    # is this session's bound, go's lowest run over the most python's best run can have
    # reached (its capacity lies between 100 and 1,000 req/s, placed on a line through two
    # p99s: a bound divides by the 1,000 at which it broke the SLO, not by the placed value).
    held = capacity_wording.capacity_comparison(caps, "go", "python")
    valid = caps.dropna(subset=[CAPACITY])
    go_low = valid.loc[valid["target"] == "go", CAPACITY].min()
    assert valid.loc[valid["target"] == "python", CAPACITY].max() < 1000
    assert held.startswith("**go** against **python**, requests per second within the SLO: "
                           "only a lower bound, as the load tool held go down")  # fmt: skip
    assert (  # go's runs are lower bounds: the least each can have been is its capacity
        "the least go's lowest run can have reached (the last rate at which it met the SLO) lay "
        f"{fmt.ratio_at_least(go_low / 1000)} the most python's best run can have reached, the "
        f"rate at which it broke the SLO ({fmt.count(go_low)} vs 1,000 req/s;"
    ) in held
    assert "CI" not in held and "p =" not in held
    # after the capacities' own sentences (notebook 06's body) the reason is not repeated
    short = capacity_wording.capacity_comparison(caps, "go", "python", reasons_above=True)
    assert "(its capacity above says why)" in short and len(short) < len(held)
    # The other way round the bound holds the ratio up: only an upper end holds.
    up = capacity_wording.capacity_comparison(caps, "python", "go")
    assert "**at most" in up and "CI" not in up and "p =" not in up
    assert "at least" in capacity_wording.capacity_sentence(caps, "go")
    assert "CI" not in capacity_wording.capacity_sentence(caps, "go")
    assert capacity_wording.capacity_label(caps, "go", "python").endswith(
        "(go: only a lower bound)"
    )
    assert capacity.capacity_marks(caps)["go"] == (2000.0, "at least")


@pytest.mark.parametrize("lower_bound", ["", "vegeta was the limit"])
def test_a_round_without_a_capacity_is_left_out_of_the_headline(runs_dir, lower_bound) -> None:
    # Python broke the SLO at the lowest rate in its second round (a 1 s smoke round on a
    # busy machine can): that round has no capacity, so the headline compares the rounds
    # that have one, 2+1, and says so, as an interval or as a bound alike.
    go = load_rows(
        "go", {100: [1.0, 1.0], 1000: [2.0, 2.0], 2000: [3.0, 3.0], 3000: [100.0, 100.0]}
    )
    python = load_rows("python", {100: [1.0, 30.0], 1000: [100.0, 100.0]})
    results = pd.concat([go, python], ignore_index=True)
    caps = capacity.capacity_runs(results, fixed_ms=20)
    assert repetition(caps, "python", 2)[[CAPACITY, "bound"]].tolist()[1] == "below"
    assert math.isnan(repetition(caps, "python", 2)[CAPACITY])
    h = headline("go vs python", results, "go", "python", experiment="capacity_test",
                 column=CAPACITY, unit="req/s", lower_bound=lower_bound,
                 select=lambda r: capacity.capacity_runs(r, fixed_ms=20))  # fmt: skip
    assert h.n == "2+1"
    kept = repetition(caps, "python", 1)[CAPACITY]
    go_caps = caps.loc[caps["target"] == "go", CAPACITY]
    if lower_bound:  # the least go's can have been (2,000, the last rate that met the SLO,
        # not where it was placed between 2,000 and 3,000) over the most python's can have
        # been (1,000, where it broke the SLO)
        assert go_caps.min() > 2000 and h.ratio == pytest.approx(2000 / 1000)
    else:
        assert h.ratio == pytest.approx(compare(go_caps, [kept]).ratio)
    assert math.isfinite(h.ratio) and h.ratio > 1


def test_offered_rates_scale_each_servers_own_maximum() -> None:
    maxima = offered_load.closed_loop_maxima(pd.DataFrame({
        "server": ["go", "go", "py", "py"], "rps": [40127.1, 40000.0, 6455.0, 9999.0],
        "flags": ["", "", "", "bad_response"]}))  # fmt: skip
    assert maxima == {"go": pytest.approx(40063.55), "py": 6455.0}
    rates = offered_load.offered_rates(maxima, [1.2, 0.1, 0.1])
    assert rates == {"go": [4010.0, 48100.0], "py": [646.0, 7750.0]}
    with pytest.raises(ValueError, match="above zero"):
        offered_load.offered_rates(maxima, [0.0])


def test_load_table_and_hockey_stick_chart() -> None:
    grid = {100: [1.0, 1.2], 1000: [2.0, 2.2], 2000: [30.0, 35.0]}
    runs = pd.concat([load_rows("go-hello", grid), load_rows("python-hello", grid)])
    runs.loc[runs["target_rate"] == 2000, "flags"] = "rate_shortfall"
    slos = capacity.slo_per_target(runs)
    table = offered_load.load_table(runs, slos, {"go-hello": 2000, "python-hello": 1000})
    assert table.loc[("python-hello", "1,000"), "% of closed-loop max"] == 100
    assert table.loc[("go-hello", "2,000"), "met SLO"] == "0/2"
    marks = capacity.capacity_marks(capacity.capacity_runs(runs))
    fig = plots.hockey_stick(runs, ["go-hello", "python-hello"], slos, "t", marks)
    (ax,) = fig.axes
    labels = ax.get_legend().get_texts()
    go, python = "Go net/http", "FastAPI (uvicorn's defaults)"  # as the tables name them
    assert {t.get_text() for t in labels} >= {
        f"{go}: p99", f"{go}: p50", f"{python}: p99", f"SLO of {go}: p99 ≤ 11 ms",
        "vegeta short of the rate (rate_shortfall)"}  # fmt: skip
    # Short of its top rate, but far above the SLO there: the server's limit, not the tool's.
    assert f"capacity of {go} at its SLO: 1,606 req/s" in {t.get_text() for t in labels}
    assert ax.get_xlabel() == "offered rate (req/s, log scale)" and "ms" in ax.get_ylabel()
    assert ax.get_yscale() == "log"
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert lines[f"{go}: p99"].get_color() == chart_style.colour_for("go-hello")
    assert lines[f"SLO of {python}: p99 ≤ 11 ms"].get_linestyle() == "--"


def test_freeze_chart_shows_every_source_and_the_model() -> None:
    results = freeze_rows()
    table = coordinated_omission.freeze_percentiles(
        coordinated_omission.freeze_runs(results), 0.2, 1.0
    )
    (ax,) = plots.freeze_chart(table, "t").axes
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        MODEL, OPEN, REPORTED, TIMED]  # fmt: skip
    assert [t.get_text() for t in ax.get_xticklabels()] == ["p50", "p90", "p99", "p99.9"]
    assert ax.get_yscale() == "log" and "ms" in ax.get_ylabel()


# --- real runs


@pytest.mark.slow
def test_a_short_vegeta_run_gives_rows_with_the_rate_asked_and_the_rate_sent(registry) -> None:
    run = measure.run(
        measure.Experiment(
            "openloop_test",
            ["go-hello"],
            measure.tool("vegeta", rate=[200, 500], duration="2s"),
            warmup="0s",
            repetitions=1,
        ),
        registry=registry,
    )
    assert descendants() == []
    results = run.results().set_index("target_rate")
    assert sorted(results.index) == [200, 500]  # in the round's random order
    for rate, row in results.iterrows():
        assert row["achieved_rate"] == pytest.approx(rate, rel=0.05)
        assert row["requests"] == pytest.approx(2 * rate, rel=0.05)
        assert row["tool"] == "vegeta" and 0 < row["lat_p50_ms"] <= row["lat_p99_ms"]
        assert "rate_shortfall" not in row["flags"] and "workers_exhausted" not in row["flags"]
        assert row["max_workers"] == 1000 and row["max_in_flight"] >= 1


@pytest.mark.slow
def test_a_rate_the_workers_cannot_send_is_flagged_rate_shortfall(registry) -> None:
    # 10 workers on a server that takes 100 ms per request: at most 100 req/s, not 1000.
    run = measure.run(
        measure.Experiment(
            "openloop_test",
            ["go-iodelay"],
            measure.tool(
                "vegeta", rate=1000, duration="2s", max_workers=10, max_connections=10, timeout="5s"
            ),
            server_params={"delay_ms": 100},
            warmup="0s",
            repetitions=1,
        ),
        registry=registry,
    )
    assert descendants() == []
    row = run.results().iloc[0]
    assert row["target_rate"] == 1000 and row["achieved_rate"] < 150
    assert {"rate_shortfall", "workers_exhausted"} <= set(row["flags"].split(";"))
    assert row["max_in_flight"] == 10


@pytest.mark.slow
def test_the_open_loop_sees_the_freeze_servers_stall_and_what_wrk_timed_does_not(
    registry,
) -> None:
    freeze = {"pause_ms": 200, "period_ms": 1000}
    tools = [
        measure.tool("vegeta", rate=1000, duration="3s"),
        measure.tool(
            "wrk", connections=10, threads=1, duration="3s", think="10ms", uncorrected=True
        ),
    ]
    run = measure.run(
        measure.Experiment(
            "openloop_test",
            ["go-freeze"],
            tools,
            server_params=freeze,
            warmup="0s",
            repetitions=1,
        ),
        registry=registry,
    )
    assert descendants() == []
    assert sorted(run.results()["tool"]) == ["vegeta", "wrk"]
    runs = coordinated_omission.freeze_runs(run.results())
    p90 = runs.groupby("target")["lat_p90_ms"].median()
    p99 = runs.groupby("target")["lat_p99_ms"].median()
    model = coordinated_omission.pause_model(0.2, 1.0)
    # The open loop: near the model (100 and 190 ms, plus a fast path well under 5 ms).
    assert p90[OPEN] == pytest.approx(model[0.9], abs=20)
    assert p99[OPEN] == pytest.approx(model[0.99], abs=20)
    # What wrk timed: the fast path at p90, far below the open loop (7.6 ms on a VM whose
    # host took a third of its CPU, 2026-12-07; under 1 ms on a quiet one).
    assert p90[TIMED] < 20 and p90[OPEN] > 5 * p90[TIMED]
    # wrk's fill-in puts back most of it, not all: between the two.
    assert p90[TIMED] < p90[REPORTED] <= p90[OPEN] + 10
    assert "missed" in coordinated_omission.missed_stall_sentence(runs, 0.9)


def test_open_loop_offers_every_name_notebook_06_calls() -> None:
    source = (REPO_ROOT / "notebooks" / "06_open_loop.ipynb").read_text(encoding="utf-8")
    called = set(re.findall(r"\bopen_loop\.([A-Za-z_]+)", source))
    assert called and called <= set(open_loop.__all__)
