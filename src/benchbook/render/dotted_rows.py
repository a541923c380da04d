"""Nested JSON (a run's manifest, a notebook's parameters) as (dotted.key, text) rows, so
a growing manifest needs no code change, and the rows several of them share."""

import json
from collections.abc import Sequence


def format_value(value: object) -> str:
    """A manifest leaf as text: lists joined with ', ', nested structures as compact JSON."""
    if isinstance(value, list):
        return ", ".join(format_value(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    if value is None:
        return "—"
    return str(value)


def flatten(value: dict, prefix: str = "") -> list[tuple[str, str]]:
    """Nested dicts as (dotted.key, text) rows, so a growing manifest needs no code change."""
    rows: list[tuple[str, str]] = []
    for key, item in value.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item:
            rows += flatten(item, dotted)
        else:
            rows.append((dotted, format_value(item)))
    return rows


def shared_values(rows: Sequence[Sequence[tuple[str, str]]]) -> dict[str, str]:
    """The (key, value) pairs every one of ``rows`` has, identically, in first-seen order."""
    if not rows:
        return {}
    first = dict(rows[0])
    others = [dict(row) for row in rows[1:]]
    return {
        key: value
        for key, value in first.items()
        if all(key in other and other[key] == value for other in others)
    }
