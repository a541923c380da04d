#!/usr/bin/env bash
# Re-capture the vegeta samples the parser tests read, from real servers and the
# pinned vegeta (servers/go/tools). Run from anywhere: bash tests/samples/vegeta/capture.sh
#
# Every server binds 127.0.0.1, every load run is bounded in time, and the script
# stops only the servers it started. README.md says what each sample shows.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BIN=$ROOT/build/bin
VEGETA=$BIN/vegeta
# .bin results are kept only under this size; the reports are always kept.
MAX_BIN=$((200 * 1024))

# Build what is missing: the servers from servers/go, vegeta from the tools module.
[[ -x $BIN/hello ]] || (cd "$ROOT/servers/go" && go build -o "$BIN/hello" ./cmd/hello)
[[ -x $BIN/freeze ]] || (cd "$ROOT/servers/go" && go build -o "$BIN/freeze" ./cmd/freeze)
[[ -x $VEGETA ]] || (cd "$ROOT/servers/go/tools" && GOBIN=$BIN go install tool)

PIDS=()
TMP=$(mktemp -d)
cleanup() {
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start PORT CMD...: run a server in the background and wait for it to listen.
start() {
	local port=$1
	shift
	"$@" >"$TMP/server.$port.log" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
		sleep 0.05
	done
	echo "server on port $port did not start" >&2
	exit 1
}

# capture NAME URL ATTACK-FLAGS...: attack URL, keep the exit code and the reports.
capture() {
	local name=$1 url=$2
	shift 2
	local code=0
	echo "GET $url" | "$VEGETA" attack "$@" -output "$TMP/$name.bin" || code=$?
	echo "$code" >"$HERE/$name.exit"
	"$VEGETA" report -type json "$TMP/$name.bin" >"$HERE/$name.json"
	"$VEGETA" report -type text "$TMP/$name.bin" >"$HERE/$name.txt"
	"$VEGETA" report -type 'hist[0,1ms,10ms,50ms,100ms,150ms,200ms,250ms]' "$TMP/$name.bin" >"$HERE/$name.hist.txt"
	rm -f "$HERE/$name.bin"
	if (($(stat -c %s "$TMP/$name.bin") < MAX_BIN)); then
		cp "$TMP/$name.bin" "$HERE/$name.bin"
	fi
	echo "$name: exit $code, $(stat -c %s "$TMP/$name.bin") bytes of results"
}

HELLO=$(free_port)
start "$HELLO" "$BIN/hello" -addr "127.0.0.1:$HELLO"
FREEZE=$(free_port)
start "$FREEZE" "$BIN/freeze" -addr "127.0.0.1:$FREEZE" -pause 200ms -period 1s
NOTFOUND=$(free_port)
mkdir "$TMP/empty"
start "$NOTFOUND" python3 -m http.server --bind 127.0.0.1 --directory "$TMP/empty" "$NOTFOUND"
REFUSED=$(free_port) # bound and closed again: nothing listens there

# (a) a rate the fastest server sustains
capture hello_2000rps "http://127.0.0.1:$HELLO/" -rate 2000/s -duration 3s -max-workers 100
# (b) the freeze server, open-loop: enough workers for every request of a pause
# (1000/s x 200ms = 200 at once), and too few (50), which lets the stall hide again
capture freeze_1000rps "http://127.0.0.1:$FREEZE/" -rate 1000/s -duration 3s -max-workers 500
capture freeze_1000rps_w50 "http://127.0.0.1:$FREEZE/" -rate 1000/s -duration 3s -max-workers 50
# (b') a small one whose per-request results are kept, as vegeta encode's CSV too
capture freeze_200rps "http://127.0.0.1:$FREEZE/" -rate 200/s -duration 2s -max-workers 100
"$VEGETA" encode -to csv "$HERE/freeze_200rps.bin" >"$HERE/freeze_200rps.csv"
# (c) a rate no server here reaches, with few workers: a shortfall
capture shortfall "http://127.0.0.1:$HELLO/" -rate 200000/s -duration 2s -max-workers 4
# (d) nothing listens: connection refused
capture refused "http://127.0.0.1:$REFUSED/" -rate 100/s -duration 1s -max-workers 10
# (e) every request answered 404
capture not_found "http://127.0.0.1:$NOTFOUND/missing" -rate 100/s -duration 2s -max-workers 10

# The closed-loop contrast: wrk with the connection count of (b)'s steady state.
wrk -t1 -c10 -d3s --latency "http://127.0.0.1:$FREEZE/" >"$HERE/freeze_wrk_c10.txt"
echo "freeze_wrk_c10: done"
