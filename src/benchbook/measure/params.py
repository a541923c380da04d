"""Validation of experiment parameters, done before any process starts.

Every error is a ``SettingError`` (a ``ValueError``) that names the parameter, the value
given and what would have been accepted, because the reader of the message is usually
someone who typed ``-p duration 5x`` on a command line; ``measure.run`` adds the name of
the experiment whose description holds it. Durations are read by benchbook.runs.durations,
which the analysis shares; its errors follow the same "setting: problem" form.
"""

from collections.abc import Iterable


class SettingError(ValueError):
    """A refused value of one setting; the message starts with the setting's name."""

    def __init__(self, setting: str, problem: str):
        super().__init__(f"{setting}: {problem}")
        self.setting = setting
        self.problem = problem


def require_int(name: str, value: object, minimum: int) -> int:
    """An integer of at least ``minimum`` (papermill passes ints; YAML may pass '4')."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise SettingError(name, f"{value!r} is not a whole number (minimum {minimum})")
    try:
        number = int(value)
    except ValueError:
        raise SettingError(name, f"{value!r} is not a whole number (minimum {minimum})") from None
    if number < minimum:
        raise SettingError(name, f"{number} is below the minimum of {minimum}")
    return number


def as_list(name: str, value: object) -> list[str]:
    """A list of names; a string is split on commas so '-p servers a,b' works."""
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, Iterable):
        items = [str(part) for part in value]
    else:
        raise SettingError(name, f"{value!r} is not a list of names (e.g. ['a', 'b'] or 'a,b')")
    if not items:
        raise SettingError(name, "the list is empty")
    return items


def require_choice(name: str, value: str, choices: Iterable[str], of: str = "") -> str:
    """``value`` if it is one of ``choices`` (``of``: whose choices they are)."""
    valid = sorted(choices)
    if value not in valid:
        whose = f" for {of}" if of else ""
        raise SettingError(name, f"unknown {value!r}{whose}; valid choices: {', '.join(valid)}")
    return value


def counts(name: str, value: object) -> list[int]:
    """One count, or several for a sweep ('-p connections 10,100' or a YAML list)."""
    if isinstance(value, int | str) and "," not in str(value):
        return [require_int(name, value, 1)]
    return [require_int(name, v, 1) for v in as_list(name, value)]
