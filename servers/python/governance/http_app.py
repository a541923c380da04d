"""The governance API over HTTP/JSON: FastAPI, one module-level engine.

Run under uvicorn (from the repository root)::

    python -m uvicorn governance.http_app:app --app-dir servers/python \\
        --host 127.0.0.1 --port 8000 --no-access-log

Every response body is the JSON form of the matching gRPC response message in
servers/proto/governance.proto (snake_case fields, enums as lowercase words); the Go
backend (servers/go/governance/http.go) answers the same paths with the same JSON.
Errors are FastAPI's ``{"detail": ...}``: 404 unknown session or decision, 409 closed
session or decision resolved otherwise, 422 bad body, query or argument.

    GET  /health                           HealthCheckResponse
    POST /sessions                         {"operator"} -> 201 CreateSessionResponse
    POST /sessions/{id}/close              CloseSessionResponse
    GET  /sessions/{id}/stats              GetSessionStatsResponse
    GET  /sessions/{id}/decisions?limit=N  ListPendingDecisionsResponse
    GET  /decisions/{id}                   GetDecisionResponse
    POST /decisions/{id}/approve           {"session_id", "comment"} -> ApproveDecisionResponse
    POST /decisions/{id}/reject            {"session_id", "comment"} -> RejectDecisionResponse
    POST /decisions/{id}/escalate          {"session_id", "comment"} -> EscalateDecisionResponse
    GET  /metrics                          GetMetricsResponse

The endpoints are ``async def``: the engine's lock is held for microseconds and never
across an ``await``, so they run on the event loop without a thread hop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from .engine import (
    Decision,
    DecisionStatus,
    Engine,
    FailedPreconditionError,
    GovernanceError,
    InvalidArgumentError,
    NotFoundError,
    SessionState,
)


class _FromEngine(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class SessionModel(_FromEngine):
    id: str
    operator: str
    state: SessionState
    created_unix_ms: int
    closed_unix_ms: int


class DecisionModel(_FromEngine):
    id: str
    session_id: str
    status: DecisionStatus
    action: str
    target: str
    risk_score: float
    comment: str
    created_unix_ms: int
    resolved_unix_ms: int


class MetricsModel(_FromEngine):
    sessions_created: int
    sessions_open: int
    decisions_total: int
    decisions_pending: int
    decisions_approved: int
    decisions_rejected: int
    decisions_escalated: int


class SessionStatsModel(_FromEngine):
    session_id: str
    operator: str
    state: SessionState
    approved: int
    rejected: int
    escalated: int
    total_resolved: int


class HealthCheckResponse(BaseModel):
    healthy: bool
    status: str
    uptime_seconds: int


class SessionResponse(BaseModel):
    session: SessionModel


class DecisionResponse(BaseModel):
    decision: DecisionModel


class ListPendingDecisionsResponse(BaseModel):
    decisions: list[DecisionModel]
    total_pending: int


class MetricsResponse(BaseModel):
    metrics: MetricsModel


class SessionStatsResponse(BaseModel):
    stats: SessionStatsModel


class CreateSessionRequest(BaseModel):
    operator: str


class ResolveRequest(BaseModel):
    session_id: str = ""
    comment: str = ""


_STATUS: dict[type[GovernanceError], int] = {
    NotFoundError: 404,
    FailedPreconditionError: 409,
    InvalidArgumentError: 422,
}


def create_app(engine: Engine | None = None) -> FastAPI:
    """A FastAPI app serving ``engine`` (a fresh one by default)."""
    eng = engine if engine is not None else Engine()
    app = FastAPI(title="benchbook governance (seed 001)")

    @app.exception_handler(GovernanceError)
    async def governance_error(_: Request, exc: GovernanceError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=_STATUS.get(type(exc), 500))

    @app.get("/health")
    async def health() -> HealthCheckResponse:
        return HealthCheckResponse(healthy=True, status="ok", uptime_seconds=eng.uptime_seconds())

    @app.post("/sessions", status_code=201)
    async def create_session(body: CreateSessionRequest) -> SessionResponse:
        return SessionResponse(
            session=SessionModel.model_validate(eng.create_session(body.operator))
        )

    @app.post("/sessions/{session_id}/close")
    async def close_session(session_id: str) -> SessionResponse:
        return SessionResponse(session=SessionModel.model_validate(eng.close_session(session_id)))

    @app.get("/sessions/{session_id}/stats")
    async def session_stats(session_id: str) -> SessionStatsResponse:
        stats = eng.get_session_stats(session_id)
        return SessionStatsResponse(stats=SessionStatsModel.model_validate(stats))

    @app.get("/sessions/{session_id}/decisions")
    async def list_pending(session_id: str, limit: int = 0) -> ListPendingDecisionsResponse:
        decisions, total = eng.list_pending_decisions(session_id, limit)
        return ListPendingDecisionsResponse(
            decisions=[DecisionModel.model_validate(d) for d in decisions], total_pending=total
        )

    @app.get("/decisions/{decision_id}")
    async def get_decision(decision_id: str) -> DecisionResponse:
        return DecisionResponse(
            decision=DecisionModel.model_validate(eng.get_decision(decision_id))
        )

    def resolver(
        verb: Callable[[str, str, str], Decision],
    ) -> Callable[[str, ResolveRequest], Awaitable[DecisionResponse]]:
        async def resolve(decision_id: str, body: ResolveRequest) -> DecisionResponse:
            decision = verb(decision_id, body.session_id, body.comment)
            return DecisionResponse(decision=DecisionModel.model_validate(decision))

        return resolve

    for verb, resolve_fn in (
        ("approve", eng.approve_decision),
        ("reject", eng.reject_decision),
        ("escalate", eng.escalate_decision),
    ):
        app.post(f"/decisions/{{decision_id}}/{verb}", name=f"{verb}_decision")(
            resolver(resolve_fn)
        )

    @app.get("/metrics")
    async def metrics() -> MetricsResponse:
        return MetricsResponse(metrics=MetricsModel.model_validate(eng.get_metrics()))

    return app


app = create_app()
