package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestAPI walks every endpoint and status of the OpenAPI document, in order
// (each step sees the state the earlier ones left), on every store and scheme.
func TestAPI(t *testing.T) {
	configs := []struct {
		kind   string
		scheme Scheme
		// writes is write_transactions after the two successful POSTs below.
		writes int64
	}{
		{"bolt", Atomic, 2},  // one Update per POST
		{"bolt", TwoStep, 4}, // allocate, then store: two Updates per POST
		{"redis", Atomic, 4}, // INCR, SET
		{"redis", TwoStep, 4},
	}
	const (
		url1 = "https://zakovinko.com/foo/bar" // the article's wrk_post.lua body
		url2 = "http://example.com/?q=a&b=<c>"
	)
	steps := []struct {
		name, method, path, body string
		status                   int
		want                     any    // decoded JSON body to expect, if not nil
		location                 string // Location header to expect on a 301
	}{
		{"first POST gets aaaa", "POST", "/api/v1/url/", `{"url": "` + url1 + `"}`,
			201, map[string]any{"id": "aaaa", "url": url1}, ""},
		{"second POST gets aaab", "POST", "/api/v1/url/", `{"url": "http://example.com/?q=a&b=<c>", "extra": 1}`,
			201, map[string]any{"id": "aaab", "url": url2}, ""},
		{"invalid JSON", "POST", "/api/v1/url/", `{"url": `, 400, nil, ""},
		{"not an object", "POST", "/api/v1/url/", `["http://example.com/"]`, 400, nil, ""},
		{"null body", "POST", "/api/v1/url/", `null`, 400, nil, ""},
		{"no body", "POST", "/api/v1/url/", ``, 400, nil, ""},
		{"missing url", "POST", "/api/v1/url/", `{"link": "http://example.com/"}`, 400, nil, ""},
		{"url key is case-sensitive", "POST", "/api/v1/url/", `{"URL": "http://example.com/"}`, 400, nil, ""},
		{"empty url", "POST", "/api/v1/url/", `{"url": ""}`, 400, nil, ""},
		{"null url", "POST", "/api/v1/url/", `{"url": null}`, 400, nil, ""},
		{"url not a string", "POST", "/api/v1/url/", `{"url": 42}`, 400, nil, ""},
		{"url with a newline", "POST", "/api/v1/url/", `{"url": "http://a/\r\nSet-Cookie: x=1"}`, 400, nil, ""},
		{"retrieve aaaa", "GET", "/api/v1/url/aaaa", "", 200, map[string]any{"id": "aaaa", "url": url1}, ""},
		{"retrieve aaab", "GET", "/api/v1/url/aaab", "", 200, map[string]any{"id": "aaab", "url": url2}, ""},
		{"retrieve unknown id", "GET", "/api/v1/url/aaac", "", 404, map[string]any{"error": "no url with this id"}, ""},
		{"redirect aaaa", "GET", "/aaaa", "", 301, nil, url1},
		{"redirect aaab", "GET", "/aaab", "", 301, nil, url2},
		{"redirect unknown id", "GET", "/zzzz", "", 404, map[string]any{"error": "no url with this id"}, ""},
		{"rejected POSTs stored nothing", "GET", "/api/v1/stats", "", 200, nil, ""}, // checked below
	}

	for _, cfg := range configs {
		t.Run(fmt.Sprintf("%s/%s", cfg.kind, cfg.scheme), func(t *testing.T) {
			c := newClient(t, newStore(t, cfg.kind, cfg.scheme))
			if st := c.stats(); st != (Stats{}) {
				t.Fatalf("empty store: stats = %+v, want zeros", st)
			}
			for _, s := range steps {
				r := c.do(s.method, s.path, s.body)
				if r.status != s.status {
					t.Fatalf("%s: %s %s = %d %s, want %d", s.name, s.method, s.path, r.status, r.body, s.status)
				}
				if s.status == http.StatusMovedPermanently {
					if r.location != s.location {
						t.Errorf("%s: Location = %q, want %q", s.name, r.location, s.location)
					}
					continue
				}
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("%s: Content-Type = %q, want application/json", s.name, ct)
				}
				var got map[string]any
				if err := json.Unmarshal(r.body, &got); err != nil {
					t.Fatalf("%s: body %q is not JSON: %v", s.name, r.body, err)
				}
				if s.status == http.StatusBadRequest {
					if msg, _ := got["error"].(string); msg == "" {
						t.Errorf("%s: 400 body %s has no error message", s.name, r.body)
					}
				}
				if s.want != nil && !reflect.DeepEqual(got, s.want) {
					t.Errorf("%s: body = %v, want %v", s.name, got, s.want)
				}
			}
			if st, want := c.stats(), (Stats{URLs: 2, WriteTransactions: cfg.writes}); st != want {
				t.Errorf("stats = %+v, want %+v", st, want)
			}
		})
	}
}

// TestRouting checks what the patterns must not match.
func TestRouting(t *testing.T) {
	c := newClient(t, newStore(t, "bolt", Atomic))
	tests := []struct {
		method, path string
		status       int
	}{
		{"POST", "/api/v1/url", 307},        // ServeMux redirects to the slash, keeping POST
		{"POST", "/api/v1/url/aaaa", 405},   // GET only
		{"DELETE", "/api/v1/url/aaaa", 405}, // GET only
		{"GET", "/api/v1/url/", 405},        // POST only
		{"GET", "/", 404},
		{"GET", "/aaaa/more", 404},
		{"HEAD", "/api/v1/stats", 200},
	}
	for _, tt := range tests {
		if r := c.do(tt.method, tt.path, ""); r.status != tt.status {
			t.Errorf("%s %s = %d, want %d", tt.method, tt.path, r.status, tt.status)
		}
	}
}

func TestPostBodyTooLarge(t *testing.T) {
	c := newClient(t, newStore(t, "bolt", Atomic))
	body := `{"url": "http://example.com/` + strings.Repeat("a", maxBodyBytes) + `"}`
	if r := c.do("POST", "/api/v1/url/", body); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("POST of %d bytes = %d, want 413", len(body), r.status)
	}
}

func TestParseScheme(t *testing.T) {
	tests := []struct {
		in      string
		want    Scheme
		wantErr bool
	}{
		{"atomic", Atomic, false},
		{"two-step", TwoStep, false},
		{"twostep", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		got, err := ParseScheme(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseScheme(%q) = %q, %v", tt.in, got, err)
		}
	}
}
