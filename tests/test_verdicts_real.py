"""Every verdict against an article on real stored runs (committed from two `make report`
sessions on 2026-11-23), and the sessions behind a verdict. The runs named here are copied
into a runs folder of the test's own (manifest and results only), so sessions added to
data/runs/ later change nothing here.

Where no stored run produces a branch with the article's own figure, the test says so and
holds a real run against another figure: the data stay measured, only the claim is
hypothetical."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from benchbook.analyse.claims.published import article_claim
from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.experiments import article_loop
from benchbook.analyse.findings import conclusion
from benchbook.analyse.findings.headlines import band_sentence, headline
from benchbook.analyse.sessions.replication import UNRECORDED
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import Run

# The verdicts as the findings store them.
REPRODUCED = Verdict.REPRODUCED.label
NOT_REPRODUCED = Verdict.NOT_REPRODUCED.label
SOMETHING_ELSE = Verdict.SOMETHING_ELSE.label
SAME_DIRECTION = Verdict.SAME_DIRECTION.label
DIFFERENT_CONDITIONS = Verdict.DIFFERENT_CONDITIONS.label
NOT_RESOLVABLE = Verdict.NOT_RESOLVABLE.label
NO_VALID_RUNS = Verdict.NO_VALID_RUNS.label

COMMITTED = REPO_ROOT / "data" / "runs"
# Session 2 of the committed report (a clean clone of 9931e5f, 2026-11-23 19:29 UTC), and
# the runs of session 1 (19:02 UTC) and of 2026-11-22 the session tests compare with.
IO = "20261123T193409Z-01_io_concurrency-5dd7"
IO_SESSION_1 = "20261123T190220Z-01_io_concurrency-639c"
IO_2026_11_22 = "20261122T040914Z-01_io_concurrency-b77b"
LOCUST = "20261123T193752Z-02_hello_world_locust-afca"
FANOUT = "20261123T194216Z-03_goroutine_fanout-c3a6"
GOBENCH = "20261123T195049Z-05_grpc_vs_http_gobench-82b6"
ARTICLE_STYLE = "20261123T195032Z-05_grpc_vs_http_article_style-9918"
WRK = "20261123T193914Z-02_hello_world_wrk-062d"
WRK_SESSION_1 = "20261123T190728Z-02_hello_world_wrk-f5d7"
COPIED = (IO, IO_SESSION_1, IO_2026_11_22, LOCUST, FANOUT, GOBENCH, ARTICLE_STYLE, WRK,
          WRK_SESSION_1)  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The runs above, alone in a runs folder of this module's own: every test only reads
    them, so its results store is built once, not once a test (2.5 s each)."""
    folder = tmp_path_factory.mktemp("runs")
    for run_id in COPIED:
        (folder / run_id).mkdir()
        for name in ("manifest.json", "results.csv"):
            shutil.copy(COMMITTED / run_id / name, folder / run_id / name)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("BENCHBOOK_RUNS_DIR", str(folder))
        yield folder


def rows(run_id: str) -> pd.DataFrame:
    return Run(COMMITTED / run_id).results()


def io_headline(b: str, article_ratio: float) -> object:
    return headline("go vs python", rows(IO), "go-iodelay", b, experiment="01_io_concurrency",
                    article_ratio=article_ratio, differences="1 core per server")  # fmt: skip


def test_a_session_of_no_class_is_judged_on_its_own_rounds() -> None:
    _, ratio = article_claim("01_io_concurrency", "rps", "go", "python")
    h = io_headline("python-iodelay uvloop+httptools", ratio)
    # These runs recorded no CPU identity and, alone in this folder, join no class: the
    # session is judged on the interval it prints, its own (verdicts' docstring), never
    # pooled with another unrecorded one; its 4.5× (4.19–4.93×) holds the article's 4.905×.
    assert h.reproduced == REPRODUCED
    assert "this session's interval (one session: not yet replicated), 4.2–4.9×" in (
        h.reproduced_why
    )
    assert h.sessions == 1 and h.pooled_ratio is None


