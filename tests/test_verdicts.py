"""Every verdict against an article, on constructed comparisons, as one table in the order
claims.verdicts.judge takes them: reproduced only when the article's figure lies inside
the interval judged on, otherwise how and why not."""

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from benchbook.analyse.claims.explanation import Explanation
from benchbook.analyse.claims.verdict_kinds import Verdict, verdict_css
from benchbook.analyse.claims.verdicts import judge
from benchbook.analyse.display import answer_chart
from benchbook.analyse.findings.headlines import headline
from benchbook.analyse.numbers.stats import compare, compare_paired
from benchbook.analyse.sessions.levels import Pooled
from benchbook.analyse.sessions.replication import Replication
from benchbook.analyse.words.conclusions import method_note
from benchbook.analyse.words.flags import RATE_UNDER_LITTLES_LAW
from benchbook.analyse.words.setup import one_process_rounds, setup_differences
from benchbook.analyse.words.verdicts import verdict_and_reason
from benchbook.render import templates
from benchbook.runs.manifest import migrate

# The verdicts as the findings store them.
REPRODUCED = Verdict.REPRODUCED.label
NOT_REPRODUCED = Verdict.NOT_REPRODUCED.label
SOMETHING_ELSE = Verdict.SOMETHING_ELSE.label
NO_ARTICLE = Verdict.NO_ARTICLE.label
TOO_FEW_RUNS = Verdict.TOO_FEW_RUNS.label
SAME_DIRECTION = Verdict.SAME_DIRECTION.label
DIFFERENT_CONDITIONS = Verdict.DIFFERENT_CONDITIONS.label
NOT_RESOLVABLE = Verdict.NOT_RESOLVABLE.label
NO_VALID_RUNS = Verdict.NO_VALID_RUNS.label

RENDER = Path(templates.__file__).parent

DRIFT = [1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1250.0, 1050.0, 1150.0]
JITTER = [1.00, 1.01, 0.99, 1.02, 0.98, 1.01, 0.99, 1.00]


def paired(ratio: float, rounds: int = 8):
    a = [v * ratio * j for v, j in zip(DRIFT[:rounds], JITTER[:rounds], strict=True)]
    return compare_paired(a, DRIFT[:rounds])


def model(estimate: float, low: float, high: float, predict_low: float, predict_high: float):
    """Seven sessions on this class, pooled as given."""
    pooled = Pooled(7, estimate, low, high, predict_low, predict_high, tau=0.05)
    return Replication(machine_class="this class", sessions=7, pooled=pooled, predicted=pooled)


LOOP_404 = Explanation(
    "its HTTP backend answered 404 (its loop gives 101× here)", 101.0, 98.0, 104.0, 0.95
)
LOOP_404_FAR = Explanation(
    "its HTTP backend answered 404 (its loop gives 1.18× here)", 1.18, 1.1, 1.3, 0.95
)


