"""Seed 004's Python server: the URL shortener of the article, on aiohttp and Redis.

The article's author benchmarked his Go shortener (Quard/gosh) against a Python twin on
aiohttp and aioredis under gunicorn. This is that twin, on ``redis.asyncio`` (aioredis's
successor), answering the API of ``servers/openapi/shortener.yaml`` with the same ids and
the same Redis keys as the Go server (``servers/go/cmd/shortener``).

gunicorn runs it through the factory, once per worker process::

    gunicorn --worker-class aiohttp.GunicornWebWorker --workers N \\
        --bind 127.0.0.1:PORT --chdir servers/python "shortener:make_app()"

Configuration comes from the environment, which every worker inherits:

``SHORTENER_REDIS_URL``
    e.g. ``redis://127.0.0.1:6379/0`` (the default).
``SHORTENER_IDS``
    ``atomic`` (the default: ``INCR``) or ``two-step`` (the article's racy scheme).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal

from aiohttp import web
from redis.asyncio import BlockingConnectionPool, Redis

# The author's generator alphabet: letters and digits without the look-alikes l, O and 0.
ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHIJKLMNPQRSTUVWXYZ123456789"
MIN_ID_LEN = 4  # the first id is "aaaa"

# Redis key layout, shared with the Go server.
COUNTER_KEY = "gosh:counter"  # how many ids were handed out; INCR-able
URL_KEY_PREFIX = "gosh:urls:"  # + id -> url

# Counts the url keys in one round trip, each exactly once (SCAN may repeat keys while
# Redis resizes its table). KEYS blocks Redis for O(keys): fine for a stats check.
COUNT_URL_KEYS = "return #redis.call('KEYS', ARGV[1])"

MAX_BODY_BYTES = 1 << 20  # aiohttp's default client_max_size, and the Go server's limit

# The url is sent back in a Location header, which cannot carry control characters.
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")

Scheme = Literal["atomic", "two-step"]


def id_for(n: int) -> str:
    """The n-th id (from 0) of the author's sequence.

    The author steps each id from the previous one like an odometer and grows it by a
    character after a full wrap ("9999" -> "aaaaa"): that is every 4-character base-59
    number in order, then every 5-character one, so the id follows from a counter.
    """
    size = len(ALPHABET)
    length = MIN_ID_LEN
    while n >= size**length:
        n -= size**length
        length += 1
    chars = []
    for _ in range(length):
        n, digit = divmod(n, size)
        chars.append(ALPHABET[digit])
    return "".join(reversed(chars))


# The write commands this server sends (redis-py's incr() sends INCRBY); Redis counts
# their calls (INFO commandstats).
WRITE_COMMANDS = ("set", "incrby")


@dataclass
class Store:
    """The urls in Redis."""

    redis: Redis
    scheme: Scheme

    async def add(self, url: str) -> str:
        if self.scheme == "two-step":
            return await self._add_two_step(url)
        # INCR allocates and records the id in one command that Redis runs on its own,
        # so concurrent POSTs, in this process or another, always get different ids.
        n = await self.redis.incr(COUNTER_KEY)
        new_id = id_for(n - 1)
        await self.redis.set(URL_KEY_PREFIX + new_id, url)
        return new_id

    async def _add_two_step(self, url: str) -> str:
        # The article's scheme, kept racy on purpose: GET the counter, compute the next
        # id here, then SET the url and SET the counter in one pipeline (a pipeline is
        # not a transaction). While this coroutine awaits, other requests of this worker
        # and other workers read the same counter, compute the same id, answer 201 with
        # it, and the last SET of the url wins: the others' urls are lost.
        last = await self.redis.get(COUNTER_KEY)
        n = int(last) if last is not None else 0
        new_id = id_for(n)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(URL_KEY_PREFIX + new_id, url)
            pipe.set(COUNTER_KEY, n + 1)
            await pipe.execute()
        return new_id

    async def get(self, short_id: str) -> str | None:
        return await self.redis.get(URL_KEY_PREFIX + short_id)

    async def stats(self) -> dict[str, int]:
        """The urls held, and the write commands Redis has run so far. Redis counts
        them, not this process: gunicorn's workers each have their own memory, and a
        count kept here would be one worker's share (whichever answered)."""
        urls = await self.redis.eval(COUNT_URL_KEYS, 0, URL_KEY_PREFIX + "*")
        calls = await self.redis.info("commandstats")
        writes = sum(calls.get(f"cmdstat_{c}", {}).get("calls", 0) for c in WRITE_COMMANDS)
        return {"urls": int(urls), "write_transactions": writes}


STORE = web.AppKey("store", Store)


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def parse_create(body: bytes) -> str | None:
    """The url of a POST body, or None if the body must be answered with 400."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    url = data.get("url")
    if not isinstance(url, str) or not url or _CONTROL_CHARS.search(url):
        return None
    try:
        url.encode("utf-8")  # a lone surrogate from a \ud800 escape cannot be stored
    except UnicodeEncodeError:
        return None
    return url


async def create(request: web.Request) -> web.Response:
    body = await request.read()  # aiohttp answers 413 past client_max_size
    url = parse_create(body)
    if url is None:
        return _error(400, 'body must be a JSON object with a non-empty string "url"')
    new_id = await request.app[STORE].add(url)
    return web.json_response({"id": new_id, "url": url}, status=201)


async def retrieve(request: web.Request) -> web.Response:
    short_id = request.match_info["id"]
    url = await request.app[STORE].get(short_id)
    if url is None:
        return _error(404, "no url with this id")
    return web.json_response({"id": short_id, "url": url})


async def redirect(request: web.Request) -> web.Response:
    url = await request.app[STORE].get(request.match_info["id"])
    if url is None:
        return _error(404, "no url with this id")
    # Not web.HTTPMovedPermanently: it adds a text body; the author sends none.
    return web.Response(status=301, headers={"Location": url})


async def stats(request: web.Request) -> web.Response:
    return web.json_response(await request.app[STORE].stats())


def _scheme_from_env() -> Scheme:
    value = os.environ.get("SHORTENER_IDS", "atomic")
    if value == "atomic":
        return "atomic"
    if value == "two-step":
        return "two-step"
    raise ValueError(f"SHORTENER_IDS={value!r}: want 'atomic' or 'two-step'")


# Connections to Redis per worker, and how long a request may wait for one.
POOL_SIZE = 50
POOL_WAIT_S = 10


def make_app() -> web.Application:
    """The application; gunicorn calls this in every worker (``shortener:make_app()``)."""
    redis_url = os.environ.get("SHORTENER_REDIS_URL", "redis://127.0.0.1:6379/0")
    scheme = _scheme_from_env()

    async def redis_client(app: web.Application) -> AsyncIterator[None]:
        # Created on the worker's own event loop, after gunicorn has forked it. A request
        # waits for a free connection when all are busy, as go-redis's pool makes Go's
        # wait, instead of failing with "Too many connections" under 400 connections.
        pool = BlockingConnectionPool.from_url(
            redis_url, max_connections=POOL_SIZE, timeout=POOL_WAIT_S, decode_responses=True
        )
        client = Redis(connection_pool=pool)
        await client.ping()  # fail at boot, not on the first request
        app[STORE] = Store(client, scheme)
        yield
        await client.aclose()

    app = web.Application(client_max_size=MAX_BODY_BYTES)
    app.cleanup_ctx.append(redis_client)
    app.router.add_post("/api/v1/url/", create)
    app.router.add_get("/api/v1/url/{id}", retrieve)
    app.router.add_get("/api/v1/stats", stats)
    app.router.add_get("/{id}", redirect)
    return app
