"""One measurement at a time per machine: a file lock held for a whole experiment.

Two experiments at once (``make -j``, or a ``make run`` beside a ``make report``) would
put two loads on the same pinned CPUs and corrupt both without a trace in either. The
second one waits, saying which run holds the machine, or stops with that message.

It lives with the run format because both sides of it hold the lock: measure while it
measures or profiles, store while it packs finished runs (store imports nothing of
measure).
"""

import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

# One path for every benchbook checkout on the machine (BENCHBOOK_LOCK_PATH overrides it,
# for tests of the lock itself: they must not wait on a real run, nor hold it up).
LOCK_PATH = Path(tempfile.gettempdir()) / "benchbook-measuring.lock"
# How long a run waits for the machine (BENCHBOOK_LOCK_WAIT_S overrides; 0: stop at once).
DEFAULT_WAIT_S = 2 * 3600.0
ANNOUNCE_EVERY_S = 60.0


class MachineBusy(RuntimeError):
    """Another benchbook run holds the machine."""


class HeldLock:
    """The lock while held: says which run holds it, for anyone who has to wait."""

    def __init__(self, file: IO[str], experiment: str):
        self._file = file
        self._holder = {
            "pid": os.getpid(),
            "experiment": experiment,
            "since_utc": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        self._write()

    def name_run(self, run_id: str) -> None:
        self._holder["run_id"] = run_id
        self._write()

    def _write(self) -> None:
        self._file.seek(0)
        self._file.truncate()
        self._file.write(json.dumps(self._holder))
        self._file.flush()


def describe_holder(text: str) -> str:
    try:
        holder = json.loads(text)
    except json.JSONDecodeError:
        return "another benchbook run (it has not said which yet)"
    what = f"run {holder['run_id']}" if "run_id" in holder else f"a {holder['experiment']} run"
    return f"{what} (pid {holder['pid']}, measuring since {holder['since_utc']})"


def wait_limit_s() -> float:
    text = os.environ.get("BENCHBOOK_LOCK_WAIT_S")
    if text is None:
        return DEFAULT_WAIT_S
    try:
        return max(0.0, float(text))
    except ValueError:
        raise ValueError(
            f"BENCHBOOK_LOCK_WAIT_S: {text!r} is not a number of seconds (0: do not wait)"
        ) from None


def lock_path() -> Path:
    return Path(os.environ.get("BENCHBOOK_LOCK_PATH") or LOCK_PATH)


@contextmanager
def machine_lock(experiment: str, path: Path | None = None) -> Iterator[HeldLock]:
    """Hold the machine for one experiment; wait (up to BENCHBOOK_LOCK_WAIT_S) while
    another run holds it. The kernel releases the lock if this process dies."""
    limit_s = wait_limit_s()
    fd = os.open(path or lock_path(), os.O_RDWR | os.O_CREAT, 0o666)
    with os.fdopen(fd, "r+") as file:
        started = time.monotonic()
        announced = -ANNOUNCE_EVERY_S
        while True:
            try:
                fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                file.seek(0)
                holder = describe_holder(file.read())
                waited = time.monotonic() - started
                if waited >= limit_s:
                    raise MachineBusy(
                        f"{experiment}: this machine is busy measuring {holder}. Two "
                        "experiments at once would share the pinned CPUs and corrupt both; "
                        f"waited {waited:.0f} s (BENCHBOOK_LOCK_WAIT_S={limit_s:g}). Run it "
                        "again when that run has finished."
                    ) from None
                if waited - announced >= ANNOUNCE_EVERY_S:
                    print(f"{experiment}: waiting for {holder} to finish", flush=True)
                    announced = waited
                time.sleep(0.5)
        try:
            yield HeldLock(file, experiment)
        finally:
            file.seek(0)
            file.truncate()
            fcntl.flock(file, fcntl.LOCK_UN)
