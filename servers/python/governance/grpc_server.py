"""The governance API over gRPC: a ``grpc.aio`` server, as in seed 001.

Run (from servers/python, or anywhere with servers/python on PYTHONPATH)::

    python -m governance.grpc_server --port 50051

As the article's server did, the servicer's methods are plain ``def`` functions and the
server is ``grpc.aio.server(ThreadPoolExecutor(max_workers=10))``: grpc.aio runs such
synchronous handlers on that executor (its "migration thread pool"), so every call
hops from the event loop to a worker thread and back. ``--handlers async`` serves the
same methods as ``async def`` coroutines on the event loop instead, without the hop.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NoReturn, TypeVar

import grpc

from . import governance_pb2 as pb
from . import governance_pb2_grpc as pb_grpc
from .engine import (
    Decision,
    DecisionStatus,
    Engine,
    FailedPreconditionError,
    GovernanceError,
    InvalidArgumentError,
    NotFoundError,
    Session,
    SessionState,
)

log = logging.getLogger("governance.grpc")

_CODES: dict[type[GovernanceError], grpc.StatusCode] = {
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    FailedPreconditionError: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidArgumentError: grpc.StatusCode.INVALID_ARGUMENT,
}

_SESSION_STATE = {
    SessionState.OPEN: pb.SESSION_STATE_OPEN,
    SessionState.CLOSED: pb.SESSION_STATE_CLOSED,
}

_DECISION_STATUS = {
    DecisionStatus.PENDING: pb.DECISION_STATUS_PENDING,
    DecisionStatus.APPROVED: pb.DECISION_STATUS_APPROVED,
    DecisionStatus.REJECTED: pb.DECISION_STATUS_REJECTED,
    DecisionStatus.ESCALATED: pb.DECISION_STATUS_ESCALATED,
}


def session_to_pb(s: Session) -> pb.Session:
    return pb.Session(
        id=s.id,
        operator=s.operator,
        state=_SESSION_STATE[s.state],
        created_unix_ms=s.created_unix_ms,
        closed_unix_ms=s.closed_unix_ms,
    )


def decision_to_pb(d: Decision) -> pb.Decision:
    return pb.Decision(
        id=d.id,
        session_id=d.session_id,
        status=_DECISION_STATUS[d.status],
        action=d.action,
        target=d.target,
        risk_score=d.risk_score,
        comment=d.comment,
        created_unix_ms=d.created_unix_ms,
        resolved_unix_ms=d.resolved_unix_ms,
    )


class Handlers:
    """Each RPC as a plain function of its request; raises GovernanceError on refusal."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def health_check(self, _: pb.HealthCheckRequest) -> pb.HealthCheckResponse:
        return pb.HealthCheckResponse(
            healthy=True, status="ok", uptime_seconds=self.engine.uptime_seconds()
        )

    def create_session(self, req: pb.CreateSessionRequest) -> pb.CreateSessionResponse:
        return pb.CreateSessionResponse(
            session=session_to_pb(self.engine.create_session(req.operator))
        )

    def close_session(self, req: pb.CloseSessionRequest) -> pb.CloseSessionResponse:
        return pb.CloseSessionResponse(
            session=session_to_pb(self.engine.close_session(req.session_id))
        )

    def list_pending_decisions(
        self, req: pb.ListPendingDecisionsRequest
    ) -> pb.ListPendingDecisionsResponse:
        decisions, total = self.engine.list_pending_decisions(req.session_id, req.limit)
        return pb.ListPendingDecisionsResponse(
            decisions=[decision_to_pb(d) for d in decisions], total_pending=total
        )

    def get_decision(self, req: pb.GetDecisionRequest) -> pb.GetDecisionResponse:
        return pb.GetDecisionResponse(
            decision=decision_to_pb(self.engine.get_decision(req.decision_id))
        )

    def approve_decision(self, req: pb.ApproveDecisionRequest) -> pb.ApproveDecisionResponse:
        d = self.engine.approve_decision(req.decision_id, req.session_id, req.comment)
        return pb.ApproveDecisionResponse(decision=decision_to_pb(d))

    def reject_decision(self, req: pb.RejectDecisionRequest) -> pb.RejectDecisionResponse:
        d = self.engine.reject_decision(req.decision_id, req.session_id, req.comment)
        return pb.RejectDecisionResponse(decision=decision_to_pb(d))

    def escalate_decision(self, req: pb.EscalateDecisionRequest) -> pb.EscalateDecisionResponse:
        d = self.engine.escalate_decision(req.decision_id, req.session_id, req.comment)
        return pb.EscalateDecisionResponse(decision=decision_to_pb(d))

    def get_metrics(self, _: pb.GetMetricsRequest) -> pb.GetMetricsResponse:
        m = self.engine.get_metrics()
        return pb.GetMetricsResponse(
            metrics=pb.Metrics(
                sessions_created=m.sessions_created,
                sessions_open=m.sessions_open,
                decisions_total=m.decisions_total,
                decisions_pending=m.decisions_pending,
                decisions_approved=m.decisions_approved,
                decisions_rejected=m.decisions_rejected,
                decisions_escalated=m.decisions_escalated,
            )
        )

    def get_session_stats(self, req: pb.GetSessionStatsRequest) -> pb.GetSessionStatsResponse:
        st = self.engine.get_session_stats(req.session_id)
        return pb.GetSessionStatsResponse(
            stats=pb.SessionStats(
                session_id=st.session_id,
                operator=st.operator,
                state=_SESSION_STATE[st.state],
                approved=st.approved,
                rejected=st.rejected,
                escalated=st.escalated,
                total_resolved=st.total_resolved,
            )
        )


