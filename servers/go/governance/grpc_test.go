package governance

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	pb "benchbook/servers/governance/governancepb"
)

// startGRPC serves a fresh engine on a loopback port for the test's duration.
func startGRPC(t *testing.T) pb.GovernanceServiceClient {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewGRPCServer(NewEngine())
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return pb.NewGovernanceServiceClient(conn)
}

func TestGRPCEveryOperation(t *testing.T) {
	c := startGRPC(t)
	ctx := context.Background()

	health, err := c.HealthCheck(ctx, &pb.HealthCheckRequest{})
	if err != nil || !health.GetHealthy() || health.GetStatus() != "ok" {
		t.Fatalf("HealthCheck = %v, %v", health, err)
	}
	created, err := c.CreateSession(ctx, &pb.CreateSessionRequest{Operator: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	sid := created.GetSession().GetId()
	if sid != "ses-000001" || created.GetSession().GetState() != pb.SessionState_SESSION_STATE_OPEN {
		t.Fatalf("CreateSession = %v", created)
	}
	list, err := c.ListPendingDecisions(ctx, &pb.ListPendingDecisionsRequest{SessionId: sid, Limit: 10})
	if err != nil || len(list.GetDecisions()) != 10 || list.GetTotalPending() != PendingTarget {
		t.Fatalf("ListPendingDecisions = %v, %v", list, err)
	}
	first := list.GetDecisions()[0]
	if first.GetId() != "dec-000001" || first.GetAction() != "quarantine_file" || first.GetRiskScore() != 0.87 {
		t.Errorf("first decision = %v", first)
	}
	got, err := c.GetDecision(ctx, &pb.GetDecisionRequest{DecisionId: "dec-000002"})
	if err != nil || got.GetDecision().GetStatus() != pb.DecisionStatus_DECISION_STATUS_PENDING {
		t.Fatalf("GetDecision = %v, %v", got, err)
	}

	resolutions := []struct {
		name string
		call func() (*pb.Decision, error)
		want pb.DecisionStatus
	}{
		{"approve", func() (*pb.Decision, error) {
			r, err := c.ApproveDecision(ctx, &pb.ApproveDecisionRequest{DecisionId: "dec-000001", SessionId: sid, Comment: "ok"})
			return r.GetDecision(), err
		}, pb.DecisionStatus_DECISION_STATUS_APPROVED},
		{"reject", func() (*pb.Decision, error) {
			r, err := c.RejectDecision(ctx, &pb.RejectDecisionRequest{DecisionId: "dec-000002", SessionId: sid})
			return r.GetDecision(), err
		}, pb.DecisionStatus_DECISION_STATUS_REJECTED},
		{"escalate", func() (*pb.Decision, error) {
			r, err := c.EscalateDecision(ctx, &pb.EscalateDecisionRequest{DecisionId: "dec-000003", SessionId: sid})
			return r.GetDecision(), err
		}, pb.DecisionStatus_DECISION_STATUS_ESCALATED},
	}
	for _, r := range resolutions {
		for range 2 { // the second time is idempotent
			d, err := r.call()
			if err != nil || d.GetStatus() != r.want || d.GetSessionId() != sid {
				t.Errorf("%s = %v, %v", r.name, d, err)
			}
		}
	}

	stats, err := c.GetSessionStats(ctx, &pb.GetSessionStatsRequest{SessionId: sid})
	if err != nil || stats.GetStats().GetTotalResolved() != 3 || stats.GetStats().GetApproved() != 1 {
		t.Errorf("GetSessionStats = %v, %v", stats, err)
	}
	metrics, err := c.GetMetrics(ctx, &pb.GetMetricsRequest{})
	m := metrics.GetMetrics()
	if err != nil || m.GetDecisionsPending() != PendingTarget || m.GetDecisionsTotal() != PendingTarget+3 || m.GetSessionsOpen() != 1 {
		t.Errorf("GetMetrics = %v, %v", metrics, err)
	}
	for range 2 {
		closed, err := c.CloseSession(ctx, &pb.CloseSessionRequest{SessionId: sid})
		if err != nil || closed.GetSession().GetState() != pb.SessionState_SESSION_STATE_CLOSED {
			t.Errorf("CloseSession = %v, %v", closed, err)
		}
	}
}

func TestGRPCStatusCodes(t *testing.T) {
	c := startGRPC(t)
	ctx := context.Background()
	sess, err := c.CreateSession(ctx, &pb.CreateSessionRequest{Operator: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	sid := sess.GetSession().GetId()
	if _, err := c.ApproveDecision(ctx, &pb.ApproveDecisionRequest{DecisionId: "dec-000001", SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
		want codes.Code
	}{
		{"unknown decision", func() error {
			_, err := c.GetDecision(ctx, &pb.GetDecisionRequest{DecisionId: "dec-999999"})
			return err
		}, codes.NotFound},
		{"no operator", func() error {
			_, err := c.CreateSession(ctx, &pb.CreateSessionRequest{})
			return err
		}, codes.InvalidArgument},
		{"negative limit", func() error {
			_, err := c.ListPendingDecisions(ctx, &pb.ListPendingDecisionsRequest{SessionId: sid, Limit: -1})
			return err
		}, codes.InvalidArgument},
		{"reject an approved decision", func() error {
			_, err := c.RejectDecision(ctx, &pb.RejectDecisionRequest{DecisionId: "dec-000001", SessionId: sid})
			return err
		}, codes.FailedPrecondition},
		{"stats of unknown session", func() error {
			_, err := c.GetSessionStats(ctx, &pb.GetSessionStatsRequest{SessionId: "ses-999999"})
			return err
		}, codes.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := status.Code(tt.call()); got != tt.want {
				t.Errorf("code = %s, want %s", got, tt.want)
			}
		})
	}
}
