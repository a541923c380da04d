"""A URL store that confirms every create and then lies about it, one way per mode, for
tests of the check that nothing was lost (benchbook.measure.data_loss).

It speaks the shortener's API (servers/openapi/shortener.yaml): POST /api/v1/url/ with
{"url": …} → 201 {"id", "url"}; GET /api/v1/url/{id} → 200 {"id", "url"} or 404;
GET /api/v1/stats → {"urls": records in the store, "write_transactions": commits}.

Usage: python lying_store.py PORT MODE [HONEST]
  The first HONEST creates (default 5) are kept as sent, whatever the mode, so that
  verification passes; after them:
  MODE honest:     nothing; every create is stored once, as sent.
  MODE wrong-read: each record is stored with a URL other than the one it confirmed,
                   so it reads back wrong; the count is right.
  MODE drops:      a write-behind cache: every record reads back from the cache, but
                   only every other one reaches the store the count describes.
  MODE phantoms:   every create is written twice, the second time under an id never
                   handed out: the store holds two records per confirmed one.
  MODE reused-ids: every third create is given the id of the one before it, which it
                   overwrites (confirmed twice, stored once).
"""

import itertools
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODES = ("honest", "wrong-read", "drops", "phantoms", "reused-ids")
RECORD = re.compile(r"/api/v1/url/([^/]+)")


class Store:
    def __init__(self, mode: str, honest: int):
        self.mode, self.honest = mode, honest
        self.lock = threading.Lock()
        self.cache: dict[str, str] = {}  # what reads answer from
        self.durable: set[str] = set()  # what the count describes
        self.commits = 0
        self.ids = itertools.count(1)
        self.created = 0

    def create(self, url: str) -> str:
        with self.lock:
            self.created += 1
            lying = self.created > self.honest
            number = next(self.ids)
            if lying and self.mode == "reused-ids" and self.created % 3 == 0:
                number -= 1  # the previous create's id, once more
            record_id = str(number)
            stored = url + "#garbled" if lying and self.mode == "wrong-read" else url
            self.cache[record_id] = stored
            self.commits += 1
            if not (lying and self.mode == "drops" and self.created % 2 == 0):
                self.durable.add(record_id)
            if lying and self.mode == "phantoms":
                phantom = f"phantom-{next(self.ids)}"
                self.cache[phantom] = url
                self.durable.add(phantom)
                self.commits += 1
            return record_id

    def read(self, record_id: str) -> str | None:
        with self.lock:
            return self.cache.get(record_id)

    def stats(self) -> dict[str, int]:
        with self.lock:
            return {"urls": len(self.durable), "write_transactions": self.commits}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as wrk expects
    disable_nagle_algorithm = True  # headers and body are separate writes
    store: Store

    def answer(self, status: int, fields: dict | None) -> None:
        body = json.dumps(fields).encode() if fields is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        sent = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/api/v1/url/":
            return self.answer(404, {"detail": "not found"})
        try:
            url = json.loads(sent)["url"]
        except (ValueError, KeyError, TypeError):
            return self.answer(422, {"detail": "a JSON body with a url"})
        self.answer(201, {"id": self.store.create(url), "url": url})

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/api/v1/stats":
            return self.answer(200, self.store.stats())
        match = RECORD.fullmatch(self.path)
        url = self.store.read(match.group(1)) if match else None
        if url is None:
            return self.answer(404, {"detail": "not found"})
        self.answer(200, {"id": match.group(1), "url": url})

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    port, mode = int(sys.argv[1]), sys.argv[2]
    if mode not in MODES:
        sys.exit(f"lying_store: mode {mode!r}; valid: {', '.join(MODES)}")
    Handler.store = Store(mode, int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
