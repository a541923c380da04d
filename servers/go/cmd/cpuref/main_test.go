package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"testing"
)

func TestRunPrintsOneJSONLine(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"one operation", 1},
		{"a few", 7},
		{"a hundred", 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := run(tt.n, &out); err != nil {
				t.Fatal(err)
			}
			if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != 1 {
				t.Fatalf("printed %d lines, want 1: %q", lines, out.String())
			}
			var fields map[string]any
			if err := json.Unmarshal(out.Bytes(), &fields); err != nil {
				t.Fatalf("not JSON: %v: %q", err, out.String())
			}
			want := []string{"workload", "iterations", "seconds", "ns_per_op", "checksum"}
			if len(fields) != len(want) {
				t.Errorf("fields %v, want exactly %v", fields, want)
			}
			for _, key := range want {
				if _, ok := fields[key]; !ok {
					t.Errorf("no %q in %v", key, fields)
				}
			}
			var got result
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Workload != workload || got.Iterations != tt.n {
				t.Errorf("workload %q, iterations %d; want %q, %d", got.Workload, got.Iterations, workload, tt.n)
			}
			if got.Seconds <= 0 || got.NsPerOp <= 0 {
				t.Errorf("seconds %v, ns_per_op %v: want both positive", got.Seconds, got.NsPerOp)
			}
			if perOp := got.Seconds * 1e9 / float64(tt.n); math.Abs(perOp-got.NsPerOp) > 1e-6*perOp+1 {
				t.Errorf("ns_per_op %v, but seconds/iterations is %v ns", got.NsPerOp, perOp)
			}
			if sum := work(tt.n); got.Checksum != hex.EncodeToString(sum[:]) {
				t.Errorf("checksum %s differs from work(%d) = %x", got.Checksum, tt.n, sum)
			}
		})
	}
}

func TestWorkIsDeterministic(t *testing.T) {
	tests := []struct {
		n    int
		want string // fixed: a change means the workload changed; rename it (see workload)
	}{
		{1, "aaecb1166530cbb6bd1676f3aa4097ab46d4d0bdf33c9750bcdb3292d7a205a9"},
		{3, "c19d62bf03223fc7aa48e677729fd7970d9cf597c16f1dfd0d02c0e5568b95c0"},
		{600, "7018e1f1eaa8e80825a466c404c8cffd4ea15a3968f47d20e852daf355dc7df9"},
	}
	seen := map[string]int{}
	for _, tt := range tests {
		first, second := work(tt.n), work(tt.n)
		if first != second {
			t.Errorf("work(%d) gave %x, then %x", tt.n, first, second)
		}
		got := hex.EncodeToString(first[:])
		if got != tt.want {
			t.Errorf("work(%d) = %s, want %s", tt.n, got, tt.want)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("work(%d) and work(%d) have the same checksum %s", other, tt.n, got)
		}
		seen[got] = tt.n
	}
}

func TestRunRejectsNonPositiveN(t *testing.T) {
	for _, n := range []int{0, -1} {
		var out bytes.Buffer
		if err := run(n, &out); err == nil || out.Len() != 0 {
			t.Errorf("run(%d) = %v and printed %q; want an error and nothing printed", n, err, out.String())
		}
	}
}
