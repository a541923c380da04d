// Package governance is seed 001's governance service in Go: an in-memory engine of
// operator sessions and pending decisions, served over HTTP/JSON (NewHTTPHandler) and
// gRPC (NewGRPCServer). servers/python/governance is the same engine in Python; both
// follow servers/proto/governance.proto and answer the same paths with the same JSON.
//
// Every operation can be repeated millions of times in a benchmark loop and still
// succeed:
//   - the engine keeps PendingTarget decisions pending: whenever one is resolved, a new
//     one is queued, so ListPendingDecisions always has data;
//   - approving an approved decision (rejecting a rejected one, escalating an escalated
//     one) succeeds and changes nothing; only a different verb on a resolved decision
//     is an error (ErrFailedPrecondition);
//   - closing a closed session succeeds and changes nothing.
//
// Sessions are never deleted, so CreateSession in a loop grows memory by a few hundred
// bytes per session.
package governance

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The errors every operation can return, wrapped with details. Transports map them to
// 404/409/422 (HTTP) and NOT_FOUND/FAILED_PRECONDITION/INVALID_ARGUMENT (gRPC).
var (
	ErrNotFound           = errors.New("not found")
	ErrFailedPrecondition = errors.New("failed precondition")
	ErrInvalidArgument    = errors.New("invalid argument")
)

const (
	// PendingTarget is how many decisions are pending at any time.
	PendingTarget = 16
	// DefaultListLimit is ListPendingDecisions' limit when the request gives 0.
	DefaultListLimit = 10
	// MaxListLimit caps ListPendingDecisions' limit.
	MaxListLimit = 100
)

// SessionState is "open" or "closed".
type SessionState string

// The session states, as written in JSON.
const (
	SessionOpen   SessionState = "open"
	SessionClosed SessionState = "closed"
)

// DecisionStatus is a decision's place in its life: pending, then one of the others.
type DecisionStatus string

// The decision statuses, as written in JSON.
const (
	StatusPending   DecisionStatus = "pending"
	StatusApproved  DecisionStatus = "approved"
	StatusRejected  DecisionStatus = "rejected"
	StatusEscalated DecisionStatus = "escalated"
)

// Session is an operator's session.
type Session struct {
	ID            string       `json:"id"`
	Operator      string       `json:"operator"`
	State         SessionState `json:"state"`
	CreatedUnixMs int64        `json:"created_unix_ms"`
	ClosedUnixMs  int64        `json:"closed_unix_ms"`
}

// Decision is an action waiting for (or given) an operator's verdict.
type Decision struct {
	ID             string         `json:"id"`
	SessionID      string         `json:"session_id"`
	Status         DecisionStatus `json:"status"`
	Action         string         `json:"action"`
	Target         string         `json:"target"`
	RiskScore      float64        `json:"risk_score"`
	Comment        string         `json:"comment"`
	CreatedUnixMs  int64          `json:"created_unix_ms"`
	ResolvedUnixMs int64          `json:"resolved_unix_ms"`
}

// Metrics are the engine-wide counters.
type Metrics struct {
	SessionsCreated    int64 `json:"sessions_created"`
	SessionsOpen       int64 `json:"sessions_open"`
	DecisionsTotal     int64 `json:"decisions_total"`
	DecisionsPending   int64 `json:"decisions_pending"`
	DecisionsApproved  int64 `json:"decisions_approved"`
	DecisionsRejected  int64 `json:"decisions_rejected"`
	DecisionsEscalated int64 `json:"decisions_escalated"`
}

// SessionStats counts what one session resolved.
type SessionStats struct {
	SessionID     string       `json:"session_id"`
	Operator      string       `json:"operator"`
	State         SessionState `json:"state"`
	Approved      int64        `json:"approved"`
	Rejected      int64        `json:"rejected"`
	Escalated     int64        `json:"escalated"`
	TotalResolved int64        `json:"total_resolved"`
}

// The payload of generated decisions: deterministic, from the decision's number.
var actions = []string{"block_ip", "quarantine_file", "terminate_process", "disable_account"}

type sessionRecord struct {
	session Session
	stats   SessionStats
}

// Engine holds every session and decision in memory. It is safe for concurrent use.
type Engine struct {
	started time.Time
	now     func() time.Time

	mu           sync.Mutex
	sessions     map[string]*sessionRecord
	decisions    map[string]*Decision
	pending      []*Decision // oldest first, always PendingTarget long
	nextSession  int64
	nextDecision int64
	metrics      Metrics
}

// NewEngine returns an engine with PendingTarget pending decisions and no sessions.
func NewEngine() *Engine {
	return newEngine(time.Now)
}

func newEngine(now func() time.Time) *Engine {
	e := &Engine{
		started:   now(),
		now:       now,
		sessions:  make(map[string]*sessionRecord),
		decisions: make(map[string]*Decision),
	}
	for range PendingTarget {
		e.queueDecision()
	}
	return e
}

// queueDecision adds one pending decision; e.mu must be held (or e unshared).
func (e *Engine) queueDecision() {
	e.nextDecision++
	n := e.nextDecision
	d := &Decision{
		ID:            fmt.Sprintf("dec-%06d", n),
		Status:        StatusPending,
		Action:        actions[n%int64(len(actions))],
		Target:        fmt.Sprintf("host-%03d", n%250),
		RiskScore:     float64(50+(n*37)%50) / 100,
		CreatedUnixMs: e.now().UnixMilli(),
	}
	e.decisions[d.ID] = d
	e.pending = append(e.pending, d)
	e.metrics.DecisionsTotal++
	e.metrics.DecisionsPending++
}

