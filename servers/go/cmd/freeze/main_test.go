package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func TestRemaining(t *testing.T) {
	const ms = time.Millisecond
	epoch := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f, err := newFreezer(200*ms, time.Second, epoch)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		at   time.Duration // since epoch
		want time.Duration
	}{
		{"start of the free part", 0, 0},
		{"end of the free part", 799 * ms, 0},
		{"pause starts", 800 * ms, 200 * ms},
		{"mid pause", 900 * ms, 100 * ms},
		{"pause about to end", 999 * ms, ms},
		{"next period", time.Second, 0},
		{"pause of a later period", 5*time.Second + 850*ms, 150 * ms},
		{"before epoch, in a pause", -100 * ms, 100 * ms},
		{"before epoch, free", -300 * ms, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := f.remaining(epoch.Add(tt.at)); got != tt.want {
				t.Errorf("remaining(epoch%+v) = %v, want %v", tt.at, got, tt.want)
			}
		})
	}
}

func TestNewFreezerRejects(t *testing.T) {
	tests := []struct {
		name          string
		pause, period time.Duration
	}{
		{"zero period", 0, 0},
		{"negative period", 0, -time.Second},
		{"negative pause", -time.Millisecond, time.Second},
		{"pause as long as the period", time.Second, time.Second},
		{"pause longer than the period", 2 * time.Second, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := newFreezer(tt.pause, tt.period, time.Now()); err == nil {
				t.Errorf("newFreezer(%v, %v) accepted", tt.pause, tt.period)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	f, err := newFreezer(0, time.Second, time.Now()) // never pauses
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, path string
		status             int
	}{
		{"root", http.MethodGet, "/", http.StatusOK},
		{"other path", http.MethodGet, "/x", http.StatusNotFound},
		{"other method", http.MethodPost, "/", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			routes(f).ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			res := rec.Result()
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.status)
			}
			if tt.status != http.StatusOK {
				return
			}
			body, _ := io.ReadAll(res.Body)
			if string(body) != "ok" {
				t.Errorf("body %q, want \"ok\"", body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

// TestStall sends real requests at chosen points of the cycle (pause 100ms every
// 300ms: free for 200ms, then frozen for 100ms) and checks that a request started
// in a pause waits until the pause ends, however many are waiting, and that one
// started outside is answered at once.
func TestStall(t *testing.T) {
	const (
		ms     = time.Millisecond
		pause  = 100 * ms
		period = 300 * ms
		slack  = 40 * ms // scheduling noise allowed on a busy 2-core host
	)
	f, err := newFreezer(pause, period, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(routes(f))
	defer srv.Close()

	tests := []struct {
		name     string
		offset   time.Duration // into the period when the requests start
		parallel int
		wait     time.Duration // expected wait, ignoring noise
	}{
		{"free part", 50 * ms, 1, 0},
		{"free part, many requests", 100 * ms, 8, 0},
		{"pause just started", 210 * ms, 1, 90 * ms},
		{"pause nearly over", 280 * ms, 1, 20 * ms},
		{"many requests in one pause", 230 * ms, 8, 70 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, floor := sleepTo(t, f, tt.offset, tt.wait)
			elapsed := make([]time.Duration, tt.parallel)
			var wg sync.WaitGroup
			for i := range tt.parallel {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := srv.Client().Get(srv.URL + "/")
					if err != nil {
						t.Error(err)
						return
					}
					body, _ := io.ReadAll(res.Body)
					res.Body.Close()
					elapsed[i] = time.Since(start)
					if res.StatusCode != http.StatusOK || string(body) != "ok" {
						t.Errorf("got %d %q, want 200 \"ok\"", res.StatusCode, body)
					}
				}()
			}
			wg.Wait()
			for i, e := range elapsed {
				if e < floor {
					t.Errorf("request %d answered after %v, before the pause ended (%v)", i, e, floor)
				}
				if e > floor+slack {
					t.Errorf("request %d answered after %v, want about %v", i, e, floor)
				}
			}
		})
	}
}

// sleepTo sleeps to offset into a period of f and returns the time it woke and
// the wait left in the pause then (a lower bound on any reply's latency). A busy
// host may wake it late, at a point of the cycle with another wait: it then
// tries again in the next period, a few times.
func sleepTo(t *testing.T, f *freezer, offset, wait time.Duration) (time.Time, time.Duration) {
	t.Helper()
	const tolerance = 10 * time.Millisecond
	for range 5 {
		off := time.Since(f.epoch) % f.period
		time.Sleep((f.period - off + offset) % f.period)
		now := time.Now()
		got := f.remaining(now)
		if d := got - wait; -tolerance <= d && d <= tolerance {
			return now, got
		}
		t.Logf("woke with %v left in the pause, want %v: trying again", got, wait)
	}
	t.Fatalf("could not wake %v into the period: host too busy", offset)
	return time.Time{}, 0
}
