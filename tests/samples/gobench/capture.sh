#!/usr/bin/env bash
# Re-captures the `go test -bench` samples in this folder from real servers (seed 001).
#
# Run from anywhere: tests/samples/gobench/capture.sh
# Needs: the venv (make setup), Go, and benchstat in build/bin:
#   GOBIN=$PWD/build/bin go install golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
#
# It starts the backends on 127.0.0.1 (ports BASE_PORT..BASE_PORT+5, default 18200),
# runs the benchmarks in servers/go/governance/bench, writes the raw output here, and
# stops every process it started. BENCHTIME (default 200ms) and COUNT (default 6) set
# go test's -benchtime and -count.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="$ROOT/tests/samples/gobench"
PY="$ROOT/.venv/bin/python"
BIN="$ROOT/build/bin"
BASE_PORT="${BASE_PORT:-18200}"
BENCHTIME="${BENCHTIME:-200ms}"
COUNT="${COUNT:-6}"

PY_HTTP=$BASE_PORT
PY_GRPC=$((BASE_PORT + 1))
GO_HTTP=$((BASE_PORT + 2))
GO_GRPC=$((BASE_PORT + 3))
NOT_FOUND=$((BASE_PORT + 4))
NOT_FOUND_NODELAY=$((BASE_PORT + 5))

PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

wait_port() {
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1" >&2
  exit 1
}

(cd "$ROOT/servers/go" && go build -o "$BIN/governance" ./cmd/governance)

start() { # port, log name, command...
  local port=$1 name=$2
  shift 2
  "$@" >"$OUT/.$name.log" 2>&1 &
  PIDS+=($!)
  wait_port "$port"
}

cd "$ROOT"
start $PY_HTTP py-http "$PY" -m uvicorn governance.http_app:app --app-dir servers/python \
  --host 127.0.0.1 --port $PY_HTTP --no-access-log
start $PY_GRPC py-grpc env PYTHONPATH=servers/python "$PY" -m governance.grpc_server --port $PY_GRPC
start $GO_HTTP go-http "$BIN/governance" -transport http -addr 127.0.0.1:$GO_HTTP
start $GO_GRPC go-grpc "$BIN/governance" -transport grpc -addr 127.0.0.1:$GO_GRPC
start $NOT_FOUND not-found "$PY" servers/python/not_found.py $NOT_FOUND
start $NOT_FOUND_NODELAY not-found-nodelay "$PY" servers/python/not_found.py $NOT_FOUND_NODELAY --nodelay

bench() { # output file, then go test's arguments; environment comes from the caller
  echo "capturing $1" >&2
  (cd "$ROOT/servers/go" && go test -run '^$' "${@:2}" ./governance/bench/) >"$OUT/$1"
}

# 1. Every benchmark, both transports, against the Python backends (uvicorn with its
#    defaults, uvloop + httptools; grpc.aio with sync handlers on a 10-thread executor).
GOVERNANCE_HTTP_ADDR=127.0.0.1:$PY_HTTP GOVERNANCE_GRPC_ADDR=127.0.0.1:$PY_GRPC \
  bench python_backends.txt -bench . -benchmem -benchtime "$BENCHTIME" -count "$COUNT"

# 2. The same against the Go backends (net/http; grpc-go).
GOVERNANCE_HTTP_ADDR=127.0.0.1:$GO_HTTP GOVERNANCE_GRPC_ADDR=127.0.0.1:$GO_GRPC \
  bench go_backends.txt -bench . -benchmem -benchtime "$BENCHTIME" -count "$COUNT"

# 3. The article's mistake: its loop, HTTP against a server that answers 404 to
#    everything, gRPC against the Python gRPC backend.
GOVERNANCE_ARTICLE_STYLE=1 GOVERNANCE_HTTP_ADDR=127.0.0.1:$NOT_FOUND \
  GOVERNANCE_GRPC_ADDR=127.0.0.1:$PY_GRPC \
  bench article_style_not_found.txt -bench ArticleStyle -benchmem -benchtime "$BENCHTIME" -count "$COUNT"

# 4. The honest loop against the same 404 server: each HTTP benchmark fails at its first
#    iteration (--- FAIL, go test exits 1).
GOVERNANCE_HTTP_ADDR=127.0.0.1:$NOT_FOUND \
  bench ops_not_found_fails.txt -bench 'Ops/http/(HealthCheck|CreateSession)$' -benchmem \
  -benchtime "$BENCHTIME" -count 1 || true  # go test exits 1 here, as it should

# 5. The article's HTTP loop against the same 404 server with TCP_NODELAY on its sockets:
#    the ~40 ms per call is gone, so it was Nagle's algorithm meeting delayed ACKs.
GOVERNANCE_ARTICLE_STYLE=1 GOVERNANCE_HTTP_ADDR=127.0.0.1:$NOT_FOUND_NODELAY \
  bench article_style_not_found_nodelay.txt -bench 'ArticleStyle/http/' -benchmem \
  -benchtime "$BENCHTIME" -count "$COUNT"

cd "$OUT" # so benchstat's column headings are the bare file names
"$BIN/benchstat" python_backends.txt >python_backends.benchstat.txt
"$BIN/benchstat" python=python_backends.txt go=go_backends.txt >python_vs_go.benchstat.txt
rm -f "$OUT"/.*.log
echo "done: $(ls "$OUT")" >&2
