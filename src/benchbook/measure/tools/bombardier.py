"""bombardier: a closed-loop HTTP load generator in Go on fasthttp (``-c N``: N
connections, each with one request in flight, the next sent when its reply is read).

It sends one fixed request (method, path, headers, body) for ``-d`` and prints one
report at the end. Its stock ``-o json`` report holds the p50, p75, p90, p95 and p99
only, so the run uses bombardier's own JSON template with p99.9 added (REPORT_TEMPLATE,
written beside the output and given as ``-o path:…``); the parser reads both.

What the report means, from bombardier v1.2.6's source and checked on real runs
(tests/samples/bombardier): ``timeTakenSeconds`` is from the first request sent to the
last reply read; ``req1xx`` … ``req5xx`` count responses by status class, and
``others`` the requests without a valid status — every request that got no response is
there, and once more in ``errors`` (each distinct message with its count). Latencies are
integer microseconds over every request, failed ones included (a refused dial is timed
too); the percentiles are nearest rank over bombardier's exact µs histogram. Its
``stddev`` is not the requests' standard deviation: it sums (value - mean)² once per
distinct latency value, not once per request, so it runs low; it is not used.
``bytesRead`` is every byte read from the sockets, headers included (as wrk counts).

fasthttp retries a GET, HEAD or PUT that failed on its connection, up to 5 attempts in
all: a request counted as one timeout took 5 × ``--timeout``, and a request that
succeeded on a retry is timed over all its attempts. bombardier exits 0 whatever the
replies were, and also when its template fails (the JSON is then broken, and refused).
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchbook.measure.hosts.addresses import require_allowed
from benchbook.measure.params import as_list, require_int
from benchbook.measure.tools import Calibration, Capabilities, ToolEntry, VersionPin
from benchbook.measure.tools.base import (
    ErrorKinds,
    LoadPlan,
    LoadRequest,
    LoadToolError,
    ToolDefaults,
    ToolRun,
    go_binary_version,
    require_exit,
    run_to_files,
)
from benchbook.runs.columns import CORE_PERCENTILES, percentile_column
from benchbook.runs.durations import parse_duration
from benchbook.runs.layout import built_tool

# bombardier's JSON template (templates.go, v1.2.6) in one line, the latency percentiles
# with p99.9 added and keyed "50" … "99.9"; the spec keeps what names the run.
REPORT_TEMPLATE = r"""{"spec":{"numberOfConnections":{{ .Spec.NumberOfConnections }}
{{- if .Spec.IsTimedTest }},"testDurationSeconds":{{ .Spec.TestDuration.Seconds }}{{ end -}}
,"method":{{ printf "%q" .Spec.Method }},"url":{{ printf "%q" .Spec.URL -}}
,"timeoutSeconds":{{ .Spec.Timeout.Seconds }}},
{{- with .Result -}}
"result":{"bytesRead":{{ .BytesRead }},"bytesWritten":{{ .BytesWritten -}}
,"timeTakenSeconds":{{ .TimeTaken.Seconds }},"req1xx":{{ .Req1XX }},"req2xx":{{ .Req2XX -}}
,"req3xx":{{ .Req3XX }},"req4xx":{{ .Req4XX }},"req5xx":{{ .Req5XX }},"others":{{ .Others }}
{{- with .Errors }},"errors":[
{{- range $i, $e := . }}{{ if $i }},{{ end -}}
{"description":{{ printf "%q" .Error }},"count":{{ .Count }}}{{ end }}]{{ end }}
{{- with .LatenciesStats (FloatsToArray 0.5 0.75 0.9 0.95 0.99 0.999) -}}
,"latency":{"mean":{{ .Mean }},"stddev":{{ .Stddev }},"max":{{ .Max }},"percentiles":{
{{- range $pc, $lat := .Percentiles }}{{ if ne $pc 0.5 }},{{ end -}}
"{{ printf "%.3g" (Multiply $pc 100) }}":{{ $lat }}{{ end }}}}
{{- end }}}}
{{- end }}
"""
RESULT_KEYS = ("bytesRead", "timeTakenSeconds", "req1xx", "req2xx", "req3xx", "req4xx",
               "req5xx", "others")  # fmt: skip
LATENCY_COLUMNS = ["lat_mean_ms", "lat_stdev_ms", *map(percentile_column, CORE_PERCENTILES),
                   "lat_max_ms"]  # fmt: skip
METHODS = ("GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH")  # what it accepts
MIN_DURATION_S = 1.0  # bombardier refuses a shorter -d
ATTEMPTS = 5  # fasthttp's DefaultMaxIdemponentCallAttempts: tries of one GET, HEAD or PUT
# bombardier stops after -d and waits for the replies in flight; past this much more
# (plus every attempt's --timeout), it is hung.
DEADLINE_GRACE_S = 15.0


class BombardierError(LoadToolError, ValueError):
    """bombardier failed, or wrote something that is not its report."""


# What fasthttp and Go's net say when a request got no response, by kind.
ERRORS = ErrorKinds(
    tool="bombardier",
    markers={
        "err_timeout": ("timeout", "timed out"),
        "err_connect": (
            "connection refused",
            "dial tcp",
            "connect:",
            "no such host",
            "no free connections",
        ),
        "err_write": ("broken pipe", "write tcp", "write:"),
        "err_read": (
            "connection reset",
            "EOF",
            "server closed connection",
            "read tcp",
            "read:",
            "error when reading response",
        ),
    },
    table="ERRORS in measure/tools/bombardier.py",
    error=BombardierError,
)


def bombardier_path() -> Path:
    return built_tool("bombardier")


def bombardier_version() -> str:
    return go_binary_version(bombardier_path())


def parse_bombardier_json(text: str) -> dict[str, Any]:
    """The core measurement columns of a tidy row from bombardier's JSON report
    (REPORT_TEMPLATE's, or stock ``-o json``: no p99.9 there, None here).

    ``requests`` is every request bombardier made, with or without a response (as
    vegeta's and ghz's), and ``rps`` and ``bytes_per_s`` are over ``timeTakenSeconds``.
    Requests without response count in ``err_*`` by their message; responses of status
    400 and above, and statuses outside 100–599, in ``non_2xx``. Latencies in ms, over
    every request as bombardier reports them; all None when no request got a response
    (they would time the failures). ``lat_stdev_ms`` is None: see the module's doc.
    """
    result = _result(text)
    requests = sum(result[key] for key in RESULT_KEYS[2:])
    if requests == 0:
        raise BombardierError("bombardier's report holds no request at all")
    duration_s = float(result["timeTakenSeconds"])
    if duration_s <= 0:
        raise BombardierError(f"bombardier's report spans no time ({duration_s} s)")
    errors = ERRORS.count(
        (str(error["description"]), int(error["count"])) for error in result.get("errors") or []
    )
    no_response = sum(errors.values())
    if no_response > result["others"]:
        raise BombardierError(
            f"bombardier lists {no_response} errors but counts only {result['others']} "
            "requests without a status ('others')"
        )
    return {
        "duration_s": duration_s,
        "requests": requests,
        "rps": requests / duration_s,
        "bytes_per_s": result["bytesRead"] / duration_s,
        **_latency_columns(result.get("latency"), responded=no_response < requests),
        **errors,
        "non_2xx": result["req4xx"] + result["req5xx"] + result["others"] - no_response,
    }


def _result(text: str) -> dict[str, Any]:
    """The report's ``result``, checked to hold what the columns are made of."""
    try:
        report = json.loads(text)
    except json.JSONDecodeError as err:
        raise BombardierError(
            f"bombardier output is not JSON ({err}); was it run with -o json or REPORT_TEMPLATE?"
        ) from None
    result = report.get("result") if isinstance(report, dict) else None
    if not isinstance(result, dict):
        raise BombardierError("bombardier output is JSON but has no 'result'; use its JSON report")
    missing = [key for key in RESULT_KEYS if key not in result]
    if missing:
        raise BombardierError(f"bombardier's result lacks {missing}; use its JSON report")
    return result


def _latency_columns(latency: Mapping[str, Any] | None, responded: bool) -> dict[str, Any]:
    if not responded:
        return dict.fromkeys(LATENCY_COLUMNS)
    if not latency or "percentiles" not in latency:
        raise BombardierError("bombardier's report has no latency percentiles; run it with -l")
    reported = latency["percentiles"]  # "50" … "99.9" → µs
    keys = {percentile_column(s): f"{100 * s:g}" for s in CORE_PERCENTILES}
    return {
        "lat_mean_ms": latency["mean"] / 1000,
        "lat_stdev_ms": None,  # bombardier's stddev ignores how often each value occurred
        **{
            column: reported[key] / 1000 if key in reported else None
            for column, key in keys.items()
        },
        "lat_max_ms": latency["max"] / 1000,
    }


@dataclass(frozen=True)
class BombardierLoad:
    """``connections`` connections, each with one request in flight, for ``duration_s``
    (1 s at least); a try waiting longer than ``timeout_s`` for its socket is abandoned."""

    connections: int
    duration_s: float
    timeout_s: float

    @classmethod
    def from_params(
        cls, connections: object, duration: object, timeout: object
    ) -> "BombardierLoad":
        load = cls(
            connections=require_int("connections", connections, 1),
            duration_s=parse_duration("duration", duration),
            timeout_s=parse_duration("timeout", timeout),
        )
        if load.duration_s < MIN_DURATION_S:
            raise ValueError(
                f"duration: {load.duration_s:g} s; bombardier runs 1 s at least, e.g. '10s'"
            )
        if load.timeout_s < 0.001:
            raise ValueError(f"timeout: {load.timeout_s:g} s; use 1 ms or more, e.g. '2s'")
        return load


def single_request(plan: LoadPlan) -> LoadRequest:
    """The one request of ``plan``, or a ValueError saying why bombardier cannot send
    it: it repeats one fixed request (wrk and Locust send mixes, ids and unique bodies)."""
    why = None
    first = plan.requests[0]
    if len(plan.requests) > 1:
        names = ", ".join(r.name for r in plan.requests)
        why = f"the plan is a mix of {len(plan.requests)} requests ({names})"
    elif "{id}" in first.path:
        why = f"{first.name}'s path {first.path} takes a different record id each time"
    elif first.body and "{unique}" in first.body:
        why = f"{first.name}'s body needs a {{unique}} value in every request"
    elif plan.capture_status is not None:
        why = f"the plan keeps the bodies of {plan.capture_status} responses"
    elif first.method not in METHODS:
        why = f"{first.name} uses {first.method}; it sends only {', '.join(METHODS)}"
    if why:
        raise ValueError(f"bombardier sends one fixed request, but {why}; use wrk or Locust")
    return first


def bombardier_command(
    url: str, request: LoadRequest, load: BombardierLoad, seconds: float, template: Path
) -> list[str]:
    """The bombardier command line sending ``request`` to ``url`` for ``seconds``."""
    require_allowed("url", url)
    argv = [
        str(bombardier_path()), "--fasthttp",
        "-c", str(load.connections),
        "-d", f"{round(seconds * 1000)}ms",
        "--timeout", f"{round(load.timeout_s * 1000)}ms",
        "-l", "-p", "r", "-o", f"path:{template}",
        "-m", request.method,
    ]  # fmt: skip
    for name, value in request.headers.items():
        argv += ["-H", f"{name}: {value}"]
    if request.body:
        argv += ["-b", request.body]
    return [*argv, url]


@dataclass(frozen=True)
class Bombardier(ToolDefaults):
    """bombardier as a LoadTool: a closed loop of ``load.connections`` connections."""

    load: BombardierLoad
    name = "bombardier"
    closed_loop = True
    extra_columns = ()

    @property
    def slug(self) -> str:
        return f"c{self.load.connections}"

    def describe(self) -> str:
        return (
            f"bombardier -c {self.load.connections} -d {self.load.duration_s:g}s "
            f"--timeout {self.load.timeout_s:g}s"
        )

    def row_fields(self) -> dict[str, object]:
        return {"connections": self.load.connections}

    def run(
        self,
        host: str,
        plan: LoadPlan,
        raw_prefix: Path,
        cpus: Sequence[int] | None,
        duration_s: float | None = None,
    ) -> ToolRun:
        """One run: the report (raw_prefix.json) is on disk before it is parsed, beside
        the template that wrote it (.tmpl) and the command line and stderr (.log). A
        ``duration_s`` under bombardier's 1 s minimum runs 1 s."""
        request = single_request(plan)
        url = require_allowed("host", host) + request.path
        seconds = max(MIN_DURATION_S, self.load.duration_s if duration_s is None else duration_s)
        raw_prefix.parent.mkdir(parents=True, exist_ok=True)
        template = raw_prefix.with_name(raw_prefix.name + ".tmpl")
        template.write_text(REPORT_TEMPLATE)
        raw_path = raw_prefix.with_name(raw_prefix.name + ".json")
        log = raw_prefix.with_name(raw_prefix.name + ".log")
        argv = bombardier_command(url, request, self.load, seconds, template)
        deadline = seconds + ATTEMPTS * self.load.timeout_s + DEADLINE_GRACE_S
        finished = run_to_files(argv, log, raw_path, cpus, deadline)
        # Its own errors (a flag it refuses) go to stdout; a Go panic to stderr.
        said = raw_path if raw_path.exists() and raw_path.stat().st_size else log
        require_exit(finished, "bombardier", said, BombardierError)
        measured = parse_bombardier_json(raw_path.read_text(errors="replace"))
        return ToolRun(measured, finished.wall_s, finished.client_cpu_s, raw_path)


def _counts(connections: object) -> list[int]:
    values = [connections] if isinstance(connections, int) else as_list("connections", connections)
    return [require_int("connections", value, 1) for value in values]


def loads(connections: object, duration: object, timeout: object = "2s") -> list[Bombardier]:
    """One bombardier load per connection count: ``connections`` is 50, [10, 100] or
    "10,100"; ``duration`` and ``timeout`` as '10s', '500ms' or seconds."""
    return [
        Bombardier(BombardierLoad.from_params(count, duration, timeout))
        for count in _counts(connections)
    ]


def calibration_loads(duration: object, connections: object = 50) -> list[Bombardier]:
    """bombardier at full speed (no pause between requests) for notebook 00."""
    return loads(connections, duration)


TOOL = ToolEntry(
    name="bombardier",
    make=loads,
    version=bombardier_version,
    installed=bombardier_path,
    pinned=VersionPin("servers/go/tools/go.mod", "github.com/codesenberg/bombardier"),
    capabilities=Capabilities(),
    calibration=Calibration(
        server="go-hello", loads=calibration_loads, defaults={"connections": 50}
    ),
    about="closed loop, one fixed request, Go on fasthttp (bombardier v1.2.6)",
)
