// Command freeze is a server that stalls on a schedule, built to teach coordinated
// omission.
//
// It answers GET / with "ok" at once, except that every -period it stops the world
// for -pause (by default 200ms every 1s, the last 200ms of each second after it
// starts): a request that arrives or is in progress during a pause waits until the
// pause ends, as behind a stop-the-world GC pause or a blocking flush.
//
// Loaded open-loop at a constant rate (requests sent on schedule, whatever the
// replies do), a fraction pause/period of the requests land in a pause and wait
// up to pause, so the tail percentiles show the stall: with the defaults the
// true p90 is about 100ms and p99 about 190ms. A closed-loop tool (wrk, Locust)
// waits for each reply before sending the next request on that connection, so
// during a pause it sends only one request per connection; the stall is then
// counted once per connection instead of once per request that should have been
// sent, and its raw percentiles stay near the fast path (coordinated omission).
// wrk 4 back-fills synthetic samples after the run to make up for it, which gets
// the tail roughly right; Locust does not.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"time"

	"benchbook/servers/internal/profiling"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (host:port)")
	pprofAddr := flag.String("pprof", "", profiling.Flag)
	pause := flag.Duration("pause", 200*time.Millisecond, "length of each stop-the-world pause")
	period := flag.Duration("period", time.Second, "time from the start of one pause to the start of the next")
	flag.Parse()
	if err := profiling.Serve(*pprofAddr); err != nil {
		log.Fatal(err)
	}

	f, err := newFreezer(*pause, *period, time.Now())
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("freeze listening on %s (pause %s every %s)", *addr, *pause, *period)
	log.Fatal(http.ListenAndServe(*addr, routes(f)))
}

// routes serves f at GET / only; other paths get 404 and other methods 405.
func routes(f *freezer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", f)
	return mux
}

// A freezer is an http.Handler that answers "ok", except during its pauses: the
// last pause of every period, counted from epoch, in which it holds every request
// until the pause ends.
type freezer struct {
	pause, period time.Duration
	epoch         time.Time
}

// newFreezer returns a freezer whose first pause starts at epoch+period-pause.
// A zero pause never freezes; the pause must be shorter than the period, or the
// server would never answer.
func newFreezer(pause, period time.Duration, epoch time.Time) (*freezer, error) {
	if period <= 0 {
		return nil, fmt.Errorf("period %s: must be positive", period)
	}
	if pause < 0 || pause >= period {
		return nil, fmt.Errorf("pause %s: must be at least 0 and shorter than the period %s", pause, period)
	}
	return &freezer{pause: pause, period: period, epoch: epoch}, nil
}

// remaining reports how long a request at time t must wait for the current pause
// to end: 0 outside the pauses.
func (f *freezer) remaining(t time.Time) time.Duration {
	off := t.Sub(f.epoch) % f.period
	if off < 0 { // t before epoch: the schedule extends backwards
		off += f.period
	}
	if off < f.period-f.pause {
		return 0
	}
	return f.period - off
}

// ServeHTTP holds the request while the world is stopped, then answers "ok". A
// client that gives up during a pause releases its handler at once.
func (f *freezer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d := f.remaining(time.Now()); d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok"))
}
