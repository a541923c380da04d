// Package bench holds seed 001's Go client benchmarks: the governance API over HTTP/JSON
// (net/http) and over gRPC (grpc-go), against any backend that serves it. It has no
// non-test code.
//
// The servers' addresses come from the environment; a transport whose variable is
// unset is skipped:
//
//	GOVERNANCE_HTTP_ADDR=127.0.0.1:8000 GOVERNANCE_GRPC_ADDR=127.0.0.1:50051 \
//	    go test -run '^$' -bench . -benchmem ./governance/bench/
//
// Benchmarks (each op is one sub-benchmark per transport, http and grpc):
//
//	BenchmarkOps/<transport>/<Op>            one client, one connection, calls in a loop;
//	                                         any error or wrong answer is b.Fatal
//	BenchmarkParallelHealth/<transport>/p<N> HealthCheck under RunParallel with
//	                                         SetParallelism(N): N×GOMAXPROCS goroutines
//	BenchmarkFirstCall/<transport>           a new client and connection per iteration:
//	                                         dial + first HealthCheck + close
//	BenchmarkArticleStyle/<transport>/<Op>   the article's loop: errors only logged, so
//	                                         failures are timed as results; its HTTP
//	                                         HealthCheck leaves the body unread, as the
//	                                         article's client did. Runs only with
//	                                         GOVERNANCE_ARTICLE_STYLE=1.
//
// State-changing operations stay valid in any loop: each benchmark opens its own
// session and takes fresh pending decisions; approving (rejecting, escalating) the same
// decision again succeeds without changing it, as the backends document; CloseSession
// closes a new session per iteration (opened before the timer starts).
package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

const (
	envHTTP    = "GOVERNANCE_HTTP_ADDR"
	envGRPC    = "GOVERNANCE_GRPC_ADDR"
	envArticle = "GOVERNANCE_ARTICLE_STYLE"

	operator  = "bench-operator"
	listLimit = 10 // the article's ListPendingDecisions limit
)

// transport names a transport, the variable holding its address and how to connect.
type transport struct {
	name string
	env  string
	dial func(addr string) (client, error)
}

var transports = []transport{
	{"http", envHTTP, func(addr string) (client, error) { return newHTTPClient(addr), nil }},
	{"grpc", envGRPC, func(addr string) (client, error) { return newGRPCClient(addr) }},
}

// articleTransports are the transports as the article's clients used them: the same,
// except that its HTTP HealthCheck never read the response body (articleHTTPClient).
var articleTransports = []transport{
	{"http", envHTTP, func(addr string) (client, error) { return articleHTTPClient{newHTTPClient(addr)}, nil }},
	transports[1],
}

