package governance

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
)

// The HTTP/JSON API. Every body is the JSON form of the matching gRPC response message
// in servers/proto/governance.proto; errors are {"detail": "..."} as FastAPI writes them,
// with 404 (unknown session or decision), 409 (closed session, decision resolved
// otherwise) and 422 (a bad body, query or argument).
//
//	GET  /health                           HealthCheckResponse
//	POST /sessions                         {"operator"} -> 201 CreateSessionResponse
//	POST /sessions/{id}/close              CloseSessionResponse
//	GET  /sessions/{id}/stats              GetSessionStatsResponse
//	GET  /sessions/{id}/decisions?limit=N  ListPendingDecisionsResponse
//	GET  /decisions/{id}                   GetDecisionResponse
//	POST /decisions/{id}/approve           {"session_id", "comment"} -> ApproveDecisionResponse
//	POST /decisions/{id}/reject            {"session_id", "comment"} -> RejectDecisionResponse
//	POST /decisions/{id}/escalate          {"session_id", "comment"} -> EscalateDecisionResponse
//	GET  /metrics                          GetMetricsResponse

// HealthCheckResponse is GET /health's body.
type HealthCheckResponse struct {
	Healthy       bool   `json:"healthy"`
	Status        string `json:"status"`
	UptimeSeconds int64  `json:"uptime_seconds"`
}

// SessionResponse is the body of POST /sessions and POST /sessions/{id}/close.
type SessionResponse struct {
	Session Session `json:"session"`
}

// DecisionResponse is the body of GET /decisions/{id} and of approve, reject, escalate.
type DecisionResponse struct {
	Decision Decision `json:"decision"`
}

// ListPendingDecisionsResponse is GET /sessions/{id}/decisions' body.
type ListPendingDecisionsResponse struct {
	Decisions    []Decision `json:"decisions"`
	TotalPending int64      `json:"total_pending"`
}

// MetricsResponse is GET /metrics' body.
type MetricsResponse struct {
	Metrics Metrics `json:"metrics"`
}

// SessionStatsResponse is GET /sessions/{id}/stats' body.
type SessionStatsResponse struct {
	Stats SessionStats `json:"stats"`
}

// CreateSessionRequest is POST /sessions' body.
type CreateSessionRequest struct {
	Operator string `json:"operator"`
}

// ResolveRequest is the body of approve, reject and escalate.
type ResolveRequest struct {
	SessionID string `json:"session_id"`
	Comment   string `json:"comment"`
}

// ErrorResponse is every error's body.
type ErrorResponse struct {
	Detail string `json:"detail"`
}

// NewHTTPHandler serves e's API over HTTP/JSON.
func NewHTTPHandler(e *Engine) http.Handler {
	h := &httpAPI{e: e}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", h.health)
	mux.HandleFunc("POST /sessions", h.createSession)
	mux.HandleFunc("POST /sessions/{id}/close", h.closeSession)
	mux.HandleFunc("GET /sessions/{id}/stats", h.sessionStats)
	mux.HandleFunc("GET /sessions/{id}/decisions", h.listPending)
	mux.HandleFunc("GET /decisions/{id}", h.getDecision)
	mux.HandleFunc("POST /decisions/{id}/approve", h.resolver(e.ApproveDecision))
	mux.HandleFunc("POST /decisions/{id}/reject", h.resolver(e.RejectDecision))
	mux.HandleFunc("POST /decisions/{id}/escalate", h.resolver(e.EscalateDecision))
	mux.HandleFunc("GET /metrics", h.metrics)
	return mux
}

type httpAPI struct {
	e *Engine
}

func (h *httpAPI) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, HealthCheckResponse{Healthy: true, Status: "ok", UptimeSeconds: h.e.UptimeSeconds()})
}

func (h *httpAPI) createSession(w http.ResponseWriter, r *http.Request) {
	var req CreateSessionRequest
	if !readJSON(w, r, &req) {
		return
	}
	s, err := h.e.CreateSession(req.Operator)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, SessionResponse{Session: s})
}

func (h *httpAPI) closeSession(w http.ResponseWriter, r *http.Request) {
	s, err := h.e.CloseSession(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, SessionResponse{Session: s})
}

func (h *httpAPI) sessionStats(w http.ResponseWriter, r *http.Request) {
	st, err := h.e.GetSessionStats(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, SessionStatsResponse{Stats: st})
}

func (h *httpAPI) listPending(w http.ResponseWriter, r *http.Request) {
	limit := 0
	if q := r.URL.Query().Get("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil {
			writeJSON(w, http.StatusUnprocessableEntity, ErrorResponse{Detail: "limit must be an integer"})
			return
		}
		limit = n
	}
	ds, total, err := h.e.ListPendingDecisions(r.PathValue("id"), limit)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ListPendingDecisionsResponse{Decisions: ds, TotalPending: total})
}

func (h *httpAPI) getDecision(w http.ResponseWriter, r *http.Request) {
	d, err := h.e.GetDecision(r.PathValue("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, DecisionResponse{Decision: d})
}

func (h *httpAPI) resolver(resolve func(decisionID, sessionID, comment string) (Decision, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req ResolveRequest
		if !readJSON(w, r, &req) {
			return
		}
		d, err := resolve(r.PathValue("id"), req.SessionID, req.Comment)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, DecisionResponse{Decision: d})
	}
}

func (h *httpAPI) metrics(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, MetricsResponse{Metrics: h.e.GetMetrics()})
}

// maxBody bounds request bodies; every valid one is far smaller.
const maxBody = 1 << 16

// readJSON decodes the body into v, or answers 422 and returns false.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(v); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, ErrorResponse{Detail: "invalid JSON body: " + err.Error()})
		return false
	}
	return true
}

// writeError answers with the status that err's kind maps to.
func writeError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, ErrNotFound):
		code = http.StatusNotFound
	case errors.Is(err, ErrFailedPrecondition):
		code = http.StatusConflict
	case errors.Is(err, ErrInvalidArgument):
		code = http.StatusUnprocessableEntity
	}
	writeJSON(w, code, ErrorResponse{Detail: err.Error()})
}

// writeJSON writes v compactly with an exact Content-Length, as FastAPI does.
func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
