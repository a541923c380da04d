"""benchbook's Locust users: the requests of a load plan, weighted, with a uniform wait.

Select the class on the command line (``locust -f _locustfile.py HttpUserPlan``):
``HttpUserPlan`` uses requests (as most articles do), ``FastHttpUserPlan`` geventhttpclient,
several times faster per CPU. The plan (JSON: method, path, headers, body, ids, expected
status, weight per request; see tools.base.LoadPlan) and the wait are Locust custom
arguments, so the workers of a distributed run receive them from the master.

An answer with status 400 or above is a failure named ``BadStatus``; redirects are not
followed (a 301 is the answer to check, not the page behind it). With ``--bb-capture``,
the body of every answer with the capture status is appended to
``<capture>-<pid>.txt``: the records a write run created.
"""

import functools
import itertools
import json
import os
import random
import secrets

from locust import FastHttpUser, HttpUser, between, events, task


@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    parser.add_argument("--bb-plan", default="", help="the load plan, as JSON")
    parser.add_argument("--bb-wait-min", type=float, default=0.0, help="seconds")
    parser.add_argument("--bb-wait-max", type=float, default=0.0, help="seconds")
    parser.add_argument("--bb-capture", default="", help="file prefix for created records")
    parser.add_argument("--bb-capture-status", type=int, default=0)


_sent = itertools.count(1)
_nonce = secrets.token_hex(4)
_capture = None


def _wait(user) -> float:
    options = user.environment.parsed_options
    return between(options.bb_wait_min, options.bb_wait_max)(user)


@functools.cache
def _requests(plan: str) -> list[dict]:
    return json.loads(plan)["requests"]


def _plan(user) -> list[dict]:
    return _requests(user.environment.parsed_options.bb_plan)


def _captured(user, status: int, body: str) -> None:
    global _capture
    options = user.environment.parsed_options
    if not options.bb_capture or status != options.bb_capture_status:
        return
    if _capture is None:
        _capture = open(f"{options.bb_capture}-{os.getpid()}.txt", "a", buffering=1)
    _capture.write(body.replace("\n", " ") + "\n")


def _send(user) -> None:
    requests = _plan(user)
    r = random.choices(requests, weights=[q["weight"] for q in requests])[0]
    n = next(_sent)
    path = r["path"].replace("{id}", r["ids"][n % len(r["ids"])]) if r["ids"] else r["path"]
    body = r["body"].replace("{unique}", f"{_nonce}-{os.getpid()}-{n}") if r["body"] else None
    with user.client.request(
        r["method"], path, data=body, headers=r["headers"], name=r["name"],
        allow_redirects=False, catch_response=True,
    ) as response:  # fmt: skip
        status = response.status_code
        if status and status >= 400:
            response.failure(f"BadStatus: answered {status}, expected {r['expected_status']}")
        elif status:
            response.success()
            _captured(user, status, response.text or "")


class HttpUserPlan(HttpUser):
    wait_time = _wait

    @task
    def send(self) -> None:
        _send(self)


class FastHttpUserPlan(FastHttpUser):
    wait_time = _wait

    @task
    def send(self) -> None:
        _send(self)
