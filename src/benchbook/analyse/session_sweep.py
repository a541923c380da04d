"""Every headline's sessions at once: for each experiment, its newest session's first
target against each other target (as a notebook's headlines compare them), the spread of
that comparison over every session and the model of them. The store's checks and its
benchmark run this over the whole runs folder, through folders and through the store."""

from benchbook.analyse.pairing import comparison
from benchbook.analyse.replication import Replication, replication, spread
from benchbook.analyse.tables import valid_rows
from benchbook.store.sessions import SessionSource

Key = tuple[str, str, str]  # experiment, a, b


def experiments(source: SessionSource) -> list[str]:
    """The experiments with stored runs, by name."""
    return sorted({str(m.get("experiment")) for m in source.manifests() if m.get("experiment")})


def pairs(source: SessionSource, experiment: str) -> list[tuple[str, str]]:
    """The newest session's first target against each of its other targets."""
    sessions = source.sessions(experiment)
    if not sessions or "target" not in sessions[-1].rows:
        return []
    targets = list(dict.fromkeys(sessions[-1].rows["target"]))
    return [(targets[0], other) for other in targets[1:]]


def every_headline(
    source: SessionSource, only: list[str] | None = None
) -> dict[Key, tuple[list[dict], Replication]]:
    """Each comparison's spread (the newest session as the current one) and its model."""
    found = {}
    for experiment in only or experiments(source):
        sessions = source.sessions(experiment)
        for a, b in pairs(source, experiment):
            current = {sessions[-1].run_id}
            rows = spread(experiment, a, b, current=current, source=source)
            c = comparison(valid_rows(sessions[-1].rows), a, b, "rps")
            found[(experiment, a, b)] = (rows, replication(c, rows))
    return found
