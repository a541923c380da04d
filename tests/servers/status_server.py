"""A deliberately plain HTTP server for tests: answers GET / with a chosen status.

Used to produce real non-2xx responses for wrk and real 404s for verification.
Usage: python status_server.py PORT STATUS
"""

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class StatusHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as wrk expects
    status = 200

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        status = self.status if self.path == "/" else 404
        body = b"ok" if status == 200 else f"status {status}".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    port, StatusHandler.status = int(sys.argv[1]), int(sys.argv[2])
    ThreadingHTTPServer(("127.0.0.1", port), StatusHandler).serve_forever()
