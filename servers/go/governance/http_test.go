package governance

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func serve(t *testing.T, h http.Handler, method, path, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, r))
	if ct := rec.Header().Get("Content-Type"); rec.Code < 500 && ct != "application/json" && rec.Code != http.StatusMethodNotAllowed && rec.Code != http.StatusNotFound {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	return rec.Code, rec.Body.String()
}

func TestHTTPEveryOperation(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	e := newEngine(func() time.Time { return now })
	h := NewHTTPHandler(e)
	// Each step runs on the state the previous ones left, as a client would see it.
	tests := []struct {
		method, path, body string
		code               int
		want               string // the exact body
	}{
		{"GET", "/health", "", 200, `{"healthy":true,"status":"ok","uptime_seconds":0}`},
		{"POST", "/sessions", `{"operator":"alice"}`, 201,
			`{"session":{"id":"ses-000001","operator":"alice","state":"open","created_unix_ms":1000000,"closed_unix_ms":0}}`},
		{"GET", "/sessions/ses-000001/decisions?limit=2", "", 200,
			`{"decisions":[` +
				`{"id":"dec-000001","session_id":"","status":"pending","action":"quarantine_file","target":"host-001","risk_score":0.87,"comment":"","created_unix_ms":1000000,"resolved_unix_ms":0},` +
				`{"id":"dec-000002","session_id":"","status":"pending","action":"terminate_process","target":"host-002","risk_score":0.74,"comment":"","created_unix_ms":1000000,"resolved_unix_ms":0}` +
				`],"total_pending":16}`},
		{"GET", "/decisions/dec-000002", "", 200,
			`{"decision":{"id":"dec-000002","session_id":"","status":"pending","action":"terminate_process","target":"host-002","risk_score":0.74,"comment":"","created_unix_ms":1000000,"resolved_unix_ms":0}}`},
		{"POST", "/decisions/dec-000001/approve", `{"session_id":"ses-000001","comment":"ok"}`, 200,
			`{"decision":{"id":"dec-000001","session_id":"ses-000001","status":"approved","action":"quarantine_file","target":"host-001","risk_score":0.87,"comment":"ok","created_unix_ms":1000000,"resolved_unix_ms":1000000}}`},
		{"POST", "/decisions/dec-000001/approve", `{"session_id":"ses-000001","comment":"again"}`, 200,
			`{"decision":{"id":"dec-000001","session_id":"ses-000001","status":"approved","action":"quarantine_file","target":"host-001","risk_score":0.87,"comment":"ok","created_unix_ms":1000000,"resolved_unix_ms":1000000}}`},
		{"POST", "/decisions/dec-000001/reject", `{"session_id":"ses-000001"}`, 409,
			`{"detail":"failed precondition: decision \"dec-000001\" is approved, cannot make it rejected"}`},
		{"POST", "/decisions/dec-000002/reject", `{"session_id":"ses-000001","comment":"no"}`, 200, ""},
		{"POST", "/decisions/dec-000003/escalate", `{"session_id":"ses-000001","comment":"lead"}`, 200, ""},
		{"GET", "/sessions/ses-000001/stats", "", 200,
			`{"stats":{"session_id":"ses-000001","operator":"alice","state":"open","approved":1,"rejected":1,"escalated":1,"total_resolved":3}}`},
		{"GET", "/metrics", "", 200,
			`{"metrics":{"sessions_created":1,"sessions_open":1,"decisions_total":19,"decisions_pending":16,"decisions_approved":1,"decisions_rejected":1,"decisions_escalated":1}}`},
		{"POST", "/sessions/ses-000001/close", "", 200,
			`{"session":{"id":"ses-000001","operator":"alice","state":"closed","created_unix_ms":1000000,"closed_unix_ms":1000000}}`},
		{"POST", "/sessions/ses-000001/close", "", 200,
			`{"session":{"id":"ses-000001","operator":"alice","state":"closed","created_unix_ms":1000000,"closed_unix_ms":1000000}}`},
		{"GET", "/sessions/ses-000001/decisions", "", 409, `{"detail":"failed precondition: session \"ses-000001\" is closed"}`},
		// Errors.
		{"GET", "/decisions/dec-999999", "", 404, `{"detail":"not found: decision \"dec-999999\""}`},
		{"GET", "/sessions/ses-999999/stats", "", 404, `{"detail":"not found: session \"ses-999999\""}`},
		{"POST", "/sessions", `{"operator":""}`, 422, `{"detail":"invalid argument: operator is required"}`},
		{"POST", "/sessions", `{"operator":`, 422, ""},
		{"POST", "/decisions/dec-000004/approve", `{}`, 422, `{"detail":"invalid argument: session_id is required"}`},
		{"GET", "/sessions/ses-000001/decisions?limit=x", "", 422, `{"detail":"limit must be an integer"}`},
		{"GET", "/nowhere", "", 404, ""},
		{"DELETE", "/health", "", 405, ""},
	}
	for _, tt := range tests {
		code, body := serve(t, h, tt.method, tt.path, tt.body)
		if code != tt.code || (tt.want != "" && body != tt.want) {
			t.Errorf("%s %s %s\n got %d %s\nwant %d %s", tt.method, tt.path, tt.body, code, body, tt.code, tt.want)
		}
		if code < 300 && !json.Valid([]byte(body)) {
			t.Errorf("%s %s: invalid JSON %q", tt.method, tt.path, body)
		}
	}
}

func TestHTTPListLimits(t *testing.T) {
	e := NewEngine()
	h := NewHTTPHandler(e)
	s, _ := e.CreateSession("alice")
	tests := []struct {
		query string
		want  int
	}{
		{"", DefaultListLimit},
		{"?limit=0", DefaultListLimit},
		{"?limit=3", 3},
		{"?limit=10", 10},
		{"?limit=500", PendingTarget},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			code, body := serve(t, h, "GET", "/sessions/"+s.ID+"/decisions"+tt.query, "")
			var got ListPendingDecisionsResponse
			if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
				t.Fatalf("%d %s (%v)", code, body, err)
			}
			if len(got.Decisions) != tt.want || got.TotalPending != PendingTarget {
				t.Errorf("got %d of %d, want %d of %d", len(got.Decisions), got.TotalPending, tt.want, PendingTarget)
			}
		})
	}
}
