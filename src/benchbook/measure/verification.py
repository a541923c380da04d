"""What a server must answer, checked: before any load, during it and after it.

Every request of a registry entry is sent as the registry describes it (method, path,
headers, body) and its response compared with what the entry expects (status, content
type, exact or pattern body, JSON fields, headers). Requests on a record (`{id}` in the
path) use records the harness created first through the server's own create request,
so a GET is never measured on an id that does not exist.
"""

import functools
import http.client
import importlib.util
import itertools
import json
import re
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import json_format, message_factory

from benchbook.measure.registry import Expect, Request, ServerSpec
from benchbook.runs.layout import REPO_ROOT

TIMEOUT_S = 5.0
JSON_TYPES: dict[str, Callable[[object], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}
TEMPLATE = re.compile(r"\{(unique|id|record\.\w+|sent\.\w+)\}")


class VerificationError(RuntimeError):
    """A request did not get the response the registry requires."""


@dataclass
class Record:
    """A record a server created: its create response's fields, and what was sent."""

    id: str
    fields: Mapping[str, Any]
    sent: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    body: str
    sent_body: str | None


_counter = itertools.count(1)
_NONCE = secrets.token_hex(4)


def unique_token() -> str:
    """A value no other request of this harness sends: this process's nonce and a count."""
    return f"{_NONCE}-{next(_counter)}"


def render(template: str, record: Record | None = None, unique: str | None = None,
           sent: Mapping[str, Any] | None = None) -> str:  # fmt: skip
    """Fill {unique}, {id}, {record.<field>} and {sent.<field>} into a template."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "unique":
            if unique is None:
                raise ValueError(f"{template!r} needs a unique value")
            return unique
        if name == "id" or name.startswith("record."):
            if record is None:
                raise ValueError(f"{template!r} needs a record (a created id)")
            return record.id if name == "id" else str(record.fields[name.split(".", 1)[1]])
        key = name.split(".", 1)[1]
        if sent is None or key not in sent:
            raise ValueError(f"{template!r}: the request sent no field {key!r}")
        return str(sent[key])

    return TEMPLATE.sub(value, template)


@functools.cache
def _grpc_methods(descriptors: str) -> Any:
    """The descriptor pool of a generated ``*_pb2.py``, loaded by file path."""
    path = REPO_ROOT / descriptors
    module_spec = importlib.util.spec_from_file_location(f"_bb_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.DESCRIPTOR.pool


def send_grpc(port: int, request: Request, body: str | None) -> Response:
    """One unary gRPC call: the request message from JSON, the answer as JSON (its
    fields by their .proto names), the status as the gRPC code (0: OK)."""
    service, method = request.path.rsplit("/", 1)
    descriptor = _grpc_methods(request.grpc.descriptors).FindServiceByName(service)
    call_descriptor = descriptor.FindMethodByName(method)
    request_class = message_factory.GetMessageClass(call_descriptor.input_type)
    response_class = message_factory.GetMessageClass(call_descriptor.output_type)
    message = json_format.Parse(body or "{}", request_class())
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.unary_unary(
            f"/{service}/{method}",
            request_serializer=request_class.SerializeToString,
            response_deserializer=response_class.FromString,
        )
        try:
            answer = call(message, timeout=TIMEOUT_S)
        except grpc.RpcError as error:
            return Response(error.code().value[0], {}, error.details() or "", body)
    text = json_format.MessageToJson(answer, preserving_proto_field_name=True)
    return Response(0, {"content-type": "application/grpc"}, text, body)


def send(port: int, request: Request, record: Record | None = None) -> Response:
    """One request as the registry describes it, on a connection of its own."""
    body = render(request.body, record, unique_token()) if request.body is not None else None
    if request.method == "GRPC":
        try:
            return send_grpc(port, request, body)
        except grpc.RpcError as error:
            raise OSError(f"gRPC call failed: {error}") from None
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
    try:
        conn.request(
            request.method,
            render(request.path, record),
            body=body.encode() if body is not None else None,
            headers=dict(request.headers),
        )
        response = conn.getresponse()
        text = response.read().decode(errors="replace")
        headers = {k.lower(): v for k, v in response.getheaders()}
        return Response(response.status, headers, text, body)
    finally:
        conn.close()


def _sent_fields(body: str | None) -> Mapping[str, Any]:
    try:
        value = json.loads(body) if body else {}
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def problems(request: Request, response: Response, record: Record | None = None) -> list[str]:
    """What is wrong with ``response`` to ``request`` (empty when it is right)."""
    what = f"{request.method} {render(request.path, record)}"
    expect = request.expect
    found = []
    if response.status != expect.status:
        found.append(f"{what}: status {response.status}, expected {expect.status}")
        return found  # the rest would only repeat it
    content_type = response.headers.get("content-type", "")
    if expect.content_type and not content_type.startswith(expect.content_type):
        found.append(f"{what}: Content-Type {content_type!r}, expected {expect.content_type!r}")
    if expect.body is not None and response.body != expect.body:
        found.append(f"{what}: body {response.body[:200]!r}, expected {expect.body!r}")
    if expect.body_pattern is not None and not re.fullmatch(expect.body_pattern, response.body):
        found.append(f"{what}: body {response.body[:200]!r} does not match {expect.body_pattern!r}")
    sent = _sent_fields(response.sent_body)
    for header, template in expect.headers.items():
        wanted = render(template, record, sent=sent)
        got = response.headers.get(header.lower())
        if got != wanted:
            found.append(f"{what}: header {header} {got!r}, expected {wanted!r}")
    if expect.json:
        found += _json_problems(what, expect.json, response.body, record, sent)
    return found


def _json_problems(
    what: str, wanted: Mapping[str, str], body: str, record: Record | None, sent: Mapping
) -> list[str]:
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return [f"{what}: body {body[:200]!r} is not JSON"]
    if not isinstance(value, dict):
        return [f"{what}: JSON {body[:200]!r} is not an object"]
    found = []
    for key, rule in wanted.items():
        if key not in value:
            found.append(f"{what}: JSON has no field {key!r} ({body[:200]!r})")
        elif rule.startswith("type:"):
            if not JSON_TYPES[rule.removeprefix("type:")](value[key]):
                found.append(f"{what}: JSON field {key} = {value[key]!r} is not a {rule[5:]}")
        elif str(value[key]) != render(rule, record, sent=sent):
            found.append(
                f"{what}: JSON field {key} = {value[key]!r}, expected "
                f"{render(rule, record, sent=sent)!r}"
            )
    return found


def create_records(port: int, spec: ServerSpec, n: int) -> list[Record]:
    """``n`` records created through the server's own create request, each checked."""
    if spec.records is None:
        raise VerificationError(f"{spec.name} has no [records]: it cannot create an id")
    create = spec.request(spec.records.create)
    records = []
    for _ in range(n):
        response = send(port, create)
        found = problems(create, response)
        if found:
            raise VerificationError(
                f"{spec.name} could not create a record:\n  " + "\n  ".join(found)
            )
        fields = json.loads(response.body)
        records.append(
            Record(str(fields[spec.records.id_field]), fields, _sent_fields(response.sent_body))
        )
    return records


def request_problems(port: int, request: Request, records: Sequence[Record] = ()) -> list[str]:
    """Send ``request`` once (on its first record when it needs one) and check it."""
    record = records[0] if request.needs_record and records else None
    if request.needs_record and record is None:
        return [f"{request.method} {request.path}: no record was created to send it on"]
    try:
        return problems(request, send(port, request, record), record)
    except OSError as err:
        return [f"{request.method} {request.path}: no response ({err})"]


def ad_hoc_get(path: str) -> Request:
    """A path the registry does not list: a GET that must answer 2xx."""
    return Request(name=f"GET {path}", method="GET", path=path, expect=Expect(status=200))


def path_problems(port: int, path: str) -> list[str]:
    """A GET on a path the registry does not list must at least answer 2xx."""
    try:
        response = send(port, ad_hoc_get(path))
    except OSError as err:
        return [f"GET {path}: no response ({err})"]
    if not 200 <= response.status < 300:
        return [f"GET {path} answered {response.status} ({response.body[:200]!r})"]
    return []


def all_problems(
    port: int,
    spec: ServerSpec,
    paths: Sequence[str] = (),
    records: Sequence[Record] = (),
) -> list[str]:
    """Every registry request and every ad-hoc path, checked once."""
    found = [p for request in spec.requests for p in request_problems(port, request, records)]
    return found + [p for path in paths for p in path_problems(port, path)]


def verify(
    port: int,
    spec: ServerSpec,
    label: str,
    paths: Sequence[str] = (),
    records: Sequence[Record] = (),
) -> None:
    """Every request and path checked before any load: a broken server is never measured."""
    found = all_problems(port, spec, paths, records)
    if found:
        raise VerificationError(
            f"{label} failed verification, so it is not benchmarked:\n  " + "\n  ".join(found)
        )


class ResponseSampler:
    """Checks the loaded request about once a second while a load runs, on a connection
    of its own: a server can pass verification and then serve wrong answers under load.
    Only the first few problems are kept."""

    INTERVAL_S = 1.0
    KEEP = 3

    def __init__(self, check: Callable[[], list[str]], alive: Callable[[], bool]):
        self._check, self._alive = check, alive
        self.checked = 0
        self.problems: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.INTERVAL_S):
            if not self._alive():
                return
            found = self._check()
            self.checked += 1
            if found and len(self.problems) < self.KEEP:
                self.problems.append(f"during the run: {found[0]}")

    def __enter__(self) -> "ResponseSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