// connect returns a client for t, skipping the benchmark if t's address is unset.
func connect(b *testing.B, t transport) (client, string) {
	b.Helper()
	addr := os.Getenv(t.env)
	if addr == "" {
		b.Skipf("%s is not set: no %s backend to measure", t.env, t.name)
	}
	c, err := t.dial(addr)
	if err != nil {
		b.Fatalf("connecting to %s: %v", addr, err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c, addr
}

// fixture is what an op's loop works on: an open session and fresh pending decisions.
type fixture struct {
	session   string
	decisions []string // listLimit pending decisions, oldest first
}

func newFixture(ctx context.Context, c client) (fixture, error) {
	s, err := c.CreateSession(ctx, operator)
	if err != nil {
		return fixture{}, fmt.Errorf("creating the benchmark's session: %w", err)
	}
	ids, err := c.ListPendingDecisions(ctx, s, listLimit)
	if err != nil {
		return fixture{}, fmt.Errorf("listing pending decisions: %w", err)
	}
	if len(ids) < 4 {
		return fixture{}, fmt.Errorf("only %d pending decisions, need 4", len(ids))
	}
	return fixture{session: s, decisions: ids}, nil
}

// op is one operation: prepare runs before the timer, for n iterations (b.N), and
// returns the call to make in iteration i.
type op struct {
	name    string
	fixture bool // needs a session and pending decisions (created before the timer)
	prepare func(ctx context.Context, n int, c client, f fixture) (call func(i int) error, err error)
}

// each wraps a per-iteration call that needs no preparation beyond the fixture.
func each(call func(ctx context.Context, c client, f fixture) error) func(context.Context, int, client, fixture) (func(int) error, error) {
	return func(ctx context.Context, _ int, c client, f fixture) (func(int) error, error) {
		return func(int) error { return call(ctx, c, f) }, nil
	}
}

var ops = []op{
	{"HealthCheck", false, each(func(ctx context.Context, c client, _ fixture) error {
		return c.HealthCheck(ctx)
	})},
	{"CreateSession", false, each(func(ctx context.Context, c client, _ fixture) error {
		_, err := c.CreateSession(ctx, operator)
		return err
	})},
	{"ListPendingDecisions", true, each(func(ctx context.Context, c client, f fixture) error {
		ids, err := c.ListPendingDecisions(ctx, f.session, listLimit)
		if err == nil && len(ids) != listLimit {
			err = fmt.Errorf("ListPendingDecisions: %d decisions, want %d", len(ids), listLimit)
		}
		return err
	})},
	{"GetDecision", true, each(func(ctx context.Context, c client, f fixture) error {
		return c.GetDecision(ctx, f.decisions[0])
	})},
	{"ApproveDecision", true, each(func(ctx context.Context, c client, f fixture) error {
		return c.ApproveDecision(ctx, f.decisions[1], f.session, "benchmark approval")
	})},
	{"RejectDecision", true, each(func(ctx context.Context, c client, f fixture) error {
		return c.RejectDecision(ctx, f.decisions[2], f.session, "benchmark rejection")
	})},
	{"EscalateDecision", true, each(func(ctx context.Context, c client, f fixture) error {
		return c.EscalateDecision(ctx, f.decisions[3], f.session, "benchmark escalation")
	})},
	// GetMetrics needs no session, but the article opened one first, so this does too.
	{"GetMetrics", true, each(func(ctx context.Context, c client, _ fixture) error {
		return c.GetMetrics(ctx)
	})},
	{"GetSessionStats", true, each(func(ctx context.Context, c client, f fixture) error {
		return c.GetSessionStats(ctx, f.session)
	})},
	{"CloseSession", false, func(ctx context.Context, n int, c client, _ fixture) (func(int) error, error) {
		// One fresh session per iteration, opened before the timer starts.
		ids := make([]string, n)
		for i := range ids {
			s, err := c.CreateSession(ctx, operator)
			if err != nil {
				return nil, err
			}
			ids[i] = s
		}
		return func(i int) error { return c.CloseSession(ctx, ids[i]) }, nil
	}},
}

// BenchmarkOps times every operation on each transport; anything unexpected is fatal.
func BenchmarkOps(b *testing.B) {
	for _, t := range transports {
		b.Run(t.name, func(b *testing.B) {
			for _, o := range ops {
				b.Run(o.name, func(b *testing.B) {
					c, _ := connect(b, t)
					ctx := context.Background()
					var f fixture
					if o.fixture {
						var err error
						if f, err = newFixture(ctx, c); err != nil {
							b.Fatal(err)
						}
					}
					call, err := o.prepare(ctx, b.N, c, f)
					if err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					for i := range b.N {
						if err := call(i); err != nil {
							b.Fatalf("%s iteration %d: %v", o.name, i, err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkParallelHealth runs HealthCheck from N×GOMAXPROCS goroutines sharing one
// client (one http.Client with its pool; one gRPC connection, multiplexed).
func BenchmarkParallelHealth(b *testing.B) {
	for _, t := range transports {
		b.Run(t.name, func(b *testing.B) {
			for _, p := range []int{1, 4, 16} {
				b.Run(fmt.Sprintf("p%d", p), func(b *testing.B) {
					c, _ := connect(b, t)
					ctx := context.Background()
					if err := c.HealthCheck(ctx); err != nil { // connect before timing
						b.Fatal(err)
					}
					var failed atomic.Bool
					var once sync.Once
					b.SetParallelism(p)
					b.ResetTimer()
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if failed.Load() {
								return
							}
							if err := c.HealthCheck(ctx); err != nil {
								// b.Fatal may not be called from these goroutines: fail once, stop all.
								once.Do(func() { b.Errorf("HealthCheck: %v", err) })
								failed.Store(true)
								return
							}
						}
					})
				})
			}
		})
	}
}

// BenchmarkFirstCall times what the article guessed at ("first connection ~50-100 ms"):
// a new client, its TCP connection (and for gRPC the HTTP/2 handshake), the first
// HealthCheck, and closing it, per iteration.
func BenchmarkFirstCall(b *testing.B) {
	for _, t := range transports {
		b.Run(t.name, func(b *testing.B) {
			addr := os.Getenv(t.env)
			if addr == "" {
				b.Skipf("%s is not set: no %s backend to measure", t.env, t.name)
			}
			ctx := context.Background()
			for i := range b.N {
				c, err := t.dial(addr)
				if err != nil {
					b.Fatalf("iteration %d: %v", i, err)
				}
				if err := c.HealthCheck(ctx); err != nil {
					b.Fatalf("iteration %d: %v", i, err)
				}
				if err := c.Close(); err != nil {
					b.Fatalf("iteration %d: %v", i, err)
				}
			}
		})
	}
}

// articleLogLimit is how many failures an article-style loop logs; the rest are only
// counted (as errors/op), so a long run does not print one line per iteration.
const articleLogLimit = 3

// BenchmarkArticleStyle is the article's loop, kept to reproduce its numbers: a setup
// failure skips the benchmark (the article's "HTTP não testado"), and errors inside the
// loop are logged, never fatal, so a backend answering 404 is timed as if it had
// answered. errors/op reports how many iterations failed. Its HTTP HealthCheck leaves
// the body unread, as the article's client did (see articleHTTPClient). It runs only
// with GOVERNANCE_ARTICLE_STYLE=1, so an ordinary run never times failures.
func BenchmarkArticleStyle(b *testing.B) {
	if os.Getenv(envArticle) != "1" {
		b.Skipf("set %s=1 to run the article's error-swallowing loop", envArticle)
	}
	for _, t := range articleTransports {
		b.Run(t.name, func(b *testing.B) {
			for _, o := range ops {
				b.Run(o.name, func(b *testing.B) {
					c, _ := connect(b, t)
					ctx := context.Background()
					var f fixture
					if o.fixture {
						var err error
						if f, err = newFixture(ctx, c); err != nil {
							b.Skipf("setup failed, skipped as the article did: %v", err)
						}
					}
					call, err := o.prepare(ctx, b.N, c, f)
					if err != nil {
						b.Skipf("setup failed, skipped as the article did: %v", err)
					}
					errs := 0
					b.ResetTimer()
					for i := range b.N {
						if err := call(i); err != nil {
							errs++
							if errs <= articleLogLimit {
								b.Logf("%s failed: %v", o.name, err)
							}
						}
					}
					b.StopTimer()
					b.ReportMetric(float64(errs)/float64(b.N), "errors/op")
				})
			}
		})
	}
}
