"""Every headline's sessions at once: for each experiment, its newest session's first
target against each other target (as a notebook's headlines compare them), the spread of
that comparison over every session and the model of them. The store's checks and its
benchmark run this over the whole runs folder, through folders and through the store."""

import json
from dataclasses import asdict
from functools import partial

from benchbook.analyse.numbers.pairing import comparison
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.sessions.estimate import estimates_version
from benchbook.analyse.sessions.replication import Replication, replication, spread
from benchbook.store.sessions import SessionSource, StoredSession

Key = tuple[str, str, str]  # experiment, a, b


def experiments(source: SessionSource) -> list[str]:
    """The experiments with stored runs, by name."""
    return sorted({str(m.get("experiment")) for m in source.manifests() if m.get("experiment")})


def shapes(source: SessionSource, experiment: str) -> list[tuple[str, dict]]:
    """Each session's columns and targets (by run id, oldest first), as the store keeps
    them: which comparisons a sweep makes, without reading any session's rows again."""
    return source.estimates(experiment, "shape", estimates_version(), _shape)


def _shape(run: StoredSession) -> dict:
    targets = list(dict.fromkeys(run.rows["target"])) if "target" in run.rows else []
    return {"columns": [str(c) for c in run.rows.columns], "targets": targets}


def pairs(source: SessionSource, experiment: str) -> list[tuple[str, str]]:
    """The newest session's first target against each of its other targets."""
    found = shapes(source, experiment)
    targets = found[-1][1]["targets"] if found else []
    return [(targets[0], other) for other in targets[1:]]


def newest_comparison(source: SessionSource, experiment: str, a: str, b: str) -> Comparison | None:
    """The newest session's comparison of ``a`` and ``b`` (requests per second), as the
    store keeps each session's."""
    key = json.dumps(["comparison", a, b, "rps"])
    found = source.estimates(experiment, key, estimates_version(), partial(_comparison, a=a, b=b))
    if not found or found[-1][1] is None:
        return None
    return Comparison(**found[-1][1])


def _comparison(run: StoredSession, a: str, b: str) -> dict | None:
    c = comparison(valid_rows(run.rows), a, b, "rps")
    return None if c is None else asdict(c)


def every_headline(
    source: SessionSource, only: list[str] | None = None
) -> dict[Key, tuple[list[dict], Replication]]:
    """Each comparison's spread (the newest session as the current one) and its model."""
    found = {}
    for experiment in only or experiments(source):
        newest = shapes(source, experiment)[-1:]
        for a, b in pairs(source, experiment):
            rows = spread(experiment, a, b, current={newest[0][0]}, source=source)
            found[(experiment, a, b)] = (
                rows,
                replication(newest_comparison(source, experiment, a, b), rows),
            )
    return found
