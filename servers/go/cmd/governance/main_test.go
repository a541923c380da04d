package main

import (
	"context"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	tests := []struct {
		transport string
		wantErr   bool
	}{
		{"http", false},
		{"grpc", false},
		{"quic", true},
	}
	for _, tt := range tests {
		t.Run(tt.transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			err := run(ctx, tt.transport, "127.0.0.1:0")
			if (err != nil) != tt.wantErr {
				t.Errorf("run(%s) = %v, want error: %v", tt.transport, err, tt.wantErr)
			}
		})
	}
}
