"""The ad-hoc GET paths a server declares it serves (servers.toml's ``load_paths``), so
a path asking for an id the server does not hold is refused before anything starts,
not by verification after the build."""

import re
from collections.abc import Mapping
from dataclasses import dataclass

from benchbook.measure.params import SettingError


@dataclass(frozen=True)
class LoadPaths:
    """Path templates (``/sc/{id}``) and the first and last id the server holds."""

    templates: tuple[str, ...]
    ids: tuple[int, int]  # the first and last id

    def check(self, server: str, path: str) -> None:
        route = path.split("?", 1)[0]
        for template in self.templates:
            pattern = re.escape(template).replace(re.escape("{id}"), "(?P<id>[^/]+)")
            if match := re.fullmatch(pattern, route):
                given, (first, last) = match.group("id"), self.ids
                if not given.isdigit() or not first <= int(given) <= last:
                    raise SettingError(
                        "paths",
                        f"{path!r} asks {server} for id {given!r}, which it does not have; "
                        f"its ids are {first} to {last}",
                    )
                return
        raise SettingError(
            "paths",
            f"{path!r} is not a path {server} serves; its paths: {', '.join(self.templates)}",
        )

    @classmethod
    def from_entry(cls, entry: Mapping | None) -> "LoadPaths | None":
        if entry is None:
            return None
        return cls(tuple(entry["templates"]), (entry["ids"]["min"], entry["ids"]["max"]))


def checked_path(server: str, declared: LoadPaths | None, path: str) -> str:
    """An ad-hoc path of ``server``, checked against the paths it declares (None: any
    path; verification then checks it answers)."""
    if not path.startswith("/"):
        raise SettingError("paths", f"{path!r} must start with '/', e.g. '/cc/9'")
    if declared is not None:
        declared.check(server, path)
    return path
