package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"benchbook/servers/governance"
)

// These tests run the benchmarks' clients and ops against in-process Go backends, so
// `go test ./...` checks that every benchmark iteration would be a real success, and
// that a 404 backend makes every op fail (which BenchmarkOps turns into b.Fatal).

// goBackends starts the Go HTTP and gRPC backends on loopback ports.
func goBackends(t *testing.T) map[string]string {
	t.Helper()
	h := httptest.NewServer(governance.NewHTTPHandler(governance.NewEngine()))
	t.Cleanup(h.Close)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := governance.NewGRPCServer(governance.NewEngine())
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)

	return map[string]string{"http": h.URL, "grpc": ln.Addr().String()}
}

func TestEveryOpSucceedsRepeatedly(t *testing.T) {
	addrs := goBackends(t)
	ctx := context.Background()
	const n = 5
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			c, err := tr.dial(addrs[tr.name])
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, o := range ops {
				t.Run(o.name, func(t *testing.T) {
					// Twice, as a benchmark's calibration rounds call it again.
					for round := range 2 {
						var f fixture
						if o.fixture {
							var err error
							if f, err = newFixture(ctx, c); err != nil {
								t.Fatal(err)
							}
						}
						call, err := o.prepare(ctx, n, c, f)
						if err != nil {
							t.Fatal(err)
						}
						for i := range n {
							if err := call(i); err != nil {
								t.Fatalf("round %d iteration %d: %v", round, i, err)
							}
						}
					}
				})
			}
		})
	}
}

func TestFirstCallDialsAFreshClient(t *testing.T) {
	addrs := goBackends(t)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			for range 3 {
				c, err := tr.dial(addrs[tr.name])
				if err != nil {
					t.Fatal(err)
				}
				if err := c.HealthCheck(context.Background()); err != nil {
					t.Fatal(err)
				}
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestEveryHTTPOpFailsAgainstANotFoundBackend(t *testing.T) {
	nf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
	}))
	defer nf.Close()
	c := newHTTPClient(strings.TrimPrefix(nf.URL, "http://"))
	defer c.Close()
	ctx := context.Background()
	if _, err := newFixture(ctx, c); err == nil {
		t.Fatal("newFixture succeeded against a 404 backend")
	}
	// A fixture as if setup had worked: the ops themselves must still fail.
	f := fixture{session: "ses-000001", decisions: []string{"dec-1", "dec-2", "dec-3", "dec-4"}}
	for _, o := range ops {
		call, err := o.prepare(ctx, 1, c, f)
		if err != nil {
			continue // CloseSession's preparation already failed: also an error
		}
		if err := call(0); err == nil || !strings.Contains(err.Error(), "status 404") {
			t.Errorf("%s against a 404 backend: err = %v, want a status 404 error", o.name, err)
		}
	}
}

func TestWrongAnswersAreErrors(t *testing.T) {
	// A backend that answers 200 with the wrong content.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/health":
			_, _ = w.Write([]byte(`{"healthy":false,"status":"degraded"}`))
		case strings.HasPrefix(r.URL.Path, "/decisions/"):
			_, _ = w.Write([]byte(`{"decision":{"id":"dec-other","status":"rejected"}}`))
		default:
			_, _ = w.Write([]byte(`not json`))
		}
	}))
	defer bad.Close()
	c := newHTTPClient(bad.URL)
	defer c.Close()
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
	}{
		{"unhealthy", func() error { return c.HealthCheck(ctx) }},
		{"another decision", func() error { return c.GetDecision(ctx, "dec-1") }},
		{"approve answered rejected", func() error { return c.ApproveDecision(ctx, "dec-other", "s", "") }},
		{"not JSON", func() error { return c.GetMetrics(ctx) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestConnectionReuse(t *testing.T) {
	// httpClient reuses one connection; the article's HealthCheck, leaving the body
	// unread, makes net/http dial a new connection for every call.
	tests := []struct {
		name      string
		client    func(addr string) client
		wantConns int64
	}{
		{"httpClient", func(addr string) client { return newHTTPClient(addr) }, 1},
		{"articleHTTPClient", func(addr string) client { return articleHTTPClient{newHTTPClient(addr)} }, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var conns atomic.Int64
			srv := httptest.NewUnstartedServer(governance.NewHTTPHandler(governance.NewEngine()))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			c := tt.client(srv.URL)
			defer c.Close()
			for range 5 {
				if err := c.HealthCheck(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if got := conns.Load(); got != tt.wantConns {
				t.Errorf("5 calls opened %d connections, want %d", got, tt.wantConns)
			}
		})
	}
}
