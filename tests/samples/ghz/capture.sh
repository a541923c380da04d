#!/usr/bin/env bash
# Re-captures the ghz samples in this folder from the real Python gRPC backend (seed 001).
#
# Run from anywhere: tests/samples/ghz/capture.sh
# Needs: the venv (make setup) and ghz in build/bin:
#   GOBIN=$PWD/build/bin go install github.com/bojand/ghz/cmd/ghz@v0.120.0
#
# It starts `python -m governance.grpc_server` on 127.0.0.1:PORT (default 18210), runs
# ghz against it and against PORT+1 where nothing listens, writes each JSON report and
# ghz's exit codes (exit_codes.txt) here, and stops the server it started.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="$ROOT/tests/samples/ghz"
PY="$ROOT/.venv/bin/python"
GHZ="$ROOT/build/bin/ghz"
PORT="${PORT:-18210}"
NOBODY=$((PORT + 1))
SERVICE=benchbook.governance.v1.GovernanceService

cd "$ROOT"
if (exec 3<>"/dev/tcp/127.0.0.1/$NOBODY") 2>/dev/null; then
  echo "something listens on 127.0.0.1:$NOBODY; pick another PORT" >&2
  exit 1
fi

PYTHONPATH=servers/python "$PY" -m governance.grpc_server --port "$PORT" >"$OUT/.server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait 2>/dev/null || true; rm -f "$OUT/.server.log"' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done

: >"$OUT/exit_codes.txt"
capture() { # name, then ghz arguments (after the common ones)
  local name=$1 code=0
  shift
  "$GHZ" --insecure --proto servers/proto/governance.proto -O json "$@" >"$OUT/$name.json" || code=$?
  echo "$name $code" >>"$OUT/exit_codes.txt"
  echo "captured $name (ghz exit code $code)" >&2
}

# 1. All OK: 2000 HealthChecks from 10 workers, as fast as they go.
capture health_ok --call "$SERVICE/HealthCheck" -n 2000 -c 10 "127.0.0.1:$PORT"

# 2. The same at a fixed rate: 1000 calls at 200 requests/s (about 5 s).
capture health_rps200 --call "$SERVICE/HealthCheck" -n 1000 -c 10 --rps 200 "127.0.0.1:$PORT"

# 3. Every call answered with a gRPC error: GetDecision of a decision that does not exist.
capture get_decision_not_found --call "$SERVICE/GetDecision" -d '{"decision_id":"dec-999999"}' \
  -n 200 -c 5 "127.0.0.1:$PORT"

# 4. Nothing listening: every call fails to connect.
capture connection_refused --call "$SERVICE/HealthCheck" -n 200 -c 5 "127.0.0.1:$NOBODY"

cat "$OUT/exit_codes.txt" >&2
