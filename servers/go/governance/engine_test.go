package governance

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// fixedClock returns an engine whose clock starts at 1,000,000 ms and moves only when
// the test says.
func fixedClock() (*Engine, *time.Time) {
	now := time.UnixMilli(1_000_000)
	return newEngine(func() time.Time { return now }), &now
}

func mustSession(t *testing.T, e *Engine, operator string) Session {
	t.Helper()
	s, err := e.CreateSession(operator)
	if err != nil {
		t.Fatalf("CreateSession(%q): %v", operator, err)
	}
	return s
}

func TestNewEngineSeedsPendingDecisions(t *testing.T) {
	e, _ := fixedClock()
	s := mustSession(t, e, "alice")
	ds, total, err := e.ListPendingDecisions(s.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != PendingTarget || len(ds) != DefaultListLimit {
		t.Fatalf("got %d decisions of %d pending, want %d of %d", len(ds), total, DefaultListLimit, PendingTarget)
	}
	want := Decision{
		ID: "dec-000001", Status: StatusPending, Action: "quarantine_file", Target: "host-001",
		RiskScore: 0.87, CreatedUnixMs: 1_000_000,
	}
	if ds[0] != want {
		t.Errorf("first decision = %+v, want %+v", ds[0], want)
	}
	for i, d := range ds {
		if wantID := fmt.Sprintf("dec-%06d", i+1); d.ID != wantID || d.Status != StatusPending {
			t.Errorf("decision %d = %s %s, want %s pending (oldest first)", i, d.ID, d.Status, wantID)
		}
	}
}

func TestListLimit(t *testing.T) {
	tests := []struct {
		limit   int
		want    int
		wantErr error
	}{
		{limit: 0, want: DefaultListLimit},
		{limit: 1, want: 1},
		{limit: 10, want: 10},
		{limit: PendingTarget + 5, want: PendingTarget},
		{limit: 1000, want: PendingTarget},
		{limit: -1, wantErr: ErrInvalidArgument},
	}
	e, _ := fixedClock()
	s := mustSession(t, e, "alice")
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			ds, _, err := e.ListPendingDecisions(s.ID, tt.limit)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if len(ds) != tt.want {
				t.Errorf("got %d decisions, want %d", len(ds), tt.want)
			}
		})
	}
}

func TestResolveTransitions(t *testing.T) {
	type resolveFn func(e *Engine, decisionID, sessionID, comment string) (Decision, error)
	approve := (*Engine).ApproveDecision
	reject := (*Engine).RejectDecision
	escalate := (*Engine).EscalateDecision
	tests := []struct {
		name   string
		first  resolveFn
		second resolveFn
		want   DecisionStatus // after both
		err    error          // of the second
	}{
		{"approve twice is idempotent", approve, approve, StatusApproved, nil},
		{"reject twice is idempotent", reject, reject, StatusRejected, nil},
		{"escalate twice is idempotent", escalate, escalate, StatusEscalated, nil},
		{"reject after approve", approve, reject, StatusApproved, ErrFailedPrecondition},
		{"approve after escalate", escalate, approve, StatusEscalated, ErrFailedPrecondition},
		{"escalate after reject", reject, escalate, StatusRejected, ErrFailedPrecondition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, now := fixedClock()
			s := mustSession(t, e, "alice")
			*now = now.Add(time.Second)
			d, err := tt.first(e, "dec-000003", s.ID, "first")
			if err != nil {
				t.Fatal(err)
			}
			if d.SessionID != s.ID || d.Comment != "first" || d.ResolvedUnixMs != 1_001_000 {
				t.Errorf("resolved decision = %+v", d)
			}
			*now = now.Add(time.Second)
			again, err := tt.second(e, "dec-000003", s.ID, "second")
			if !errors.Is(err, tt.err) {
				t.Fatalf("second call err = %v, want %v", err, tt.err)
			}
			if err == nil && again != d {
				t.Errorf("repeated verb changed the decision: %+v, was %+v", again, d)
			}
			got, _ := e.GetDecision("dec-000003")
			if got.Status != tt.want || got.Comment != "first" {
				t.Errorf("decision is %s %q, want %s %q", got.Status, got.Comment, tt.want, "first")
			}
			m := e.GetMetrics()
			if m.DecisionsPending != PendingTarget || m.DecisionsTotal != PendingTarget+1 {
				t.Errorf("metrics = %+v, want %d pending of %d", m, PendingTarget, PendingTarget+1)
			}
			st, _ := e.GetSessionStats(s.ID)
			if st.TotalResolved != 1 || st.Approved+st.Rejected+st.Escalated != 1 {
				t.Errorf("stats = %+v, want one resolution", st)
			}
		})
	}
}

