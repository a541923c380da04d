package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"benchbook/servers/governance"
	pb "benchbook/servers/governance/governancepb"
)

// freeAddr is a loopback address nothing listened on a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// healthOverHTTP is GET /health's answer, or an error while the server is not up yet.
func healthOverHTTP(ctx context.Context, addr string) (governance.HealthCheckResponse, error) {
	var health governance.HealthCheckResponse
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
	if err != nil {
		return health, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return health, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return health, fmt.Errorf("GET /health: status %d", res.StatusCode)
	}
	err = json.NewDecoder(res.Body).Decode(&health)
	return health, err
}

// healthOverGRPC is the HealthCheck call's answer, or an error while the server is not up.
func healthOverGRPC(ctx context.Context, addr string) (governance.HealthCheckResponse, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return governance.HealthCheckResponse{}, err
	}
	defer conn.Close()
	res, err := pb.NewGovernanceServiceClient(conn).HealthCheck(ctx, &pb.HealthCheckRequest{})
	if err != nil {
		return governance.HealthCheckResponse{}, err
	}
	return governance.HealthCheckResponse{Healthy: res.GetHealthy(), Status: res.GetStatus()}, nil
}

// TestRun starts each transport on a free port, asks it for its health over that
// transport, and stops it by ending its context.
func TestRun(t *testing.T) {
	tests := []struct {
		transport string
		health    func(context.Context, string) (governance.HealthCheckResponse, error)
	}{
		{"http", healthOverHTTP},
		{"grpc", healthOverGRPC},
	}
	for _, tt := range tests {
		t.Run(tt.transport, func(t *testing.T) {
			addr := freeAddr(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- run(ctx, tt.transport, addr) }()

			var health governance.HealthCheckResponse
			var err error
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
				select {
				case err := <-done:
					t.Fatalf("run(%s) returned before it was stopped: %v", tt.transport, err)
				default:
				}
				callCtx, callCancel := context.WithTimeout(ctx, time.Second)
				health, err = tt.health(callCtx, addr)
				callCancel()
				if err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err != nil || !health.Healthy || health.Status != "ok" {
				t.Fatalf("health check over %s on %s = %+v, %v; want healthy, status ok",
					tt.transport, addr, health, err)
			}

			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run(%s) after its context ended = %v, want nil", tt.transport, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("run(%s) still served 5 s after its context ended", tt.transport)
			}
		})
	}
}

func TestRunRefusesAnUnknownTransport(t *testing.T) {
	err := run(context.Background(), "quic", freeAddr(t))
	if err == nil || err.Error() != `-transport "quic": want http or grpc` {
		t.Errorf("run(quic) = %v, want the transport named as an error", err)
	}
}
