package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHello(t *testing.T) {
	tests := []struct {
		name, method, path string
	}{
		{"root", http.MethodGet, "/"},
		{"any path, as in the article", http.MethodGet, "/anything"},
		{"any method", http.MethodPost, "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			hello(rec, httptest.NewRequest(tt.method, tt.path, nil))

			res := rec.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK || string(body) != "Go-Server" {
				t.Fatalf("got %d %q, want 200 \"Go-Server\"", res.StatusCode, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}
