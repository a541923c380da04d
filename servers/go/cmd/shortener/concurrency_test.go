package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// postConcurrently sends n POSTs, each with its own url, over `workers`
// concurrent connections, and returns for every id the urls it was given for.
func postConcurrently(t *testing.T, c *client, n, workers int) map[string][]string {
	t.Helper()
	var (
		mu    sync.Mutex
		byID  = map[string][]string{}
		wg    sync.WaitGroup
		jobs  = make(chan int)
		fails = make(chan string, n)
	)
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				url := fmt.Sprintf("https://example.com/%d", i)
				r := c.do("POST", "/api/v1/url/", `{"url": "`+url+`"}`)
				var rec urlRecord
				if r.status != http.StatusCreated || json.Unmarshal(r.body, &rec) != nil || rec.URL != url {
					fails <- fmt.Sprintf("POST %s: %d %s", url, r.status, r.body)
					continue
				}
				mu.Lock()
				byID[rec.ID] = append(byID[rec.ID], url)
				mu.Unlock()
			}
		})
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(fails)
	for f := range fails {
		t.Error(f)
	}
	if t.Failed() {
		t.FailNow()
	}
	return byID
}

// checkStored checks the properties every scheme keeps, lossy or not: the
// store holds exactly one url per distinct id answered, and each id resolves
// to one of the urls that were answered with it (the last SET wins).
func checkStored(t *testing.T, c *client, byID map[string][]string) {
	t.Helper()
	if st := c.stats(); st.URLs != int64(len(byID)) {
		t.Errorf("store holds %d urls, but %d distinct ids were answered", st.URLs, len(byID))
	}
	for id, urls := range byID {
		r := c.do("GET", "/api/v1/url/"+id, "")
		var rec urlRecord
		if r.status != http.StatusOK || json.Unmarshal(r.body, &rec) != nil {
			t.Fatalf("GET id %s: %d %s", id, r.status, r.body)
		}
		found := false
		for _, u := range urls {
			found = found || rec.URL == u
		}
		if !found {
			t.Errorf("id %s resolves to %q, which none of its POSTs %q sent", id, rec.URL, urls)
		}
	}
}

// TestConcurrentPostsLoseNothing: with atomic ids on either store, and with
// the two-step scheme on bolt (whose writer lock serialises the allocating
// transactions), n concurrent POSTs give n distinct ids and n stored urls,
// each resolving to its own url.
func TestConcurrentPostsLoseNothing(t *testing.T) {
	const n, workers = 300, 50
	tests := []struct {
		kind   string
		scheme Scheme
		writes int64 // write_transactions after n POSTs
	}{
		{"bolt", Atomic, n},
		{"bolt", TwoStep, 2 * n},
		{"redis", Atomic, 2 * n},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s", tt.kind, tt.scheme), func(t *testing.T) {
			c := newClient(t, newStore(t, tt.kind, tt.scheme))
			byID := postConcurrently(t, c, n, workers)
			if len(byID) != n {
				t.Errorf("%d POSTs got %d distinct ids", n, len(byID))
			}
			for id, urls := range byID {
				if len(urls) != 1 {
					t.Errorf("id %s was given to %d POSTs: %q", id, len(urls), urls)
				}
			}
			checkStored(t, c, byID)
			if st := c.stats(); st.WriteTransactions != tt.writes {
				t.Errorf("write_transactions = %d, want %d", st.WriteTransactions, tt.writes)
			}
		})
	}
}

// TestTwoStepRedisLosesURLs makes the article's race happen on purpose: both
// POSTs read the counter before either writes it back (a barrier in the
// store's test hook holds the first reader until the second has read). That
// interleaving is what concurrent load produces by chance; forcing it makes
// the loss certain, so the test cannot flake.
func TestTwoStepRedisLosesURLs(t *testing.T) {
	store := newStore(t, "redis", TwoStep).(*redisStore)
	var read sync.WaitGroup
	read.Add(2)
	bothRead := make(chan struct{})
	go func() { read.Wait(); close(bothRead) }()
	store.afterRead = func() {
		read.Done()
		select {
		case <-bothRead:
		case <-time.After(10 * time.Second):
			t.Error("the second POST never read the counter")
		}
	}

	urls := []string{"https://example.com/first", "https://example.com/second"}
	ids := make([]string, len(urls))
	var wg sync.WaitGroup
	for i, url := range urls {
		wg.Go(func() {
			var err error
			if ids[i], err = store.Add(context.Background(), url); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	store.afterRead = nil
	if t.Failed() {
		t.FailNow()
	}

	if ids[0] != "aaaa" || ids[1] != "aaaa" {
		t.Errorf("ids = %q, want both POSTs to be answered with aaaa", ids)
	}
	st, err := store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.URLs != 1 {
		t.Errorf("store holds %d urls after two answered POSTs, want 1 (one lost)", st.URLs)
	}
	got, err := store.Get(context.Background(), "aaaa")
	if err != nil || (got != urls[0] && got != urls[1]) {
		t.Errorf("aaaa resolves to %q, %v; want one of %q", got, err, urls)
	}
	// The counter was written back twice with the same value: the next POST
	// reuses nothing and gets aaab.
	if id, err := store.Add(context.Background(), "https://example.com/third"); err != nil || id != "aaab" {
		t.Errorf("next POST got %q, %v; want aaab", id, err)
	}
}

// TestTwoStepRedisUnderLoad runs the two-step scheme free, as a benchmark
// would. How many urls it loses depends on scheduling (see the report), so it
// asserts only what always holds, logs the loss, and leaves proving that loss
// happens to TestTwoStepRedisLosesURLs.
func TestTwoStepRedisUnderLoad(t *testing.T) {
	const n, workers = 500, 50
	c := newClient(t, newStore(t, "redis", TwoStep))
	byID := postConcurrently(t, c, n, workers)
	checkStored(t, c, byID)
	if st := c.stats(); st.WriteTransactions != 2*n {
		t.Errorf("write_transactions = %d, want %d (two SETs per POST)", st.WriteTransactions, 2*n)
	}
	t.Logf("two-step on redis: %d POSTs answered 201, %d distinct ids stored, %d urls lost",
		n, len(byID), n-len(byID))
}
