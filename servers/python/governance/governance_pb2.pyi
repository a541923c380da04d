# ruff: noqa
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SessionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_STATE_UNSPECIFIED: _ClassVar[SessionState]
    SESSION_STATE_OPEN: _ClassVar[SessionState]
    SESSION_STATE_CLOSED: _ClassVar[SessionState]

class DecisionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_STATUS_UNSPECIFIED: _ClassVar[DecisionStatus]
    DECISION_STATUS_PENDING: _ClassVar[DecisionStatus]
    DECISION_STATUS_APPROVED: _ClassVar[DecisionStatus]
    DECISION_STATUS_REJECTED: _ClassVar[DecisionStatus]
    DECISION_STATUS_ESCALATED: _ClassVar[DecisionStatus]

SESSION_STATE_UNSPECIFIED: SessionState
SESSION_STATE_OPEN: SessionState
SESSION_STATE_CLOSED: SessionState
DECISION_STATUS_UNSPECIFIED: DecisionStatus
DECISION_STATUS_PENDING: DecisionStatus
DECISION_STATUS_APPROVED: DecisionStatus
DECISION_STATUS_REJECTED: DecisionStatus
DECISION_STATUS_ESCALATED: DecisionStatus

class Session(_message.Message):
    __slots__ = ("id", "operator", "state", "created_unix_ms", "closed_unix_ms")
    ID_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    CLOSED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    id: str
    operator: str
    state: SessionState
    created_unix_ms: int
    closed_unix_ms: int
    def __init__(
        self,
        id: _Optional[str] = ...,
        operator: _Optional[str] = ...,
        state: _Optional[_Union[SessionState, str]] = ...,
        created_unix_ms: _Optional[int] = ...,
        closed_unix_ms: _Optional[int] = ...,
    ) -> None: ...

class Decision(_message.Message):
    __slots__ = (
        "id",
        "session_id",
        "status",
        "action",
        "target",
        "risk_score",
        "comment",
        "created_unix_ms",
        "resolved_unix_ms",
    )
    ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    RISK_SCORE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    id: str
    session_id: str
    status: DecisionStatus
    action: str
    target: str
    risk_score: float
    comment: str
    created_unix_ms: int
    resolved_unix_ms: int
    def __init__(
        self,
        id: _Optional[str] = ...,
        session_id: _Optional[str] = ...,
        status: _Optional[_Union[DecisionStatus, str]] = ...,
        action: _Optional[str] = ...,
        target: _Optional[str] = ...,
        risk_score: _Optional[float] = ...,
        comment: _Optional[str] = ...,
        created_unix_ms: _Optional[int] = ...,
        resolved_unix_ms: _Optional[int] = ...,
    ) -> None: ...

class Metrics(_message.Message):
    __slots__ = (
        "sessions_created",
        "sessions_open",
        "decisions_total",
        "decisions_pending",
        "decisions_approved",
        "decisions_rejected",
        "decisions_escalated",
    )
    SESSIONS_CREATED_FIELD_NUMBER: _ClassVar[int]
    SESSIONS_OPEN_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_PENDING_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_APPROVED_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_REJECTED_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_ESCALATED_FIELD_NUMBER: _ClassVar[int]
    sessions_created: int
    sessions_open: int
    decisions_total: int
    decisions_pending: int
    decisions_approved: int
    decisions_rejected: int
    decisions_escalated: int
    def __init__(
        self,
        sessions_created: _Optional[int] = ...,
        sessions_open: _Optional[int] = ...,
        decisions_total: _Optional[int] = ...,
        decisions_pending: _Optional[int] = ...,
        decisions_approved: _Optional[int] = ...,
        decisions_rejected: _Optional[int] = ...,
        decisions_escalated: _Optional[int] = ...,
    ) -> None: ...

class SessionStats(_message.Message):
    __slots__ = (
        "session_id",
        "operator",
        "state",
        "approved",
        "rejected",
        "escalated",
        "total_resolved",
    )
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    ESCALATED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    operator: str
    state: SessionState
    approved: int
    rejected: int
    escalated: int
    total_resolved: int
    def __init__(
        self,
        session_id: _Optional[str] = ...,
        operator: _Optional[str] = ...,
        state: _Optional[_Union[SessionState, str]] = ...,
        approved: _Optional[int] = ...,
        rejected: _Optional[int] = ...,
        escalated: _Optional[int] = ...,
        total_resolved: _Optional[int] = ...,
    ) -> None: ...

class HealthCheckRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class HealthCheckResponse(_message.Message):
    __slots__ = ("healthy", "status", "uptime_seconds")
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    UPTIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    healthy: bool
    status: str
    uptime_seconds: int
    def __init__(
        self,
        healthy: _Optional[bool] = ...,
        status: _Optional[str] = ...,
        uptime_seconds: _Optional[int] = ...,
    ) -> None: ...

class CreateSessionRequest(_message.Message):
    __slots__ = ("operator",)
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    operator: str
    def __init__(self, operator: _Optional[str] = ...) -> None: ...

class CreateSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class CloseSessionRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class CloseSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class ListPendingDecisionsRequest(_message.Message):
    __slots__ = ("session_id", "limit")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    limit: int
    def __init__(self, session_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListPendingDecisionsResponse(_message.Message):
    __slots__ = ("decisions", "total_pending")
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PENDING_FIELD_NUMBER: _ClassVar[int]
    decisions: _containers.RepeatedCompositeFieldContainer[Decision]
    total_pending: int
    def __init__(
        self,
        decisions: _Optional[_Iterable[_Union[Decision, _Mapping]]] = ...,
        total_pending: _Optional[int] = ...,
    ) -> None: ...

class GetDecisionRequest(_message.Message):
    __slots__ = ("decision_id",)
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    def __init__(self, decision_id: _Optional[str] = ...) -> None: ...

class GetDecisionResponse(_message.Message):
    __slots__ = ("decision",)
    DECISION_FIELD_NUMBER: _ClassVar[int]
    decision: Decision
    def __init__(self, decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class ApproveDecisionRequest(_message.Message):
    __slots__ = ("decision_id", "session_id", "comment")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    session_id: str
    comment: str
    def __init__(
        self,
        decision_id: _Optional[str] = ...,
        session_id: _Optional[str] = ...,
        comment: _Optional[str] = ...,
    ) -> None: ...

class ApproveDecisionResponse(_message.Message):
    __slots__ = ("decision",)
    DECISION_FIELD_NUMBER: _ClassVar[int]
    decision: Decision
    def __init__(self, decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class RejectDecisionRequest(_message.Message):
    __slots__ = ("decision_id", "session_id", "comment")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    session_id: str
    comment: str
    def __init__(
        self,
        decision_id: _Optional[str] = ...,
        session_id: _Optional[str] = ...,
        comment: _Optional[str] = ...,
    ) -> None: ...

class RejectDecisionResponse(_message.Message):
    __slots__ = ("decision",)
    DECISION_FIELD_NUMBER: _ClassVar[int]
    decision: Decision
    def __init__(self, decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class EscalateDecisionRequest(_message.Message):
    __slots__ = ("decision_id", "session_id", "comment")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    session_id: str
    comment: str
    def __init__(
        self,
        decision_id: _Optional[str] = ...,
        session_id: _Optional[str] = ...,
        comment: _Optional[str] = ...,
    ) -> None: ...

class EscalateDecisionResponse(_message.Message):
    __slots__ = ("decision",)
    DECISION_FIELD_NUMBER: _ClassVar[int]
    decision: Decision
    def __init__(self, decision: _Optional[_Union[Decision, _Mapping]] = ...) -> None: ...

class GetMetricsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetMetricsResponse(_message.Message):
    __slots__ = ("metrics",)
    METRICS_FIELD_NUMBER: _ClassVar[int]
    metrics: Metrics
    def __init__(self, metrics: _Optional[_Union[Metrics, _Mapping]] = ...) -> None: ...

class GetSessionStatsRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class GetSessionStatsResponse(_message.Message):
    __slots__ = ("stats",)
    STATS_FIELD_NUMBER: _ClassVar[int]
    stats: SessionStats
    def __init__(self, stats: _Optional[_Union[SessionStats, _Mapping]] = ...) -> None: ...
