"""The names a reader knows for what was measured: "FastAPI (uvloop + httptools)" for the
target "python-iodelay uvloop+httptools", from the registry's titles (servers.toml).
Answers and tables use these names; the run's files and code keep the target labels."""

import re
from collections.abc import Iterable, Mapping

import pandas as pd

from benchbook.runs.labels import AA_COPY
from benchbook.runs.titles import Titles

SETTING = re.compile(r"(\w+)=(\S+)")  # a setting, 'workers=4'
MIX = re.compile(r"mix((?: \w+:\d+)+)")  # a request mix, 'mix create:5 get:4'
REQUEST = re.compile(r"[a-z][a-z-]*")  # a request the registry names, 'get'


def _as_words(word: str) -> str:
    """One word of a label as a reader says it: 'workers=4' → '4 workers', 'get' → 'get
    requests'; a path or an operation ('/cc/9', 'Ops/http/HealthCheck') as it is."""
    if setting := SETTING.fullmatch(word):
        name, value = setting[1].replace("_", " "), setting[2]
        if value.isdigit() and name.endswith("s"):  # '1 worker', '4 workers'
            return f"{value} {name[:-1] if value == '1' else name}"
        return f"{name} {value}"
    return f"{word} requests" if REQUEST.fullmatch(word) else word


def _extras(rest: str) -> list[str]:
    """What a label says besides its server and variant, each as words: a request mix
    ('create:get:redirect 5:4:4 mix'), then one entry per word, 'A/A copy' last."""
    extras, copy = [], AA_COPY in rest
    rest = rest.replace(AA_COPY, " ")
    if mix := MIX.search(rest):
        names, shares = zip(*(pair.split(":") for pair in mix[1].split()), strict=True)
        extras.append(f"{':'.join(names)} mix {':'.join(shares)}")
        rest = rest[: mix.start()] + rest[mix.end() :]
    extras += [_as_words(word) for word in rest.split()]
    return extras + ["A/A copy"] * copy


def reader_name(rows: pd.DataFrame, target: str, titles: Titles | None = None) -> str:
    """``target`` named by its rows' server and variant (see ``titled``); the label itself
    when its rows name no server (e.g. a target a notebook composed from its columns).
    A server whose every request waits (its registry entry's own ``waits``: the 1 ms sleep
    servers) says so after its title, "Go net/http with a 1 ms sleep", since its hello-world
    namesake is "Go net/http": one name means one server wherever it appears."""
    if "server" not in rows or "target" not in rows:
        return target
    match = rows[rows["target"] == target]
    if match.empty:
        return target
    titles = titles or Titles.load()
    server = str(match["server"].iloc[0])
    variant = match["variant"].iloc[0] if "variant" in match else ""
    variant = variant if isinstance(variant, str) and variant else None
    waits = match["server_waits"] if "server_waits" in match else []
    waited = next((w for w in waits if isinstance(w, str) and w), "")
    declared = server in titles.servers and titles.servers[server].waits is not None
    return titled(target, server, variant, titles, waits=waited if declared else "")


def titled(
    target: str,
    server: str,
    variant: str | None = None,
    titles: Titles | None = None,
    waits: str = "",
) -> str:
    """The server and variant by their title, what it ``waits`` ('with a 1 ms sleep'), then
    in parentheses what else the label says: "aiohttp + Redis (gunicorn, 4 workers, get
    requests)", "Go net/http with a 1 ms sleep (A/A copy)". Without ``variant``, the variant
    the label names, if any. The label itself when ``server`` is not in the registry or
    the label not its own."""
    titles = titles or Titles.load()
    if server not in titles.servers or not target.startswith(server):
        return target
    rest = target[len(server) :].strip()
    if variant is None:
        named = [
            v for v in titles.servers[server].variants if rest == v or rest.startswith(f"{v} ")
        ]
        variant = max(named, key=len, default=None)
    if variant:
        if not rest.startswith(variant):
            return target
        rest = rest[len(variant) :].strip()
    title = titles.title(server, variant)
    extras = _extras(rest)
    if waits:
        title = f"{title} with {waits}"
    elif extras and title.endswith(")"):  # one parenthesis: "(gunicorn, 4 workers)"
        return f"{title[:-1]}, {', '.join(extras)})"
    return f"{title} ({', '.join(extras)})" if extras else title


def named(target: str, titles: Titles | None = None) -> str:
    """A target label alone named as a reader knows it (``titled``, its server the label's
    first word): for a label that reaches a sentence without its rows, e.g. as a column."""
    return titled(target, target.split(" ", 1)[0], titles=titles)


def language(target: str, titles: Titles | None = None) -> str:
    """The language of the server a target label starts with ('' if none is named)."""
    titles = titles or Titles.load()
    server = target.split(" ", 1)[0]
    return titles.servers[server].language if server in titles.servers else ""


def distinct_names(
    labels: Iterable[object], rows: pd.DataFrame | None = None, titles: Titles | None = None
) -> dict[str, str]:
    """Each of ``labels`` that names a registered server (a target, or a server's id) by
    the name a reader knows: a target of ``rows`` by ``reader_name``, a server's id with
    one target there by that target's name, any other by ``titled`` with the wait its
    server's rows record. Labels of different things whose names would be one (the
    hello-world and the 1 ms sleep Go servers, named without their rows) keep their
    labels: one name means one server. Only the labels that change are returned."""
    titles = titles or Titles.load()
    rows = rows if rows is not None else pd.DataFrame()
    found: dict[str, tuple[str, str]] = {}  # label → (name, the target it stands for)
    for label in dict.fromkeys(x for x in labels if isinstance(x, str)):
        server = label.split(" ", 1)[0]
        if server in titles.servers:
            found[label] = _name_of(label, server, rows, titles)
    named_as: dict[str, set[str]] = {}
    for name, target in found.values():
        named_as.setdefault(name, set()).add(target)
    return {
        label: name
        for label, (name, _) in found.items()
        if name != label and len(named_as[name]) == 1
    }


def _name_of(label: str, server: str, rows: pd.DataFrame, titles: Titles) -> tuple[str, str]:
    """(``label``'s name, the target it stands for): see ``distinct_names``."""
    if "target" in rows and label in set(rows["target"]):
        return reader_name(rows, label, titles), label
    mine = rows[rows["server"] == server] if {"server", "target"} <= set(rows) else rows[:0]
    targets = list(dict.fromkeys(mine["target"])) if "target" in mine else []
    if label == server and len(targets) == 1:
        return reader_name(rows, targets[0], titles), targets[0]
    waits = mine["server_waits"] if "server_waits" in mine else []
    waited = next((w for w in waits if isinstance(w, str) and w), "")
    declared = titles.servers[server].waits is not None
    return titled(label, server, titles=titles, waits=waited if declared else ""), label


def renamed(text: object, names: Mapping[str, str]) -> object:
    """``text`` with each label of ``names`` in it by its name: 'here go-hello' → 'here Go
    net/http', a ratio's 'go-hello/python-hello' → 'Go net/http / FastAPI (uvicorn's
    defaults)'. Anything but text, and a label inside a path, as it is."""
    if not isinstance(text, str) or not names:
        return text
    labels = "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
    if ratio := re.fullmatch(f"({labels})/({labels})", text):
        return f"{names[ratio[1]]} / {names[ratio[2]]}"
    return re.sub(rf"(?<![\w/.-])({labels})(?![\w/-])", lambda m: names[m[1]], text)
