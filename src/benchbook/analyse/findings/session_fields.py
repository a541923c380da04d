"""A headline's fields from its sessions (sessions.replication): the model of this class's
sessions, the other classes, and what another session on this machine and another machine of
this class should give."""

from dataclasses import asdict

from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.sessions.replication import Replication
from benchbook.analyse.words.sessions import another_machine as machine_words
from benchbook.analyse.words.sessions import another_session as session_words
from benchbook.analyse.words.sessions import sessions_basis, sessions_text


def sessions_fields(sessions: Replication, c: Comparison | None, column: str, unit: str) -> dict:
    """A headline's model of its sessions on this machine class, the other classes, and
    what another machine of the class should give (ranked where this session's comparison
    ``c`` is significant, as its answer ranks it)."""
    pooled, predicted = sessions.pooled, sessions.predicted  # predicted: borrowed below 3
    return {
        "machine_class": sessions.machine_class,
        "sessions": sessions.sessions,
        "sessions_text": sessions_text(sessions),
        "sessions_basis": "" if pooled else sessions_basis(sessions),
        "pooled_ratio": pooled.estimate if pooled else None,
        "pooled_low": pooled.low if pooled else None,
        "pooled_high": pooled.high if pooled else None,
        "pooled_tau": pooled.tau if pooled else None,
        "predict_low": predicted.predict_low if predicted else None,
        "predict_high": predicted.predict_high if predicted else None,
        "held_out": [asdict(h) for h in sessions.held_out],
        "held_out_elsewhere": [asdict(h) for h in sessions.held_out_elsewhere],
        "other_classes": [asdict(o) for o in sessions.others],
    } | _machine_fields(sessions, bool(c and sessions.significant(c)), column, unit)


def _machine_fields(sessions: Replication, ranked: bool, column: str, unit: str) -> dict:
    """What another session on this machine and another machine of this class should give
    (sessions.machines), in words and figures, and their checks: each session of a machine
    judged by that machine's others, each machine by the class's others."""
    statement, here = sessions.another_machine, sessions.another_session
    return {
        "another_session": session_words(sessions, ranked, column, unit),
        "session_low": here.model.predict_low if here else None,
        "session_high": here.model.predict_high if here else None,
        "held_out_on_machines": [asdict(h) for h in sessions.held_out_on_machines],
        "another_machine": machine_words(sessions, ranked, column, unit),
        "machine_low": statement.low if statement else None,
        "machine_high": statement.high if statement else None,
        "machines": statement.machines if statement else 0,
        "machines_held_out": [asdict(h) for h in sessions.machines_held_out],
    }