// UptimeSeconds is the whole seconds since the engine started.
func (e *Engine) UptimeSeconds() int64 {
	return int64(e.now().Sub(e.started) / time.Second)
}

// CreateSession opens a session for operator, which must not be empty.
func (e *Engine) CreateSession(operator string) (Session, error) {
	if operator == "" {
		return Session{}, fmt.Errorf("%w: operator is required", ErrInvalidArgument)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextSession++
	s := Session{
		ID:            fmt.Sprintf("ses-%06d", e.nextSession),
		Operator:      operator,
		State:         SessionOpen,
		CreatedUnixMs: e.now().UnixMilli(),
	}
	e.sessions[s.ID] = &sessionRecord{
		session: s,
		stats:   SessionStats{SessionID: s.ID, Operator: operator, State: SessionOpen},
	}
	e.metrics.SessionsCreated++
	e.metrics.SessionsOpen++
	return s, nil
}

// CloseSession closes a session; closing a closed session returns it unchanged.
func (e *Engine) CloseSession(id string) (Session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rec, err := e.session(id)
	if err != nil {
		return Session{}, err
	}
	if rec.session.State == SessionOpen {
		rec.session.State = SessionClosed
		rec.session.ClosedUnixMs = e.now().UnixMilli()
		rec.stats.State = SessionClosed
		e.metrics.SessionsOpen--
	}
	return rec.session, nil
}

// ListPendingDecisions returns up to limit pending decisions, oldest first, and how
// many are pending. limit 0 means DefaultListLimit; above MaxListLimit it is capped.
func (e *Engine) ListPendingDecisions(sessionID string, limit int) ([]Decision, int64, error) {
	switch {
	case limit < 0:
		return nil, 0, fmt.Errorf("%w: limit must not be negative", ErrInvalidArgument)
	case limit == 0:
		limit = DefaultListLimit
	case limit > MaxListLimit:
		limit = MaxListLimit
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.openSession(sessionID); err != nil {
		return nil, 0, err
	}
	n := min(limit, len(e.pending))
	out := make([]Decision, n)
	for i, d := range e.pending[:n] {
		out[i] = *d
	}
	return out, int64(len(e.pending)), nil
}

// GetDecision returns one decision, pending or resolved.
func (e *Engine) GetDecision(id string) (Decision, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.decisions[id]
	if !ok {
		return Decision{}, fmt.Errorf("%w: decision %q", ErrNotFound, id)
	}
	return *d, nil
}

// ApproveDecision approves a pending decision on behalf of an open session.
func (e *Engine) ApproveDecision(decisionID, sessionID, comment string) (Decision, error) {
	return e.resolve(decisionID, sessionID, comment, StatusApproved)
}

// RejectDecision rejects a pending decision on behalf of an open session.
func (e *Engine) RejectDecision(decisionID, sessionID, comment string) (Decision, error) {
	return e.resolve(decisionID, sessionID, comment, StatusRejected)
}

// EscalateDecision escalates a pending decision on behalf of an open session.
func (e *Engine) EscalateDecision(decisionID, sessionID, comment string) (Decision, error) {
	return e.resolve(decisionID, sessionID, comment, StatusEscalated)
}

func (e *Engine) resolve(decisionID, sessionID, comment string, to DecisionStatus) (Decision, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rec, err := e.openSession(sessionID)
	if err != nil {
		return Decision{}, err
	}
	d, ok := e.decisions[decisionID]
	if !ok {
		return Decision{}, fmt.Errorf("%w: decision %q", ErrNotFound, decisionID)
	}
	switch d.Status {
	case to: // the same verb again: idempotent
		return *d, nil
	case StatusPending:
	default:
		return Decision{}, fmt.Errorf("%w: decision %q is %s, cannot make it %s",
			ErrFailedPrecondition, decisionID, d.Status, to)
	}
	d.Status = to
	d.SessionID = sessionID
	d.Comment = comment
	d.ResolvedUnixMs = e.now().UnixMilli()
	e.pending = slices.DeleteFunc(e.pending, func(p *Decision) bool { return p == d })
	e.metrics.DecisionsPending--
	rec.stats.TotalResolved++
	switch to {
	case StatusApproved:
		e.metrics.DecisionsApproved++
		rec.stats.Approved++
	case StatusRejected:
		e.metrics.DecisionsRejected++
		rec.stats.Rejected++
	case StatusEscalated:
		e.metrics.DecisionsEscalated++
		rec.stats.Escalated++
	}
	resolved := *d
	e.queueDecision()
	return resolved, nil
}

// GetMetrics returns the engine-wide counters.
func (e *Engine) GetMetrics() Metrics {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.metrics
}

// GetSessionStats returns what a session (open or closed) has resolved.
func (e *Engine) GetSessionStats(sessionID string) (SessionStats, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rec, err := e.session(sessionID)
	if err != nil {
		return SessionStats{}, err
	}
	return rec.stats, nil
}

// session finds a session; e.mu must be held.
func (e *Engine) session(id string) (*sessionRecord, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: session_id is required", ErrInvalidArgument)
	}
	rec, ok := e.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w: session %q", ErrNotFound, id)
	}
	return rec, nil
}

// openSession finds a session that is still open; e.mu must be held.
func (e *Engine) openSession(id string) (*sessionRecord, error) {
	rec, err := e.session(id)
	if err != nil {
		return nil, err
	}
	if rec.session.State != SessionOpen {
		return nil, fmt.Errorf("%w: session %q is closed", ErrFailedPrecondition, id)
	}
	return rec, nil
}
