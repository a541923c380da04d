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
    Where another server of the registry has the same title (Go's hello-world and its 1 ms
    sleep server are both "Go net/http"), the one whose rows waited says what it waits, so
    that a name means one server wherever it appears."""
    if "server" not in rows or "target" not in rows:
        return target
    name = _row_title(rows, target, titles)
    if name is None:
        return target
    titles = titles or Titles.load()
    server = str(rows.loc[rows["target"] == target, "server"].iloc[0])
    own = titles.servers[server].title if server in titles.servers else ""
    shared = own and any(
        other != server and entry.title == own for other, entry in titles.servers.items()
    )
    waits = rows.loc[rows["target"] == target, "server_waits"] if "server_waits" in rows else []
    waited = next((w for w in waits if isinstance(w, str) and w), "")
    variant = rows.loc[rows["target"] == target, "variant"] if "variant" in rows else []
    named_by_variant = any(isinstance(v, str) and v for v in variant)  # its title differs
    if shared and waited and not named_by_variant and name.startswith(own):
        return f"{own} with {waited}{name[len(own) :]}"  # 'Go net/http with … (A/A copy)'
    return name


def _row_title(rows: pd.DataFrame, target: str, titles: Titles | None) -> str | None:
    match = rows[rows["target"] == target]
    if match.empty:
        return None
    variant = match["variant"].iloc[0] if "variant" in match else ""
    variant = variant if isinstance(variant, str) and variant else None
    return titled(target, match["server"].iloc[0], variant, titles)


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
