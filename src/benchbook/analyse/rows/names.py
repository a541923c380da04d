"""The names a reader knows for what was measured: "FastAPI (uvloop + httptools)" for the
target "python-iodelay uvloop+httptools", from the registry's titles (servers.toml).
Tables keep the target labels (they match the run's files); answers use these names."""

import re

import pandas as pd

from benchbook.runs.titles import Titles

SETTING = r"(?<!\S)(\w+)=(\S+)"  # a setting is a word of its own, not part of a path


def _as_words(setting: re.Match) -> str:
    """A setting reads as words: 'workers=4' → 'workers 4'."""
    return f"{setting[1].replace('_', ' ')} {setting[2]}"


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
    name = titled(target, server, variant, titles)
    waits = match["server_waits"] if "server_waits" in match else []
    waited = next((w for w in waits if isinstance(w, str) and w), "")
    declared = server in titles.servers and titles.servers[server].waits is not None
    title = titles.title(server, variant) if server in titles.servers else ""
    if declared and waited and title and name.startswith(title):
        return f"{title} with {waited}{name[len(title) :]}"  # '… with a 1 ms sleep (A/A copy)'
    return name


def titled(
    target: str, server: str, variant: str | None = None, titles: Titles | None = None
) -> str:
    """The server and variant by their title, then what else the label says (a request,
    a setting, "(A/A copy)"). Without ``variant``, the variant the label names, if any.
    The label itself when ``server`` is not in the registry or the label not its own."""
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
    rest = re.sub(SETTING, _as_words, rest).strip()
    if not rest:
        return title
    return f"{title} {rest}" if rest.startswith("(") else f"{title}, {rest}"


def named(target: str, titles: Titles | None = None) -> str:
    """A target label alone named as a reader knows it (``titled``, its server the label's
    first word): for a label that reaches a sentence without its rows, e.g. as a column."""
    return titled(target, target.split(" ", 1)[0], titles=titles)


def language(target: str, titles: Titles | None = None) -> str:
    """The language of the server a target label starts with ('' if none is named)."""
    titles = titles or Titles.load()
    server = target.split(" ", 1)[0]
    return titles.servers[server].language if server in titles.servers else ""
