"""A server that passes verification, then misbehaves under load, for tests of the harness.

Usage: python misbehaving_server.py PORT MODE N [EXIT_CODE]
  MODE wrong-body: after N good answers to GET /, every answer is HTTP 200 with the body
                   "ERROR: cache miss" (a cache that stops working, say).
  MODE die:        1.5 s after its N-th request, the process exits with EXIT_CODE.
"""

import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXIT_DELAY_S = 1.5


class MisbehavingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as wrk expects
    mode, limit, exit_code = "wrong-body", 0, 3
    served = 0
    lock = threading.Lock()

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        with self.lock:
            MisbehavingHandler.served += 1
            served = MisbehavingHandler.served
        body = b"ok"
        if self.mode == "wrong-body" and served > self.limit:
            body = b"ERROR: cache miss"
        if self.mode == "die" and served == self.limit:
            threading.Thread(target=self.exit_soon, daemon=True).start()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def exit_soon(self) -> None:
        time.sleep(EXIT_DELAY_S)
        print(f"misbehaving_server: exiting with code {self.exit_code} on purpose",
              file=sys.stderr, flush=True)  # fmt: skip
        os._exit(self.exit_code)

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    port, MisbehavingHandler.mode, limit = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    MisbehavingHandler.limit = limit
    if len(sys.argv) > 4:
        MisbehavingHandler.exit_code = int(sys.argv[4])
    ThreadingHTTPServer(("127.0.0.1", port), MisbehavingHandler).serve_forever()
