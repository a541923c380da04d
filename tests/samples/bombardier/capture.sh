#!/usr/bin/env bash
# Re-capture the bombardier samples the parser tests read, from real servers and the
# pinned bombardier (servers/go/tools). Run from anywhere: bash tests/samples/bombardier/capture.sh
#
# Every server binds 127.0.0.1, every load run lasts 1-2 s, and the script stops only
# the servers it started. README.md says what each sample shows.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BIN=$ROOT/build/bin
BOMBARDIER=$BIN/bombardier
PYTHON=$ROOT/.venv/bin/python
# The histogram sample lists every latency value from 0 to this many µs.
HIST_MAX_US=50000

# Build what is missing: the servers from servers/go, bombardier from the tools module.
for server in hello fanout iodelay; do
	[[ -x $BIN/$server ]] || (cd "$ROOT/servers/go" && go build -o "$BIN/$server" "./cmd/$server")
done
[[ -x $BOMBARDIER ]] || (cd "$ROOT/servers/go/tools" && GOBIN=$BIN go install tool)

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

# start PORT PATH CMD...: run a server in the background and wait until PATH answers.
start() {
	local port=$1 path=$2
	shift 2
	"$@" >"$TMP/server.$port.log" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$port$path" && return 0
		sleep 0.05
	done
	echo "server on port $port did not start" >&2
	exit 1
}

# Two templates, each printing first the one-line JSON report the harness runs with
# (REPORT_TEMPLATE) and then, from the same run, either bombardier's own plain-text
# report (its plainTextTemplate, read from the module's source) or its whole latency
# histogram ("µs count" per value seen, 0 to HIST_MAX_US), which no format prints.
(cd "$ROOT/servers/go/tools" && go list -m -f '{{.Dir}}' github.com/codesenberg/bombardier) >"$TMP/module_dir"
"$PYTHON" - "$TMP" "$HIST_MAX_US" <<'EOF'
import re
import sys
from pathlib import Path

from benchbook.measure.tools.bombardier import REPORT_TEMPLATE

tmp, hist_max = Path(sys.argv[1]), int(sys.argv[2])
source = (Path((tmp / "module_dir").read_text().strip()) / "templates.go").read_text()
plain = re.search(r"plainTextTemplate = `(.*?)`", source, re.S).group(1)
# {{ "" }}: an action between, so that plainTextTemplate's leading {{- keeps the newline.
(tmp / "text.tmpl").write_text(REPORT_TEMPLATE + '{{ "" }}' + plain)
rows = "".join(
    f"{{{{ with $.Result.Latencies.Get {v} }}}}{v} {{{{ . }}}}\n{{{{ end }}}}" for v in range(hist_max)
)
(tmp / "hist.tmpl").write_text(REPORT_TEMPLATE + rows)
EOF

: >"$HERE/commands.txt"
# capture NAME KIND URL FLAGS...: one run; its JSON report to NAME.json and the rest
# of its output to NAME.txt (KIND text) or NAME.hist.txt (KIND hist).
capture() {
	local name=$1 kind=$2 url=$3
	shift 3
	local code=0 suffix=txt
	[[ $kind == hist ]] && suffix=hist.txt
	local argv=("$BOMBARDIER" --fasthttp -l -p r -o "path:$TMP/$kind.tmpl" "$@" "$url")
	echo "$name: ${argv[*]#"$ROOT/"}" >>"$HERE/commands.txt"
	"${argv[@]}" >"$TMP/$name.out" 2>"$TMP/$name.err" || code=$?
	echo "$code" >"$HERE/$name.exit"
	head -n 1 "$TMP/$name.out" >"$HERE/$name.json"
	tail -n +2 "$TMP/$name.out" >"$HERE/$name.$suffix"
	[[ -s $TMP/$name.err ]] && cp "$TMP/$name.err" "$HERE/$name.stderr.txt"
	echo "$name: exit $code"
}

HELLO=$(free_port)
start "$HELLO" / "$BIN/hello" -addr "127.0.0.1:$HELLO"
FANOUT=$(free_port)
start "$FANOUT" /sc/1 "$BIN/fanout" -addr "127.0.0.1:$FANOUT" -work 1
SLOW=$(free_port)
start "$SLOW" / "$BIN/iodelay" -addr "127.0.0.1:$SLOW" -delay 300ms
REFUSED=$(free_port) # bound and closed again: nothing listens there

# (a) the fastest server, as notebook 00 calibrates: every response 200
capture hello_c50 text "http://127.0.0.1:$HELLO/" -c 50 -d 1s --timeout 2s
# (b) the same load with bombardier's stock JSON (no p99.9 in it)
echo "hello_c50_stock: build/bin/bombardier --fasthttp -l -p r -o json -c 50 -d 1s --timeout 2s http://127.0.0.1:$HELLO/" >>"$HERE/commands.txt"
"$BOMBARDIER" --fasthttp -l -p r -o json -c 50 -d 1s --timeout 2s "http://127.0.0.1:$HELLO/" \
	>"$HERE/hello_c50_stock.json"
echo "hello_c50_stock: exit $?"
# (c) the same load with its whole latency histogram (the template's 50 000 lines take
# bombardier ~0.3 s to parse, out of its -d: hence 2 s)
capture hello_hist hist "http://127.0.0.1:$HELLO/" -c 50 -d 2s --timeout 2s
# (d) a registry request answered 404 (go-fanout's /cc/42: no such customer)
capture not_found text "http://127.0.0.1:$FANOUT/cc/42" -c 10 -d 1s --timeout 2s
# (e) nothing listens: connection refused
capture refused text "http://127.0.0.1:$REFUSED/" -c 10 -d 1s --timeout 2s
# (f) a server slower (300 ms) than the timeout (100 ms): every request times out
capture timeouts text "http://127.0.0.1:$SLOW/" -c 2 -d 1s --timeout 100ms
"$BOMBARDIER" --version >"$HERE/version.txt" 2>&1