func TestResolvedDecisionLeavesTheQueueAndIsReplaced(t *testing.T) {
	e, _ := fixedClock()
	s := mustSession(t, e, "alice")
	if _, err := e.ApproveDecision("dec-000001", s.ID, ""); err != nil {
		t.Fatal(err)
	}
	ds, total, _ := e.ListPendingDecisions(s.ID, MaxListLimit)
	if total != PendingTarget || ds[0].ID != "dec-000002" || ds[len(ds)-1].ID != "dec-000017" {
		t.Errorf("queue after approving the oldest: %s..%s (%d)", ds[0].ID, ds[len(ds)-1].ID, total)
	}
}

func TestErrors(t *testing.T) {
	e, _ := fixedClock()
	open := mustSession(t, e, "alice")
	closed := mustSession(t, e, "bob")
	if _, err := e.CloseSession(closed.ID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"create without operator", func() error { _, err := e.CreateSession(""); return err }, ErrInvalidArgument},
		{"close unknown", func() error { _, err := e.CloseSession("ses-999999"); return err }, ErrNotFound},
		{"close without id", func() error { _, err := e.CloseSession(""); return err }, ErrInvalidArgument},
		{"list on unknown session", func() error { _, _, err := e.ListPendingDecisions("nope", 0); return err }, ErrNotFound},
		{"list on closed session", func() error { _, _, err := e.ListPendingDecisions(closed.ID, 0); return err }, ErrFailedPrecondition},
		{"get unknown decision", func() error { _, err := e.GetDecision("dec-999999"); return err }, ErrNotFound},
		{"approve unknown decision", func() error { _, err := e.ApproveDecision("dec-999999", open.ID, ""); return err }, ErrNotFound},
		{"approve from closed session", func() error { _, err := e.ApproveDecision("dec-000001", closed.ID, ""); return err }, ErrFailedPrecondition},
		{"reject without session", func() error { _, err := e.RejectDecision("dec-000001", "", ""); return err }, ErrInvalidArgument},
		{"stats of unknown session", func() error { _, err := e.GetSessionStats("nope"); return err }, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCloseSessionIsIdempotent(t *testing.T) {
	e, now := fixedClock()
	s := mustSession(t, e, "alice")
	*now = now.Add(time.Second)
	first, err := e.CloseSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	*now = now.Add(time.Second)
	second, err := e.CloseSession(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if first != second || first.State != SessionClosed || first.ClosedUnixMs != 1_001_000 {
		t.Errorf("closes = %+v then %+v", first, second)
	}
	if m := e.GetMetrics(); m.SessionsCreated != 1 || m.SessionsOpen != 0 {
		t.Errorf("metrics = %+v", m)
	}
	if st, _ := e.GetSessionStats(s.ID); st.State != SessionClosed {
		t.Errorf("stats state = %s, want closed", st.State)
	}
}

func TestConcurrentResolutionsKeepTheCountersConsistent(t *testing.T) {
	e := NewEngine()
	s := mustSession(t, e, "alice")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for range 200 {
				ds, _, err := e.ListPendingDecisions(s.ID, 1)
				if err != nil {
					t.Error(err)
					return
				}
				// Another goroutine may have resolved it otherwise: only that is allowed.
				var err2 error
				switch w % 3 {
				case 0:
					_, err2 = e.ApproveDecision(ds[0].ID, s.ID, "")
				case 1:
					_, err2 = e.RejectDecision(ds[0].ID, s.ID, "")
				default:
					_, err2 = e.EscalateDecision(ds[0].ID, s.ID, "")
				}
				if err2 != nil && !errors.Is(err2, ErrFailedPrecondition) {
					t.Error(err2)
				}
			}
		})
	}
	wg.Wait()
	m := e.GetMetrics()
	st, _ := e.GetSessionStats(s.ID)
	resolved := m.DecisionsApproved + m.DecisionsRejected + m.DecisionsEscalated
	if m.DecisionsPending != PendingTarget || m.DecisionsTotal != PendingTarget+resolved || st.TotalResolved != resolved {
		t.Errorf("metrics %+v and stats %+v disagree", m, st)
	}
}
