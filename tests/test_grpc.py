"""Seed 001's servers over HTTP and gRPC: verification, Go's benchmarks parsed into rows,
ghz for real, and the 404 backend refused."""

import pytest
from conftest import descendants

from benchbook import measure
from benchbook.measure.servers import free_port
from benchbook.measure.tools.base import LoadPlan, LoadRequest
from benchbook.measure.tools.ghz import Ghz, GrpcLoad
from benchbook.measure.verification import VerificationError

BACKENDS = {
    "python": {"http": "python-governance-http", "grpc": "python-governance-grpc"},
    "go": {"http": "go-governance-http", "grpc": "go-governance-grpc"},
}
HEALTH = "benchbook.governance.v1.GovernanceService/HealthCheck"


@pytest.mark.slow
def test_the_four_servers_verify_and_go_benchmarks_become_rows(runs_dir) -> None:
    run = measure.run(
        measure.Experiment(
            "gobench_test",
            [s for b in (BACKENDS).values() for s in b.values()],
            measure.tool(
                "go-bench",
                backends=BACKENDS,
                bench="Ops/.*/(HealthCheck|CreateSession)$|FirstCall",
                benchtime="20ms",
            ),
            repetitions=2,
        )
    )
    rows = run.results()
    assert len(rows) == 2 * 2 * (2 * 2 + 2)  # reps × backends × (2 ops × 2 transports + 2)
    assert set(rows["backend"]) == {"python", "go"} and set(rows["transport"]) == {"http", "grpc"}
    health = rows[rows["target"] == "go-governance-grpc Ops/grpc/HealthCheck"]
    assert list(health["repetition"]) == [1, 2]
    assert (health["rps"] * health["ns_per_op"]).round().eq(1e9).all()  # ops/s from ns/op
    assert rows["bytes_per_op"].gt(0).all() and rows["flags"].eq("").all()
    raw = (run.path / "raw").glob("rep01_go.txt")
    assert "BenchmarkOps/grpc/HealthCheck" in next(raw).read_text()  # the raw output is kept
    assert descendants() == []


@pytest.mark.slow
def test_the_article_loop_against_the_404_backend_is_flagged_and_refused_otherwise() -> None:
    run = measure.run(
        measure.Experiment(
            "article_style_test",
            [s for b in ({"article": {"http": "http-not-found"}}).values() for s in b.values()],
            measure.tool(
                "go-bench",
                backends={"article": {"http": "http-not-found"}},
                bench="ArticleStyle/http/HealthCheck$",
                benchtime="20ms",
                env={"GOVERNANCE_ARTICLE_STYLE": "1"},
            ),
            repetitions=1,
            verify=False,
        )
    )
    (row,) = run.results().itertuples()
    assert row.errors_per_op == 1 and row.flags == "bad_response"
    assert "100% of its iterations failed" in row.incident
    with pytest.raises(VerificationError, match="GET /health: status 404, expected 200"):
        measure.run(
            measure.Experiment(
                "refused_test",
                [s for b in ({"article": {"http": "http-not-found"}}).values() for s in b.values()],
                measure.tool(
                    "go-bench",
                    backends={"article": {"http": "http-not-found"}},
                    bench="Ops/http/HealthCheck$",
                ),
                repetitions=1,
            )
        )
    assert descendants() == []


@pytest.mark.slow
def test_ghz_calls_are_parsed_into_rows() -> None:
    run = measure.run(
        measure.Experiment(
            "ghz_test",
            ["go-governance-grpc"],
            measure.tool("ghz", concurrency=4, calls=400),
            requests={"go-governance-grpc": ["HealthCheck"]},
            warmup="0s",
            repetitions=1,
        )
    )
    (row,) = run.results().itertuples()
    assert (row.requests, row.ok, row.non_ok) == (400, 400, 0)
    assert row.rps == pytest.approx(400 / row.duration_s) and row.lat_p50_ms > 0
    assert row.flags.split(";") == ["short_run"] and descendants() == []


def test_ghz_against_a_stopped_server_is_flagged_not_counted(tmp_path) -> None:
    # ghz exits 0 when every call fails: the statuses decide, and failures are no throughput.
    request = LoadRequest("HealthCheck", "GRPC", HEALTH, proto="servers/proto/governance.proto")
    tool = Ghz(GrpcLoad.from_params(2, 50, 1, "2s"))
    result = tool.run(f"http://127.0.0.1:{free_port()}", LoadPlan((request,)), tmp_path / "x", None)
    assert result.measured["ok"] == 0 and result.measured["rps"] == 0
    assert result.measured["err_connect"] == 50 and result.measured["lat_p50_ms"] is None
