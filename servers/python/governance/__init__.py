"""Seed 001's governance service in Python: one in-memory engine (``engine``), served
over HTTP/JSON by FastAPI (``http_app``) and over gRPC by ``grpc.aio`` (``grpc_server``).

``governance_pb2*.py`` are generated from servers/proto/governance.proto by
servers/proto/generate.sh; do not edit them.
"""