def test_same_direction_go_vs_asyncio_names_what_differs() -> None:
    _, ratio = article_claim("01_io_concurrency", "rps", "go", "python")
    h = io_headline("python-iodelay asyncio+h11", ratio)
    assert h.reproduced == SAME_DIRECTION and "larger here" in h.reproduced_why
    assert "1 core per server" in h.reproduced_why


def test_not_reproduced_when_a_real_ratio_points_the_other_way() -> None:
    # hypothetical claim: Python twice as fast as Go
    h = io_headline("python-iodelay uvloop+httptools", 0.5)
    assert h.reproduced == NOT_REPRODUCED and "opposite direction" in h.reproduced_why


def test_not_resolvable_when_the_a_a_control_shows_no_difference() -> None:
    # hypothetical claim of 1.5× between a server and its own A/A copy: inside the A/A
    # band, decided before anything else is judged
    h = io_headline("go-iodelay (A/A copy)", 1.5)
    assert h.reproduced == NOT_RESOLVABLE and "A/A control" in h.reproduced_why


def test_a_tool_limit_under_the_articles_locust_settings_is_a_different_condition() -> None:
    claim, ratio = article_claim("02_hello_world_locust", "rps", "go", "python")
    h = headline("go vs python", rows(LOCUST), "go-hello", "python-hello",
                 experiment="02_hello_world_locust", article=claim,
                 article_ratio=ratio)  # fmt: skip
    assert h.reproduced == DIFFERENT_CONDITIONS
    assert "the load tool set both rates, not the servers" in h.reproduced_why


def test_what_set_the_rates_is_judged_before_how_many_runs_there_are() -> None:
    # 2+2 runs could show no difference alone, but Locust set both rates: that decides
    # first, and the answer says it instead of ranking the servers
    _, ratio = article_claim("02_hello_world_locust", "rps", "go", "python")
    h = headline("go vs python", rows(LOCUST), "go-hello", "python-hello",
                 experiment="02_hello_world_locust", article_ratio=ratio)  # fmt: skip
    assert h.n == "2+2" and h.reproduced == DIFFERENT_CONDITIONS
    assert h.brief.startswith("**Not a comparison of the servers.** The load tool set both")
    assert "served" not in h.brief and h.set_by


def test_a_session_alone_resolves_what_its_own_a_a_control_resolves() -> None:
    # notebook 03's real 1.077× between two sequential settings, against this session's own
    # A/A control: 0.982× with its interval 0.886–0.998× (the session joins no class, so it
    # has no prediction), so ratios within 1/0.886 = 1.13× are not resolvable
    h = headline("sc/5 vs sc/9", rows(FANOUT), "go-fanout /sc/5", "go-fanout /sc/9",
                 experiment="03_goroutine_fanout", article_ratio=1.5)  # fmt: skip
    assert h.control["low"] == pytest.approx(0.886, abs=0.001) and not h.control["predicted"]
    assert h.resolvable == pytest.approx(1 / h.control["low"]) and 1 < h.ratio < h.resolvable
    assert h.reproduced == NOT_RESOLVABLE
    said = band_sentence([h])
    assert "gave 0.982× over this session; its 95 % CI 0.886–0.998×: ratios no farther" in said


def calls(frame: pd.DataFrame) -> pd.DataFrame:
    ops = frame[frame["benchmark"] == "Ops"]
    return ops.assign(target=ops["backend"] + " " + ops["transport"] + " " + ops["operation"])


def test_the_article_measured_something_else_from_its_own_404_loop() -> None:
    claim, ratio = article_claim("05_grpc_vs_http", "CreateSession_ns_per_op", "http", "grpc",
                                 unit="ns/op")  # fmt: skip
    h = headline("CreateSession", rows(GOBENCH), "python http CreateSession",
                 "python grpc CreateSession", experiment="05_grpc_vs_http_gobench",
                 column="ns_per_op", select=calls, article=claim, article_ratio=ratio,
                 measured_else=article_loop.timed_404s(rows(ARTICLE_STYLE),
                                                       "CreateSession"))  # fmt: skip
    assert h.reproduced == SOMETHING_ELSE and "404" in h.reproduced_why


