"""A notebook's parameters cell: the names it takes, their defaults, and what each accepts.

A re-runner types parameters on a command line (``-p ids '[9, 12345]'``, ``make run
P="ids=[9,5]"``) or in a profile. Papermill accepts any name and passes strings through,
so a typo silently runs the defaults and a list arrives as a string. Here values are
typed like YAML, every name is checked against the notebook that receives it, and every
value against the type of that parameter's default, before any kernel starts.
"""

import ast
import difflib
import shlex
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from benchbook.runs.durations import parse_duration

PARAMETERS_TAG = "parameters"
# The switch of a notebook's first cell: true runs the article's own settings, which the
# cell after the parameters cell assigns.
ARTICLE_SWITCH = "article_settings"


@dataclass(frozen=True)
class Parameter:
    name: str
    default: object
    comment: str

    def expected(self) -> str:
        """What the parameter accepts, in words."""
        return _describe(self.default)


def _describe(default: object) -> str:
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "a whole number"
    if isinstance(default, float):
        return "a number"
    if isinstance(default, str):
        return "a duration (e.g. '5s', '2m' or 30)" if _is_duration(default) else "text"
    if isinstance(default, list | tuple):
        kinds = {_describe(item) for item in default}
        if len(kinds) == 1:
            return "a list of " + _plural(kinds.pop())
        return "a list"
    if isinstance(default, dict):
        return "a mapping"
    return "any value"


def _plural(kind: str) -> str:
    return {
        "a whole number": "whole numbers",
        "a number": "numbers",
        "text": "texts",
        "true or false": "true/false values",
    }.get(kind, kind)


def notebook_parameters(notebook: Path) -> dict[str, Parameter]:
    """The assignments of the cell tagged ``parameters``, with their literal defaults."""
    nb = nbformat.read(notebook, as_version=4)
    cell = next(
        (c for c in nb.cells if PARAMETERS_TAG in c.get("metadata", {}).get("tags", [])), None
    )
    if cell is None:
        return {}
    lines = cell.source.splitlines()
    found = {}
    for node in ast.parse(cell.source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                try:
                    default = ast.literal_eval(node.value)
                except ValueError:
                    default = None  # computed from other parameters: accept anything
                line = lines[node.lineno - 1]
                comment = line.split("#", 1)[1].strip() if "#" in line else ""
                found[target.id] = Parameter(target.id, default, comment)
    return found


def article_names(notebook: Path) -> set[str]:
    """The names the cell after the parameters cell sets when ``article_settings`` is true
    (``if article_settings: duration, warmup = "5m", "10s"``)."""
    cells = nbformat.read(notebook, as_version=4).cells
    tagged = [
        i for i, c in enumerate(cells) if PARAMETERS_TAG in c.get("metadata", {}).get("tags", [])
    ]
    following = [c for c in cells[tagged[0] + 1 :] if c.cell_type == "code"][:1] if tagged else []
    names: set[str] = set()
    for node in ast.walk(ast.parse(following[0].source)) if following else ():
        if isinstance(node, ast.If) and ast.unparse(node.test) == ARTICLE_SWITCH:
            for assigned in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                if isinstance(assigned, ast.Name) and isinstance(assigned.ctx, ast.Store):
                    names.add(assigned.id)
    return names


def type_value(text: str) -> object:
    """A command-line value typed like YAML ('5' → 5, '[9, 5]' → a list, 'true' → True),
    plus papermill's spellings True/False/None."""
    if text in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[text]
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def assignments(text: str) -> dict[str, object]:
    """``make run P="connections=50 ids=[9, 5]"``: NAME=VALUE items separated by spaces;
    a piece without '=' continues the value before it, so lists may contain spaces."""
    items: list[str] = []
    for token in shlex.split(text):
        if "=" in token or not items:
            items.append(token)
        else:
            items[-1] += " " + token
    values = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f'P: {item!r} is not NAME=VALUE (e.g. P="connections=50")')
        values[name.strip()] = type_value(value)
    return values


def check_value(parameter: Parameter, value: object) -> object:
    """``value`` if it fits the parameter's default; a comma-separated text becomes a
    list for list parameters ('-p servers a,b'); anything else is a ValueError."""
    default = parameter.default
    if default is None:
        return value
    if isinstance(default, list | tuple):
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            value = [type_value(part.strip()) for part in str(value).split(",") if part.strip()]
        if not isinstance(value, list | tuple):
            raise ValueError(_mismatch(parameter, value))
        kinds = {_describe(item) for item in default}
        if len(kinds) == 1:
            sample = default[0]
            for item in value:
                if not _fits(sample, item):
                    raise ValueError(_mismatch(parameter, value, item))
        return list(value)
    if not _fits(default, value):
        raise ValueError(_mismatch(parameter, value))
    if _is_duration(default):
        parse_duration(parameter.name, value, allow_zero=True)
    return value


def _is_duration(default: object) -> bool:
    """A text default such as '30s' or '5m' marks a duration parameter."""
    if not isinstance(default, str):
        return False
    try:
        parse_duration("default", default, allow_zero=True)
    except ValueError:
        return False
    return True


def _fits(default: object, value: object) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if isinstance(default, int):
        return isinstance(value, int)
    if isinstance(default, float):
        return isinstance(value, int | float)
    if isinstance(default, str):  # a duration may be a number of seconds
        return isinstance(value, str) or _is_duration(default) and isinstance(value, int | float)
    if isinstance(default, dict):
        return isinstance(value, dict)
    return True


def _kind(value: object) -> str:
    names = {bool: "true/false", int: "a whole number", float: "a number", str: "a text",
             list: "a list", dict: "a mapping", type(None): "nothing (None)"}  # fmt: skip
    return names.get(type(value), type(value).__name__)


def _mismatch(parameter: Parameter, value: object, item: object = None) -> str:
    got = f"{_kind(value)} ({value!r})"
    if item is not None:
        got = f"{got}, whose item {item!r} is {_kind(item)}"
    return (
        f"{parameter.name}: expected {parameter.expected()}, got {got}; "
        f"its default is {parameter.default!r}"
    )


def unknown_name_message(name: str, notebook: Path, known: dict[str, Parameter]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{name}: not a parameter of {notebook}{hint}; its parameters: {', '.join(known)}"


def checked_parameters(
    notebook: Path,
    profile_values: dict[str, object],
    overrides: dict[str, object],
    profile_name: str = "profile",
) -> dict[str, object]:
    """The values to inject: the notebook's profile values, then the overrides, every name
    and value checked against the notebook's parameters cell."""
    known = notebook_parameters(notebook)
    problems = []
    values: dict[str, object] = {}
    for name, value in profile_values.items():
        if name not in known:
            problems.append(f"{profile_name}: {unknown_name_message(name, notebook, known)}")
            continue
        values[name] = value
    for name, value in overrides.items():
        if name not in known:
            problems.append(unknown_name_message(name, notebook, known))
            continue
        values[name] = value
    for name, value in list(values.items()):
        try:
            values[name] = check_value(known[name], value)
        except ValueError as error:
            problems.append(str(error))
    if values.get(ARTICLE_SWITCH) is True:
        fixed = article_names(notebook)
        problems += [
            f"{name}: with article_settings true, the article's own settings replace it "
            f"(they set {', '.join(sorted(fixed))}); drop this override or set "
            "article_settings false"
            for name in sorted(fixed & set(overrides))
        ]
    if problems:
        raise ValueError("\n".join(problems))
    return values