@pytest.mark.parametrize(
    ("c", "kwargs", "expected", "why"),
    [
        # 1. no figure
        (paired(2.0), {"article_ratio": None}, NO_ARTICLE, "no ratio of these two"),
        # 2. a condition that sets the result differs: it wins over everything below
        (paired(1.02), {"article_ratio": 4.9, "different_conditions": "a 10 ms link caps "
         "every server near 900 req/s"}, DIFFERENT_CONDITIONS, "900 req/s; 4.9× in the article"),
        (paired(1.0), {"article_ratio": 1.29, "set_by": "the load tool set both rates"},
         DIFFERENT_CONDITIONS, "load tool"),
        (None, {"article_ratio": 4.9, "different_conditions": "a link"},
         DIFFERENT_CONDITIONS, "a link"),
        # 3. something else measured, only when reproducing it lands near the figure
        (paired(2.0), {"article_ratio": 106.0, "measured_else": LOOP_404},
         SOMETHING_ELSE, "404"),
        (paired(0.9), {"article_ratio": 3.1, "measured_else": LOOP_404_FAR},
         NOT_REPRODUCED, "does not reach the article's 3.1× even with each end moved"),
        # 4. nothing to judge on
        (None, {"article_ratio": 3.0}, NO_VALID_RUNS, "no valid runs"),
        (paired(2.0, rounds=5), {"article_ratio": 3.0}, TOO_FEW_RUNS, "5 rounds"),
        # 5. reproduced: inside this session's interval (one session, nothing to borrow) …
        (paired(2.0), {"article_ratio": 2.0}, REPRODUCED, "(one session: not yet replicated"),
        # … or inside the prediction interval, once the class has a model
        (paired(2.0), {"article_ratio": 2.6, "sessions": model(2.2, 2.0, 2.4, 1.8, 2.7)},
         REPRODUCED, "next session (7 sessions on this machine class), 1.80–2.70×"),
        # 6. not resolvable: within the A/A band, even where the article's figure is inside
        (paired(1.05), {"article_ratio": 1.05, "band": 1.08}, NOT_RESOLVABLE, "A/A control"),
        (paired(1.05), {"article_ratio": 1.5, "band": 1.08}, NOT_RESOLVABLE, "A/A control"),
        # 7. no difference; the same direction, another size; the opposite direction
        (paired(1.0), {"article_ratio": 1.3}, NOT_REPRODUCED, "holds 1: no difference"),
        (paired(2.0), {"article_ratio": 1.3, "sessions": model(1.1, 0.9, 1.3, 0.8, 1.25)},
         NOT_REPRODUCED, "holds 1: no difference"),
        (paired(2.0), {"article_ratio": 4.9, "differences": "one core per server"},
         SAME_DIRECTION, "smaller here; where its setup here differs from the article's, that may "
         "explain it: one core"),
        (paired(5.0), {"article_ratio": 4.0}, SAME_DIRECTION, "larger here"),
        (paired(0.5), {"article_ratio": 3.1}, NOT_REPRODUCED, "opposite direction"),
    ],
)  # fmt: skip
def test_each_verdict_in_its_order_and_its_reason(c, kwargs, expected, why) -> None:
    verdict, reason = verdict_and_reason(judge(c, **kwargs))
    assert (verdict, why in reason) == (expected, True), reason


def test_a_nan_ratio_gives_no_valid_runs() -> None:
    c = paired(2.0)
    nan = type(c)(**{**c.__dict__, "ratio": math.nan})
    assert verdict_and_reason(judge(nan, 2.0))[0] == NO_VALID_RUNS


def test_the_verdict_follows_the_prediction_not_the_session_count() -> None:
    # The same data with one more session that agrees: the verdict does not move.
    c = paired(2.0)
    before = verdict_and_reason(judge(c, 3.0, sessions=model(2.1, 2.0, 2.2, 1.8, 2.5)))
    after = verdict_and_reason(judge(c, 3.0, sessions=model(2.1, 2.0, 2.2, 1.85, 2.45)))
    assert before[0] == after[0] == SAME_DIRECTION


VERDICTS = (REPRODUCED, NOT_REPRODUCED, SOMETHING_ELSE, NO_ARTICLE, TOO_FEW_RUNS,
            SAME_DIRECTION, DIFFERENT_CONDITIONS, NOT_RESOLVABLE, NO_VALID_RUNS)  # fmt: skip


def test_every_verdict_has_a_badge_of_its_own_in_the_page_and_the_chart() -> None:
    # Each verdict reproduction() gives, as the report's page and its answer chart show it:
    # a symbol, a colour rule and a chart badge of its own, not the fallback for a verdict
    # they do not know (verdict-other, a muted '? …'); the colour rules come from the
    # verdicts themselves (verdict_kinds.verdict_css, which the report appends).
    css = verdict_css()
    classes = [templates.reproduced_class(v) for v in VERDICTS]
    symbols = [templates.badge_symbol(v) for v in VERDICTS]
    chart = [answer_chart.badge(v)[0] for v in VERDICTS]
    assert "verdict-other" not in classes, classes
    assert len(set(symbols)) == len(set(chart)) == len(VERDICTS), (symbols, chart)
    for verdict, css_class, symbol, badge in zip(VERDICTS, classes, symbols, chart, strict=True):
        assert re.search(rf"\.{css_class}\b[^{{]*{{", css), f"no colour for {verdict}"
        assert badge.startswith(f"{symbol} "), (verdict, badge)


