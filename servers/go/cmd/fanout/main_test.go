package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

func TestBothPathsGiveTheSameAnswerForEveryID(t *testing.T) {
	h := newRouter(1)
	for i, person := range people {
		id := person[0]
		want := fmt.Sprintf("Olá %s, seu total de pedidos é de %s\n", person[1], orders[i][1])
		for _, work := range []string{"", "?work=1", "?work=50"} {
			for _, prefix := range []string{"/sc/", "/cc/"} {
				code, body := get(t, h, prefix+id+work)
				if code != http.StatusOK || body != want {
					t.Errorf("GET %s%s%s = %d %q, want 200 %q", prefix, id, work, code, body, want)
				}
			}
		}
	}
}

func TestRequestsOutsideTheData(t *testing.T) {
	tests := []struct {
		path string
		code int
	}{
		{"/sc/42", http.StatusNotFound},
		{"/cc/42", http.StatusNotFound},
		{"/cc/", http.StatusNotFound},
		{"/xx/9", http.StatusNotFound},
		{"/cc/9?work=0", http.StatusBadRequest},
		{"/sc/9?work=many", http.StatusBadRequest},
	}
	h := newRouter(1)
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if code, body := get(t, h, tt.path); code != tt.code {
				t.Errorf("GET %s = %d %q, want %d", tt.path, code, body, tt.code)
			}
		})
	}
}

func TestLookupScansWithoutBreaking(t *testing.T) {
	// Duplicate ids: the article's loop has no break, so the last match wins.
	table := [][]string{{"1", "first"}, {"1", "last"}}
	if got := lookup(table, "1", 3); got != "last" {
		t.Errorf("lookup = %q, want the last match", got)
	}
	if got := lookup(table, "2", 1); got != "" {
		t.Errorf("lookup of a missing id = %q, want empty", got)
	}
}

func BenchmarkLookups(b *testing.B) {
	for _, work := range []int{1, 100, 10000} {
		for _, path := range []string{"/sc/9", "/cc/9"} {
			b.Run(fmt.Sprintf("%s/work=%d", path[1:3], work), func(b *testing.B) {
				h := newRouter(work)
				req := httptest.NewRequest(http.MethodGet, path, nil)
				for b.Loop() {
					h.ServeHTTP(httptest.NewRecorder(), req)
				}
			})
		}
	}
}
