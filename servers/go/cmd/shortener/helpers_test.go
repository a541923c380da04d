package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startRedis runs a private redis-server on a free port for one test and
// returns its address. The tests need a real Redis: the two-step race only
// exists between separate round trips to a real server.
func startRedis(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is not on PATH; the redis tests need it (Debian: apt-get install redis-server): %v", err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})

	addr := fmt.Sprintf("127.0.0.1:%d", port)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	deadline := time.Now().Add(5 * time.Second)
	for rdb.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not answer PING within 5s; its output:\n%s", addr, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr
}

// freePort asks the kernel for a port nobody listens on. Another process could
// take it before redis-server binds it; startRedis then fails loudly.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newStore opens an empty store of the given kind ("bolt" or "redis").
func newStore(t *testing.T, kind string, scheme Scheme) Store {
	t.Helper()
	var (
		store Store
		err   error
	)
	switch kind {
	case "bolt":
		store, err = openBolt(filepath.Join(t.TempDir(), "urls.bolt"), scheme)
	case "redis":
		store, err = openRedis(context.Background(), startRedis(t), scheme)
	default:
		t.Fatalf("unknown store kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return store
}

// client talks to a test server over real HTTP and never follows redirects,
// so that 301s can be checked.
type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func newClient(t *testing.T, store Store) *client {
	t.Helper()
	srv := httptest.NewServer(newHandler(store))
	t.Cleanup(srv.Close)
	hc := srv.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &client{t: t, base: srv.URL, http: hc}
}

type reply struct {
	status   int
	header   http.Header
	body     []byte
	location string
}

// do sends one request; a non-empty body is sent as application/json.
func (c *client) do(method, path, body string) reply {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = bytes.NewBufferString(body)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return reply{res.StatusCode, res.Header, b, res.Header.Get("Location")}
}

func (c *client) stats() Stats {
	c.t.Helper()
	r := c.do(http.MethodGet, "/api/v1/stats", "")
	if r.status != http.StatusOK {
		c.t.Fatalf("GET /api/v1/stats: %d %s", r.status, r.body)
	}
	var st Stats
	if err := json.Unmarshal(r.body, &st); err != nil {
		c.t.Fatalf("GET /api/v1/stats: %v in %s", err, r.body)
	}
	return st
}