def rows(values: dict[str, list[float]], flags: dict[str, str] | None = None) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"run_id": "r", "repetition": i + 1, "target": t, "server": t, "rps": v,
             "flags": (flags or {}).get(t, ""), "err_connect": 0, "err_read": 0,
             "err_write": 0, "err_timeout": 0, "non_2xx": 0, "requests": 1000,
             "headroom": None, "incident": ""}
            for t, vs in values.items()
            for i, v in enumerate(vs)
        ]
    )  # fmt: skip


def test_a_bound_prints_what_every_run_supports_with_no_interval_or_p_value(runs_dir) -> None:
    data = rows({"go": [3000.0, 2900, 3100, 2800, 3050, 3000],
                 "py": [1000.0, 1010, 990, 1400, 995, 1000]})  # fmt: skip
    h = headline("go vs py", data, "go", "py", experiment="bound_test",
                 lower_bound="vegeta, not the server, was at its limit")  # fmt: skip
    # the lowest Go run over the highest Python run: 2800 / 1400
    assert h.brief == (
        "**go** reached **at least 2.00× the requests per second** of **py** in this one "
        "session (its lowest run of go over its highest of py: 2,800 vs 1,400 req/s): vegeta, "
        "not the server, was at its limit."
    )
    assert (h.ci_low, h.ci_high, h.p, h.significant) == (None, None, None, False)


def test_a_caution_on_one_side_reaches_the_brief(runs_dir) -> None:
    data = rows({"go": [3000.0] * 3 + [3100.0] * 3, "py": [1000.0, 1010, 990, 1005, 995, 1000]},
                {"py": "timeouts"})  # fmt: skip
    h = headline("go vs py", data, "go", "py", experiment="caution_test")
    # in words, not the flag's name: page 1 and the answer box name no flag
    assert "Caution: py's runs had timed-out requests (6 of 6 runs)" in h.brief
    assert "`timeouts`" not in h.brief
    assert "had timed-out requests (6 of 6 runs; flag `timeouts` under Validity)" in h.verdict


def test_a_rate_flagged_only_by_littles_law_says_what_the_rate_measured(runs_dir) -> None:
    data = rows({"go": [3000.0] * 3 + [3100.0] * 3, "py": [1000.0, 1010, 990, 1005, 995, 1000]},
                {"py": "littles_law"})  # fmt: skip
    h = headline("go vs py", data, "go", "py", experiment="caution_test")
    # the latency figures are suspect, the rate is not: the brief says both, once
    assert "its latency figures are suspect" in h.brief
    assert h.brief.count(RATE_UNDER_LITTLES_LAW) == 1


def test_two_samples_keep_their_own_verdict() -> None:
    c = compare([3.0, 3.1, 2.9, 3.05, 2.95], [1.0, 1.1, 0.9, 1.05, 0.95])
    assert verdict_and_reason(judge(c, 3.0))[0] == REPRODUCED


def test_what_differs_from_the_article_comes_from_the_runs_manifest() -> None:
    class StoredRun:
        def manifest(self) -> dict:
            loads = [{"duration_s": 3.0, "connections": 100}, {"duration_s": 3.0}]
            stored = {"params": {"pinning": {"server_cpus": [0]}, "loads": loads,
                                 "repetitions": 6}}  # fmt: skip
            return migrate(stored, Path("results.csv"))  # as a stored run reads it

    assert setup_differences(StoredRun()) == (
        "here 1 core per server (GOMAXPROCS 1), runs of 3 s, 100 connections, 6 rounds, "
        "where the article's differ (see Setup)"
    )


def test_one_method_note_for_every_notebook_and_a_line_beside_it_where_rounds_differ() -> None:
    """The note is the same text everywhere (the report shows it once and links back);
    a notebook whose rounds keep one process says so in its own line."""
    assert "unless a notebook says otherwise beside this note" in method_note()
    assert one_process_rounds(restart=True) == ""
    assert "once for all rounds" in one_process_rounds(restart=False)
