package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestIODelayHandler(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
	}{
		{"no delay", 0},
		{"article delay", time.Millisecond},
		{"long delay", 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			start := time.Now()
			ioDelayHandler(tt.delay).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			elapsed := time.Since(start)

			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK || string(body) != "ok" {
				t.Fatalf("got %d %q, want 200 \"ok\"", res.StatusCode, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			if elapsed < tt.delay {
				t.Errorf("answered after %s, before the %s delay", elapsed, tt.delay)
			}
		})
	}
}
