#!/usr/bin/env bash
# Regenerates ALL code generated from servers/proto/governance.proto.
#
# Generated code is committed and nothing (make, CI) runs this script: run it by hand
# after changing the .proto, then commit the proto and the regenerated files together.
# It is idempotent: running it twice gives the same files.
#
# It needs:
#   - the project's venv at .venv with grpcio-tools (requirements.txt) and ruff, for the
#     Python code (grpcio-tools bundles its own protoc for Python);
#   - Debian's protoc (apt-get install protobuf-compiler; 3.21.12 on Debian 12) for Go;
#   - Go, to install the two Go plugins at pinned versions into build/bin (git-ignored);
#     installed only when build/bin lacks that exact version.
#
# Writes:
#   servers/python/governance/governance_pb2.py, governance_pb2.pyi, governance_pb2_grpc.py
#   servers/go/governance/governancepb/governance.pb.go, governance_grpc.pb.go
set -euo pipefail

# The plugins' versions. protoc-gen-go must not be newer than google.golang.org/protobuf
# in servers/go/go.mod, nor protoc-gen-go-grpc's output need a newer google.golang.org/grpc.
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PROTO_DIR="$ROOT/servers/proto"
PY_OUT="$ROOT/servers/python/governance"
GO_OUT="$ROOT/servers/go/governance/governancepb"
BIN="$ROOT/build/bin"
PYTHON="$ROOT/.venv/bin/python"

command -v protoc >/dev/null || { echo "protoc is missing: apt-get install protobuf-compiler" >&2; exit 1; }
command -v go >/dev/null || { echo "go is missing" >&2; exit 1; }
[ -x "$PYTHON" ] || { echo "$PYTHON is missing: run make setup" >&2; exit 1; }

# --- Go plugins, pinned -------------------------------------------------------------
mkdir -p "$BIN"
if [ "$("$BIN/protoc-gen-go" --version 2>/dev/null)" != "protoc-gen-go $PROTOC_GEN_GO_VERSION" ]; then
  GOBIN="$BIN" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
fi
if [ "$("$BIN/protoc-gen-go-grpc" --version 2>/dev/null)" != "protoc-gen-go-grpc ${PROTOC_GEN_GO_GRPC_VERSION#v}" ]; then
  GOBIN="$BIN" go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION"
fi

# --- Go ------------------------------------------------------------------------------
mkdir -p "$GO_OUT"
rm -f "$GO_OUT"/*.pb.go
PATH="$BIN:$PATH" protoc -I "$PROTO_DIR" \
  --go_out="$GO_OUT" --go_opt=paths=source_relative \
  --go-grpc_out="$GO_OUT" --go-grpc_opt=paths=source_relative \
  "$PROTO_DIR/governance.proto"

# --- Python --------------------------------------------------------------------------
mkdir -p "$PY_OUT"
rm -f "$PY_OUT"/governance_pb2.py "$PY_OUT"/governance_pb2.pyi "$PY_OUT"/governance_pb2_grpc.py
"$PYTHON" -m grpc_tools.protoc -I "$PROTO_DIR" \
  --python_out="$PY_OUT" --pyi_out="$PY_OUT" --grpc_python_out="$PY_OUT" \
  "$PROTO_DIR/governance.proto"
# grpc_tools writes a top-level import ("import governance_pb2"); the modules live in the
# package `governance`, so make it relative.
sed -i 's/^import governance_pb2 as governance__pb2$/from . import governance_pb2 as governance__pb2/' \
  "$PY_OUT/governance_pb2_grpc.py"
grep -q '^from \. import governance_pb2 as governance__pb2$' "$PY_OUT/governance_pb2_grpc.py" \
  || { echo "generate.sh: the import in governance_pb2_grpc.py was not rewritten" >&2; exit 1; }
# Generated code is exempt from lint (a file-level noqa) but formatted like the rest.
for f in governance_pb2.py governance_pb2.pyi governance_pb2_grpc.py; do
  sed -i '1i # ruff: noqa' "$PY_OUT/$f"
done
"$ROOT/.venv/bin/ruff" format --quiet "$PY_OUT"/governance_pb2.py "$PY_OUT"/governance_pb2.pyi \
  "$PY_OUT"/governance_pb2_grpc.py

echo "generated:"
ls -1 "$GO_OUT"/*.pb.go "$PY_OUT"/governance_pb2*.py*
