"""A class's session files imported: each student's file (make export-session) into its
own runs folder under ``<out>/runs/<student>/`` with the store's checked import, never
into data/runs/. A file that cannot be imported (truncated, corrupted, not a session
file) is listed with its problem and the others go on: a teacher with 30 files gets the
good ones."""

import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchbook.runs.layout import REPO_ROOT, runs_dir
from benchbook.store.session_checks import SessionFileError
from benchbook.store.session_file import import_session

# Written into each student's runs folder by the import: a later import may replace a
# folder that holds it, and no other.
MARKER = "class-import.txt"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]*")


class OutOverlapsRuns(ValueError):
    """An --out whose runs folder is, holds or lies in the repository's runs folder."""


@dataclass(frozen=True)
class Student:
    """One imported session file: the student's name (the file's), its runs folder and
    the runs it added."""

    name: str
    file: Path
    runs: Path
    run_ids: tuple[str, ...]


@dataclass(frozen=True)
class Refused:
    """A file not imported, and why."""

    file: Path
    problem: str


def student_name(file: Path) -> str:
    """alice.session.tar → alice (bob.tar → bob); a name that is no plain folder name is
    an error that says how to rename the file."""
    name = file.name.removesuffix(".tar").removesuffix(".session")
    if not _NAME.fullmatch(name):
        raise SessionFileError(
            f"cannot name a student from the file name {file.name!r}: rename it "
            "<student>.session.tar (letters, digits, . _ - @ +)"
        )
    return name


def _check_out(runs_root: Path) -> None:
    """The class's runs stay out of the repository's runs folder (data/runs/)."""
    root = runs_root.resolve()
    for store in {runs_dir().resolve(), (REPO_ROOT / "data" / "runs").resolve()}:
        if root == store or store in root.parents or root in store.parents:
            raise OutOverlapsRuns(
                f"{runs_root} is the runs folder's ({store}) or overlaps it: a class is "
                "imported apart from it; choose another --out"
            )


def _clear(folder: Path) -> None:
    """An earlier import's folder of this student removed (only such a folder)."""
    if not folder.exists():
        return
    if not (folder / MARKER).exists():
        raise SessionFileError(
            f"{folder} exists and no class import wrote it: move it away or choose another --out"
        )
    shutil.rmtree(folder)


def import_class(files: Sequence[Path], out: Path) -> tuple[list[Student], list[Refused]]:
    """Each file imported into ``out/runs/<student>/`` (the store's checked import: a
    refused file adds nothing); a file that fails is listed with its problem and the rest
    go on. A student's earlier import under ``out`` is replaced."""
    runs_root = out / "runs"
    _check_out(runs_root)
    students: list[Student] = []
    refused: list[Refused] = []
    seen: dict[str, Path] = {}
    for file in files:
        try:
            name = student_name(file)
            if name in seen:
                raise SessionFileError(f"{seen[name]} already names student {name!r}")
            seen[name] = file
            if not file.is_file():
                raise SessionFileError("no such file")
            folder = runs_root / name
            _clear(folder)
            try:
                run_ids = import_session(file, folder)
            except Exception as error:  # one file the checks did not foresee: listed too
                shutil.rmtree(folder, ignore_errors=True)  # the empty folder the import made
                if isinstance(error, SessionFileError | OSError):
                    raise SessionFileError(str(error)) from None
                raise SessionFileError(
                    f"not importable ({type(error).__name__}: {error})"
                ) from None
            (folder / MARKER).write_text(f"imported from {file.resolve()}\n")
            students.append(Student(name, file, folder, tuple(run_ids)))
        except SessionFileError as error:
            refused.append(Refused(file, str(error)))
    return students, refused
