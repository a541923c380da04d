"""The governance engine: operator sessions and pending decisions, in memory.

The same engine as the Go one (servers/go/governance/engine.go), operation for operation,
so the Python and Go backends answer the same requests with the same data. It is
thread-safe: the gRPC server calls it from a pool of 10 threads.

Every operation can be repeated millions of times in a benchmark loop and still succeed:

- the engine keeps ``PENDING_TARGET`` decisions pending: whenever one is resolved, a new
  one is queued, so listing always has data;
- approving an approved decision (rejecting a rejected one, escalating an escalated one)
  succeeds and changes nothing; only a different verb on a resolved decision is an error
  (``FailedPreconditionError``);
- closing a closed session succeeds and changes nothing.

Sessions are never deleted, so creating sessions in a loop grows memory a little each time.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from enum import StrEnum

PENDING_TARGET = 16
DEFAULT_LIST_LIMIT = 10
MAX_LIST_LIMIT = 100

_ACTIONS = ("block_ip", "quarantine_file", "terminate_process", "disable_account")


class GovernanceError(Exception):
    """An operation refused; the subclass says which kind (a status code per transport)."""


class NotFoundError(GovernanceError):
    """An unknown session or decision (HTTP 404, gRPC NOT_FOUND)."""


class FailedPreconditionError(GovernanceError):
    """A closed session, or a decision resolved otherwise (HTTP 409, FAILED_PRECONDITION)."""


class InvalidArgumentError(GovernanceError):
    """A missing or malformed argument (HTTP 422, gRPC INVALID_ARGUMENT)."""


class SessionState(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


class DecisionStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    ESCALATED = "escalated"


@dataclasses.dataclass(slots=True)
class Session:
    id: str
    operator: str
    state: SessionState
    created_unix_ms: int
    closed_unix_ms: int = 0


@dataclasses.dataclass(slots=True)
class Decision:
    id: str
    session_id: str
    status: DecisionStatus
    action: str
    target: str
    risk_score: float
    comment: str
    created_unix_ms: int
    resolved_unix_ms: int = 0


@dataclasses.dataclass(slots=True)
class Metrics:
    sessions_created: int = 0
    sessions_open: int = 0
    decisions_total: int = 0
    decisions_pending: int = 0
    decisions_approved: int = 0
    decisions_rejected: int = 0
    decisions_escalated: int = 0


@dataclasses.dataclass(slots=True)
class SessionStats:
    session_id: str
    operator: str
    state: SessionState
    approved: int = 0
    rejected: int = 0
    escalated: int = 0
    total_resolved: int = 0


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Engine:
    """Every session and decision, behind one lock. Returns copies, never live records."""

    def __init__(self, now_ms: Callable[[], int] = _now_ms) -> None:
        self._now_ms = now_ms
        self._started_ms = now_ms()
        self._lock = threading.Lock()
        self._sessions: dict[str, tuple[Session, SessionStats]] = {}
        self._decisions: dict[str, Decision] = {}
        self._pending: list[Decision] = []  # oldest first, always PENDING_TARGET long
        self._next_session = 0
        self._next_decision = 0
        self._metrics = Metrics()
        for _ in range(PENDING_TARGET):
            self._queue_decision()

    def _queue_decision(self) -> None:
        """Add one pending decision; the lock must be held (or the engine unshared)."""
        self._next_decision += 1
        n = self._next_decision
        d = Decision(
            id=f"dec-{n:06d}",
            session_id="",
            status=DecisionStatus.PENDING,
            action=_ACTIONS[n % len(_ACTIONS)],
            target=f"host-{n % 250:03d}",
            risk_score=(50 + (n * 37) % 50) / 100,
            comment="",
            created_unix_ms=self._now_ms(),
        )
        self._decisions[d.id] = d
        self._pending.append(d)
        self._metrics.decisions_total += 1
        self._metrics.decisions_pending += 1

    def uptime_seconds(self) -> int:
        return (self._now_ms() - self._started_ms) // 1000

    def create_session(self, operator: str) -> Session:
        if not operator:
            raise InvalidArgumentError("invalid argument: operator is required")
        with self._lock:
            self._next_session += 1
            s = Session(
                id=f"ses-{self._next_session:06d}",
                operator=operator,
                state=SessionState.OPEN,
                created_unix_ms=self._now_ms(),
            )
            self._sessions[s.id] = (s, SessionStats(s.id, operator, SessionState.OPEN))
            self._metrics.sessions_created += 1
            self._metrics.sessions_open += 1
            return dataclasses.replace(s)

    def close_session(self, session_id: str) -> Session:
        """Close a session; closing a closed session returns it unchanged."""
        with self._lock:
            s, stats = self._session(session_id)
            if s.state is SessionState.OPEN:
                s.state = SessionState.CLOSED
                s.closed_unix_ms = self._now_ms()
                stats.state = SessionState.CLOSED
                self._metrics.sessions_open -= 1
            return dataclasses.replace(s)

    def list_pending_decisions(self, session_id: str, limit: int) -> tuple[list[Decision], int]:
        """Up to ``limit`` pending decisions, oldest first, and how many are pending.

        ``limit`` 0 means ``DEFAULT_LIST_LIMIT``; above ``MAX_LIST_LIMIT`` it is capped.
        """
        if limit < 0:
            raise InvalidArgumentError("invalid argument: limit must not be negative")
        limit = min(limit or DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT)
        with self._lock:
            self._open_session(session_id)
            return [dataclasses.replace(d) for d in self._pending[:limit]], len(self._pending)

    def get_decision(self, decision_id: str) -> Decision:
        with self._lock:
            d = self._decisions.get(decision_id)
            if d is None:
                raise NotFoundError(f'not found: decision "{decision_id}"')
            return dataclasses.replace(d)

    def approve_decision(self, decision_id: str, session_id: str, comment: str) -> Decision:
        return self._resolve(decision_id, session_id, comment, DecisionStatus.APPROVED)

    def reject_decision(self, decision_id: str, session_id: str, comment: str) -> Decision:
        return self._resolve(decision_id, session_id, comment, DecisionStatus.REJECTED)

    def escalate_decision(self, decision_id: str, session_id: str, comment: str) -> Decision:
        return self._resolve(decision_id, session_id, comment, DecisionStatus.ESCALATED)

    def _resolve(
        self, decision_id: str, session_id: str, comment: str, to: DecisionStatus
    ) -> Decision:
        with self._lock:
            _, stats = self._open_session(session_id)
            d = self._decisions.get(decision_id)
            if d is None:
                raise NotFoundError(f'not found: decision "{decision_id}"')
            if d.status is to:  # the same verb again: idempotent
                return dataclasses.replace(d)
            if d.status is not DecisionStatus.PENDING:
                raise FailedPreconditionError(
                    f'failed precondition: decision "{decision_id}" is {d.status}, '
                    f"cannot make it {to}"
                )
            d.status = to
            d.session_id = session_id
            d.comment = comment
            d.resolved_unix_ms = self._now_ms()
            self._pending.remove(d)
            self._metrics.decisions_pending -= 1
            stats.total_resolved += 1
            if to is DecisionStatus.APPROVED:
                self._metrics.decisions_approved += 1
                stats.approved += 1
            elif to is DecisionStatus.REJECTED:
                self._metrics.decisions_rejected += 1
                stats.rejected += 1
            else:
                self._metrics.decisions_escalated += 1
                stats.escalated += 1
            resolved = dataclasses.replace(d)
            self._queue_decision()
            return resolved

    def get_metrics(self) -> Metrics:
        with self._lock:
            return dataclasses.replace(self._metrics)

    def get_session_stats(self, session_id: str) -> SessionStats:
        """What a session, open or closed, has resolved."""
        with self._lock:
            return dataclasses.replace(self._session(session_id)[1])

    def _session(self, session_id: str) -> tuple[Session, SessionStats]:
        if not session_id:
            raise InvalidArgumentError("invalid argument: session_id is required")
        record = self._sessions.get(session_id)
        if record is None:
            raise NotFoundError(f'not found: session "{session_id}"')
        return record

    def _open_session(self, session_id: str) -> tuple[Session, SessionStats]:
        record = self._session(session_id)
        if record[0].state is not SessionState.OPEN:
            raise FailedPreconditionError(f'failed precondition: session "{session_id}" is closed')
        return record
