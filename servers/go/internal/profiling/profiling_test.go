package profiling

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:6060", true},
		{"127.0.0.1:0", true},
		{"[::1]:6060", true},
		{"localhost:6060", true},
		{"0.0.0.0:6060", false},
		{":6060", false},
		{"192.168.1.2:6060", false},
		{"example.com:6060", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := checkLoopback(tt.addr)
			if (err == nil) != tt.ok {
				t.Errorf("checkLoopback(%q) = %v, want ok=%v", tt.addr, err, tt.ok)
			}
		})
	}
}

func TestServeEmptyIsOff(t *testing.T) {
	if err := Serve(""); err != nil {
		t.Fatalf("Serve(\"\") = %v, want nil", err)
	}
}

func TestServeRefusesOtherHosts(t *testing.T) {
	if err := Serve("0.0.0.0:0"); err == nil {
		t.Fatal("Serve(0.0.0.0:0) served; want an error")
	}
}

func TestHandlerServesTheIndex(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Fatalf("GET /debug/pprof/: %d, %d bytes", resp.StatusCode, len(body))
	}
}
