"""Durations as parameters are written ('10s', '5m', '250ms' or seconds): a notebook's
parameters and a run's stored description are read with the same rule that checked them."""

import re

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(name: str, value: object, allow_zero: bool = False) -> float:
    """Seconds from '10s', '5m', '1.5s', '250ms' or a bare number of seconds; a
    ``ValueError`` naming the parameter ``name`` otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"{name}: {value!r} is not a duration; use e.g. '10s', '5m' or 30")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value))
        if not match:
            raise ValueError(
                f"{name}: {value!r} is not a duration; use a number with an optional unit "
                f"ms, s, m or h, e.g. '10s', '5m' or 30"
            )
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2) or "s"]
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise ValueError(f"{name}: {value!r} must be longer than zero")
    return seconds