# The RPC names and the Handlers method serving each.
RPCS = {
    "HealthCheck": "health_check",
    "CreateSession": "create_session",
    "CloseSession": "close_session",
    "ListPendingDecisions": "list_pending_decisions",
    "GetDecision": "get_decision",
    "ApproveDecision": "approve_decision",
    "RejectDecision": "reject_decision",
    "EscalateDecision": "escalate_decision",
    "GetMetrics": "get_metrics",
    "GetSessionStats": "get_session_stats",
}

Req = TypeVar("Req")
Resp = TypeVar("Resp")


def _sync_method(fn: Callable[[Req], Resp]) -> Callable[[Req, Any], Resp]:
    def method(request: Req, context: Any) -> Resp:
        try:
            return fn(request)
        except GovernanceError as exc:
            _abort(context, exc)

    return method


def _abort(context: Any, exc: GovernanceError) -> NoReturn:
    # grpc.aio hands synchronous handlers a context whose abort() raises.
    context.abort(_CODES.get(type(exc), grpc.StatusCode.INTERNAL), str(exc))
    raise AssertionError("unreachable: abort() raises")


def _async_method(fn: Callable[[Req], Resp]) -> Callable[[Req, Any], Any]:
    async def method(request: Req, context: grpc.aio.ServicerContext[Req, Resp]) -> Resp:
        try:
            return fn(request)
        except GovernanceError as exc:
            await context.abort(_CODES.get(type(exc), grpc.StatusCode.INTERNAL), str(exc))

    return method


def make_servicer(engine: Engine, handlers: str = "sync") -> pb_grpc.GovernanceServiceServicer:
    """A servicer whose RPC methods are ``def`` (``sync``) or ``async def`` (``async``)."""
    if handlers not in ("sync", "async"):
        raise ValueError(f"handlers must be sync or async, not {handlers!r}")
    h = Handlers(engine)
    wrap = _sync_method if handlers == "sync" else _async_method
    servicer = pb_grpc.GovernanceServiceServicer()
    for rpc, attr in RPCS.items():
        setattr(servicer, rpc, wrap(getattr(h, attr)))
    return servicer


async def serve(host: str, port: int, workers: int, handlers: str) -> None:
    """Serve until SIGINT or SIGTERM, then stop with a one-second grace."""
    server = grpc.aio.server(ThreadPoolExecutor(max_workers=workers))
    pb_grpc.add_GovernanceServiceServicer_to_server(make_servicer(Engine(), handlers), server)
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise SystemExit(f"cannot bind {host}:{port}")
    await server.start()
    log.info(
        "governance grpc.aio (%s handlers, %d threads) on %s:%d", handlers, workers, host, bound
    )

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop(grace=1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50051)
    parser.add_argument("--workers", type=int, default=10, help="executor threads (article: 10)")
    parser.add_argument(
        "--handlers",
        choices=("sync", "async"),
        default="sync",
        help="sync: def methods on the executor, as the article (default); async: coroutines",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(serve(args.host, args.port, args.workers, args.handlers))


if __name__ == "__main__":
    main()
