package governance

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "benchbook/servers/governance/governancepb"
)

// NewGRPCServer returns a grpc-go server (default options) serving e's API.
func NewGRPCServer(e *Engine) *grpc.Server {
	s := grpc.NewServer()
	pb.RegisterGovernanceServiceServer(s, NewGRPCService(e))
	return s
}

// GRPCService implements pb.GovernanceServiceServer over an Engine.
type GRPCService struct {
	pb.UnimplementedGovernanceServiceServer
	e *Engine
}

// NewGRPCService returns the service, for registering on a server of one's own.
func NewGRPCService(e *Engine) *GRPCService {
	return &GRPCService{e: e}
}

// HealthCheck implements pb.GovernanceServiceServer.
func (s *GRPCService) HealthCheck(context.Context, *pb.HealthCheckRequest) (*pb.HealthCheckResponse, error) {
	return &pb.HealthCheckResponse{Healthy: true, Status: "ok", UptimeSeconds: s.e.UptimeSeconds()}, nil
}

// CreateSession implements pb.GovernanceServiceServer.
func (s *GRPCService) CreateSession(_ context.Context, req *pb.CreateSessionRequest) (*pb.CreateSessionResponse, error) {
	sess, err := s.e.CreateSession(req.GetOperator())
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.CreateSessionResponse{Session: sessionToPB(sess)}, nil
}

// CloseSession implements pb.GovernanceServiceServer.
func (s *GRPCService) CloseSession(_ context.Context, req *pb.CloseSessionRequest) (*pb.CloseSessionResponse, error) {
	sess, err := s.e.CloseSession(req.GetSessionId())
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.CloseSessionResponse{Session: sessionToPB(sess)}, nil
}

// ListPendingDecisions implements pb.GovernanceServiceServer.
func (s *GRPCService) ListPendingDecisions(_ context.Context, req *pb.ListPendingDecisionsRequest) (*pb.ListPendingDecisionsResponse, error) {
	ds, total, err := s.e.ListPendingDecisions(req.GetSessionId(), int(req.GetLimit()))
	if err != nil {
		return nil, grpcError(err)
	}
	out := make([]*pb.Decision, len(ds))
	for i := range ds {
		out[i] = decisionToPB(ds[i])
	}
	return &pb.ListPendingDecisionsResponse{Decisions: out, TotalPending: total}, nil
}

// GetDecision implements pb.GovernanceServiceServer.
func (s *GRPCService) GetDecision(_ context.Context, req *pb.GetDecisionRequest) (*pb.GetDecisionResponse, error) {
	d, err := s.e.GetDecision(req.GetDecisionId())
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.GetDecisionResponse{Decision: decisionToPB(d)}, nil
}

// ApproveDecision implements pb.GovernanceServiceServer.
func (s *GRPCService) ApproveDecision(_ context.Context, req *pb.ApproveDecisionRequest) (*pb.ApproveDecisionResponse, error) {
	d, err := s.e.ApproveDecision(req.GetDecisionId(), req.GetSessionId(), req.GetComment())
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.ApproveDecisionResponse{Decision: decisionToPB(d)}, nil
}

// RejectDecision implements pb.GovernanceServiceServer.
func (s *GRPCService) RejectDecision(_ context.Context, req *pb.RejectDecisionRequest) (*pb.RejectDecisionResponse, error) {
	d, err := s.e.RejectDecision(req.GetDecisionId(), req.GetSessionId(), req.GetComment())
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.RejectDecisionResponse{Decision: decisionToPB(d)}, nil
}

// EscalateDecision implements pb.GovernanceServiceServer.
func (s *GRPCService) EscalateDecision(_ context.Context, req *pb.EscalateDecisionRequest) (*pb.EscalateDecisionResponse, error) {
	d, err := s.e.EscalateDecision(req.GetDecisionId(), req.GetSessionId(), req.GetComment())
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.EscalateDecisionResponse{Decision: decisionToPB(d)}, nil
}

// GetMetrics implements pb.GovernanceServiceServer.
func (s *GRPCService) GetMetrics(context.Context, *pb.GetMetricsRequest) (*pb.GetMetricsResponse, error) {
	m := s.e.GetMetrics()
	return &pb.GetMetricsResponse{Metrics: &pb.Metrics{
		SessionsCreated:    m.SessionsCreated,
		SessionsOpen:       m.SessionsOpen,
		DecisionsTotal:     m.DecisionsTotal,
		DecisionsPending:   m.DecisionsPending,
		DecisionsApproved:  m.DecisionsApproved,
		DecisionsRejected:  m.DecisionsRejected,
		DecisionsEscalated: m.DecisionsEscalated,
	}}, nil
}

// GetSessionStats implements pb.GovernanceServiceServer.
func (s *GRPCService) GetSessionStats(_ context.Context, req *pb.GetSessionStatsRequest) (*pb.GetSessionStatsResponse, error) {
	st, err := s.e.GetSessionStats(req.GetSessionId())
	if err != nil {
		return nil, grpcError(err)
	}
	return &pb.GetSessionStatsResponse{Stats: &pb.SessionStats{
		SessionId:     st.SessionID,
		Operator:      st.Operator,
		State:         sessionStateToPB(st.State),
		Approved:      st.Approved,
		Rejected:      st.Rejected,
		Escalated:     st.Escalated,
		TotalResolved: st.TotalResolved,
	}}, nil
}

// grpcError maps the engine's errors to status codes.
func grpcError(err error) error {
	code := codes.Internal
	switch {
	case errors.Is(err, ErrNotFound):
		code = codes.NotFound
	case errors.Is(err, ErrFailedPrecondition):
		code = codes.FailedPrecondition
	case errors.Is(err, ErrInvalidArgument):
		code = codes.InvalidArgument
	}
	return status.Error(code, err.Error())
}

func sessionToPB(s Session) *pb.Session {
	return &pb.Session{
		Id:            s.ID,
		Operator:      s.Operator,
		State:         sessionStateToPB(s.State),
		CreatedUnixMs: s.CreatedUnixMs,
		ClosedUnixMs:  s.ClosedUnixMs,
	}
}

func sessionStateToPB(st SessionState) pb.SessionState {
	switch st {
	case SessionOpen:
		return pb.SessionState_SESSION_STATE_OPEN
	case SessionClosed:
		return pb.SessionState_SESSION_STATE_CLOSED
	}
	return pb.SessionState_SESSION_STATE_UNSPECIFIED
}

func decisionToPB(d Decision) *pb.Decision {
	return &pb.Decision{
		Id:             d.ID,
		SessionId:      d.SessionID,
		Status:         DecisionStatusToPB(d.Status),
		Action:         d.Action,
		Target:         d.Target,
		RiskScore:      d.RiskScore,
		Comment:        d.Comment,
		CreatedUnixMs:  d.CreatedUnixMs,
		ResolvedUnixMs: d.ResolvedUnixMs,
	}
}

// DecisionStatusToPB maps a status to its protobuf enum value.
func DecisionStatusToPB(st DecisionStatus) pb.DecisionStatus {
	switch st {
	case StatusPending:
		return pb.DecisionStatus_DECISION_STATUS_PENDING
	case StatusApproved:
		return pb.DecisionStatus_DECISION_STATUS_APPROVED
	case StatusRejected:
		return pb.DecisionStatus_DECISION_STATUS_REJECTED
	case StatusEscalated:
		return pb.DecisionStatus_DECISION_STATUS_ESCALATED
	}
	return pb.DecisionStatus_DECISION_STATUS_UNSPECIFIED
}
