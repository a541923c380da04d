"""The names a reader knows for what was measured: "FastAPI (uvloop + httptools)" for the
target "python-iodelay uvloop+httptools", from the registry's titles (servers.toml).
Tables keep the target labels (they match the run's files); answers use these names."""

import re

import pandas as pd

from benchbook.measure.registry import Registry

SETTING = r"(\w+)=(\S+)"


def _as_words(setting: re.Match) -> str:
    """A setting reads as words: 'workers=4' → 'workers 4'."""
    return f"{setting[1].replace('_', ' ')} {setting[2]}"


def reader_name(rows: pd.DataFrame, target: str, registry: Registry | None = None) -> str:
    """``target``'s server and variant by their title, followed by what else its label
    says (a request, a setting, "(A/A copy)"); the label itself when its rows name no
    server of the registry (e.g. a target a notebook composed from its columns)."""
    if "server" not in rows or "target" not in rows:
        return target
    match = rows[rows["target"] == target]
    if match.empty:
        return target
    server = match["server"].iloc[0]
    variant = match["variant"].iloc[0] if "variant" in match else ""
    variant = variant if isinstance(variant, str) and variant else None
    registry = registry or Registry.load()
    if server not in registry.servers:
        return target
    prefix = " ".join(part for part in (server, variant) if part)
    if not target.startswith(prefix):
        return target
    title = registry.title(server, variant)
    rest = re.sub(SETTING, _as_words, target[len(prefix) :]).strip()
    if not rest:
        return title
    return f"{title} {rest}" if rest.startswith("(") else f"{title}, {rest}"
