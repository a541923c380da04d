"""A backend that answers 404 to every request: seed 001's HTTP "backend".

The article benchmarked its HTTP client against a server that did not have the
governance API, so every call got a 404, and timed those failures as results
("CreateSession over HTTP: 42.45 ms"). This reproduces that situation with the standard
library alone: a threading HTTP/1.1 server with keep-alive that reads any request body,
then writes a 404 with a JSON body and an exact Content-Length.

Like every ``http.server`` handler, it writes the status line and headers in one send
and the body in a second one, on a socket with Nagle's algorithm on (the default). A
client that reuses the connection then waits for its own delayed ACK (about 40 ms on
Linux) before the body arrives. ``--nodelay`` sets TCP_NODELAY on each connection,
which removes that wait: the difference is the server's socket option, not HTTP.

    python servers/python/not_found.py 8000 [--host 127.0.0.1] [--nodelay]
"""

from __future__ import annotations

import argparse
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = b'{"detail":"Not Found"}'


class NotFoundHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    server_version = "not-found"
    nodelay = False

    def setup(self) -> None:
        super().setup()
        if self.nodelay:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _not_found(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)  # so the next request on this connection parses
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(BODY)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _not_found

    def log_message(self, format: str, *args: object) -> None:
        pass  # no access log


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Answer 404 to every HTTP request.")
    parser.add_argument("port", type=int)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--nodelay", action="store_true", help="set TCP_NODELAY on each connection")
    args = parser.parse_args(argv)
    NotFoundHandler.nodelay = args.nodelay
    server = ThreadingHTTPServer((args.host, args.port), NotFoundHandler)
    server.daemon_threads = True
    print(f"not_found listening on {args.host}:{args.port} (nodelay={args.nodelay})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
