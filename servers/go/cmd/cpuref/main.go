// Command cpuref is benchbook's machine-speed reference for Go: a fixed, deterministic
// CPU workload, run single-threaded before and after an experiment, so that a reader
// can tell when a session's machine was slower (the shared machine drifts 10–35 %).
//
// Each operation hashes a 16 KiB buffer with SHA-256 (chaining the digest back into
// the buffer, so no operation can be skipped), then formats 64 short strings from the
// digest, sorts them and joins them, which allocates and compares like a server's
// request handling does. It prints one JSON line:
//
//	{"workload":"…","iterations":N,"seconds":t,"ns_per_op":x,"checksum":"…"}
//
// where seconds is the wall time of the work alone (not the process start) and checksum
// depends on every operation, so the same -n always gives the same checksum.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// workload names what is measured; change it whenever the work changes, since times of
// different workloads cannot be compared.
const workload = "go-sha256-16KiB+format-sort-join-64-strings/v1"

const (
	bufSize = 16 << 10
	nStrs   = 64
)

// result is the line cpuref prints.
type result struct {
	Workload   string  `json:"workload"`
	Iterations int     `json:"iterations"`
	Seconds    float64 `json:"seconds"`
	NsPerOp    float64 `json:"ns_per_op"`
	Checksum   string  `json:"checksum"`
}

func main() {
	n := flag.Int("n", 20000, "iterations (operations) of the workload")
	flag.Parse()

	// One P: the garbage collector runs on the same thread as the work, so the time does
	// not depend on how many CPUs the process is pinned to. The collector's settings are
	// fixed too, whatever GOGC or GOMEMLIMIT the environment sets.
	runtime.GOMAXPROCS(1)
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	if err := run(*n, os.Stdout); err != nil {
		log.Fatalf("cpuref: %v", err)
	}
}

// run times n operations and writes the result as one JSON line to w.
func run(n int, w io.Writer) error {
	if n <= 0 {
		return fmt.Errorf("-n must be positive, got %d", n)
	}
	start := time.Now()
	sum := work(n)
	elapsed := time.Since(start)
	return json.NewEncoder(w).Encode(result{
		Workload:   workload,
		Iterations: n,
		Seconds:    elapsed.Seconds(),
		NsPerOp:    float64(elapsed.Nanoseconds()) / float64(n),
		Checksum:   hex.EncodeToString(sum[:]),
	})
}

// work runs n operations and returns a digest of everything they produced.
func work(n int) [sha256.Size]byte {
	buf := make([]byte, bufSize)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	var joined int
	for i := range n {
		digest := sha256.Sum256(buf)
		copy(buf[(i*sha256.Size)%bufSize:], digest[:])
		joined += len(formatSortJoin(digest, i))
	}
	return sha256.Sum256(strconv.AppendInt(buf, int64(joined), 10))
}

// formatSortJoin is the allocation-heavy part: strings built from digest, sorted, joined.
func formatSortJoin(digest [sha256.Size]byte, i int) string {
	strs := make([]string, 0, nStrs)
	for j := range nStrs {
		strs = append(strs, fmt.Sprintf("%x-%d-%d", digest[j%sha256.Size:], i, j))
	}
	slices.Sort(strs)
	return strings.Join(strs, ",")
}