def test_no_valid_runs_when_every_call_of_the_article_loop_failed() -> None:
    loop = rows(ARTICLE_STYLE)
    loop = loop.assign(target=loop["transport"] + " " + loop["operation"])
    _, ratio = article_claim("05_grpc_vs_http", "CreateSession_ns_per_op", "http", "grpc",
                             unit="ns/op")  # fmt: skip
    h = headline("loop", loop, "http CreateSession", "grpc CreateSession",
                 experiment="05_grpc_vs_http_article_style", column="ns_per_op",
                 article_ratio=ratio)  # fmt: skip
    assert h.reproduced == NO_VALID_RUNS and h.ratio is None


def test_the_two_stored_sessions_stand_behind_notebook_01s_verdict() -> None:
    h = io_headline("python-iodelay asyncio+h11", 4.9)
    same = [run for run in h.spread if run["same_conditions"]]
    # Both sessions of 2026-11-23; the run of 2026-11-22 ran without restarts, under
    # other conditions.
    assert {run["run_id"] for run in same} == {IO, IO_SESSION_1}
    assert not any(run["same_conditions"] for run in h.spread if run["run_id"] < "20261123")
    # neither recorded its CPU, so neither joins a class: this one stands alone
    assert {run["machine_class"] for run in same} == {UNRECORDED}
    assert h.sessions == 1 and h.pooled_ratio is None


def test_a_selection_is_applied_to_every_stored_run_and_skips_runs_without_it() -> None:
    # Notebook 02's wrk and bombardier rounds share a run; older runs had no bombardier.
    h = headline("go vs python under bombardier", rows(WRK), "go-hello", "python-hello",
                 experiment="02_hello_world_wrk",
                 select=lambda r: r[r["tool"] == "bombardier"])  # fmt: skip
    same = [r for r in h.spread if r["same_conditions"]]
    # one tool: at most its 6 runs a side (paired, unless a run of a round counts for
    # nothing: Go's bombardier runs at 59–66 % of its core in two rounds of 2026-11-23 19:07)
    sides = [[int(n) for n in r["n"].removesuffix(" rounds").split("+")] for r in same]
    assert len(same) == 2 and all(max(n) == 6 for n in sides)
    assert [r["n"] for r in same] == ["4+6", "6 rounds"]


def test_notebook_05s_answer_words_each_figures_verdict_as_its_table_row_does() -> None:
    # The answer once said the 404 backend explained both figures while the table said
    # its loop gives 0.830× for HealthCheck: "it does not explain this figure".
    loop = rows(ARTICLE_STYLE)
    declared = []
    for operation in ("HealthCheck", "CreateSession"):
        claim = article_claim("05_grpc_vs_http", f"{operation}_ns_per_op", "http", "grpc",
                              unit="ns/op")  # fmt: skip
        declared.append(
            conclusion.compare(
                f"Python backend, {operation}: HTTP vs gRPC time per call",
                rows(GOBENCH),
                f"python http {operation}",
                f"python grpc {operation}",
                "05_grpc_vs_http_gobench",
                claim,
                measured_else=article_loop.timed_404s(loop, operation),
                column="ns_per_op",
                select=calls,
            )  # fmt: skip
        )
    found = conclusion.findings("05_grpc_vs_http", "t", "q", declared,
                                answer=[conclusion.verdicts_by_figure],
                                plain=lambda h: "")  # fmt: skip
    health, create = found.headlines
    assert "it does not explain this figure" in health.reproduced_why
    assert health.reproduced != SOMETHING_ELSE and create.reproduced == SOMETHING_ELSE
    table = found.markdown()
    for h in found.headlines:
        assert f"{h.reproduced} ({h.reproduced_why})" in found.answer
        assert f"{h.reproduced}: {h.reproduced_why}" in table
    # The answer pairs "measured something else" with CreateSession's figure only.
    assert found.answer.count(SOMETHING_ELSE) == 1
    assert found.answer.index(SOMETHING_ELSE) > found.answer.index("CreateSession")
