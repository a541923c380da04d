"""A class's results side by side (course.class_results, class_import, class_headlines,
class_page): students' session files made
from committed runs (data/runs/, read only) import into their own runs folders under
tmp_path, the table's numbers are the medians results.csv gives, a bad file is listed
while the others are shown, and the notebooks' declared headlines still find their
sides in the newest committed runs. No servers."""

import io
import math
import tarfile
from fnmatch import fnmatch
from pathlib import Path

import pandas as pd
import pytest

from benchbook.analyse.rows.counted import valid_rows, without_controls
from benchbook.course.__main__ import main
from benchbook.course.class_headlines import HEADLINES, headline_ratio
from benchbook.course.class_import import MARKER, import_class, student_name
from benchbook.course.class_results import (
    MISSING,
    SPREAD,
    class_results,
    exercise_titles,
    spread,
    target_medians,
)
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.store import Run, RunStore
from benchbook.store.session_checks import SessionFileError
from benchbook.store.session_file import export_session
from benchbook.store.sessions import StoredSession

RUNS = REPO_ROOT / "data" / "runs"
GO, FASTAPI = "go-iodelay", "python-iodelay uvloop+httptools"


def finished(experiment: str) -> list[Run]:
    """The committed finished runs of ``experiment`` with rows, newest first."""
    return [r for r in RunStore(RUNS).runs(experiment) if r.has_results and r.completed]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """alice: the newest 01_io_concurrency run and the newest 02_hello_world_wrk run;
    bob: the 01_io_concurrency run before it (no 02: his column shows '–' there)."""
    loop, hello = finished("01_io_concurrency"), finished("02_hello_world_wrk")
    folder = tmp_path_factory.mktemp("files")
    return {
        "alice": export_session(
            RUNS, [loop[0].run_id, hello[0].run_id], folder / "alice.session.tar"
        ),
        "bob": export_session(RUNS, [loop[1].run_id], folder / "bob.session.tar"),
    }


def expected_medians(run: Run, tool: str = "wrk") -> dict[str, float]:
    """Recomputed from results.csv: each target's median rps over its valid rounds of
    ``tool``."""
    rows = without_controls(valid_rows(pd.read_csv(run.results_path)))
    return rows[rows["tool"] == tool].groupby("target")["rps"].median().to_dict()


def row_of(table: pd.DataFrame, experiment: str, measured_prefix: str) -> pd.Series:
    found = table[
        (table["experiment"] == experiment) & table["measured"].str.startswith(measured_prefix)
    ]
    assert len(found) == 1, found
    return found.iloc[0]


def test_students_side_by_side_with_the_medians_of_their_runs(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "class"
    assert main(["class", str(files["alice"]), str(files["bob"]), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| laptop | alice | bob | spread (max/min) |" in printed
    assert (out / "index.html").exists() and (out / "medians.csv").exists()
    for name in ("alice", "bob"):
        assert (out / "runs" / name / MARKER).exists()
    assert not list(RUNS.glob(f"*/{MARKER}"))  # nothing went into data/runs/

    loop, hello = finished("01_io_concurrency"), finished("02_hello_world_wrk")
    results = class_results(*import_class([files["alice"], files["bob"]], tmp_path / "again"))
    medians = results.medians
    for student, run in (("alice", loop[0]), ("bob", loop[1])):
        for target, median in expected_medians(run).items():
            row = row_of(medians, "01_io_concurrency", f"{target} · wrk")
            assert row["median of"] == "req/s"
            assert row[student] == pytest.approx(median, rel=1e-12)
    go = row_of(medians, "01_io_concurrency", f"{GO} · wrk")
    assert go[SPREAD] == pytest.approx(max(go["alice"], go["bob"]) / min(go["alice"], go["bob"]))

    # The headline: the ratio of the two medians, per student.
    headline = results.headlines[
        results.headlines["headline"] == "Go vs FastAPI (uvloop+httptools)"
    ].iloc[0]
    for student, run in (("alice", loop[0]), ("bob", loop[1])):
        medians_of = expected_medians(run)
        assert headline[student] == pytest.approx(medians_of[GO] / medians_of[FASTAPI])

    # bob measured no 02_hello_world_wrk: a missing number, printed as '–'.
    wrk = row_of(medians, "02_hello_world_wrk", "go-hello · wrk")
    assert wrk["alice"] == pytest.approx(expected_medians(hello[0])["go-hello"], rel=1e-12)
    assert math.isnan(wrk["bob"]) and math.isnan(wrk[SPREAD])
    line = next(
        x for x in printed.splitlines() if x.startswith("| 02_hello_world_wrk | go-hello · wrk")
    )
    assert line.endswith(f"| {MISSING} | {MISSING} |")

    # Each column names its laptop's machine, from the run's manifest.
    machine = loop[0].manifest()["provenance"]["machine"]
    laptop = results.machines.set_index("laptop")["alice"]
    assert laptop["machine (CPU model, logical CPUs)"] == (
        f"{machine['cpu_model']}, {machine['logical_cpus']} CPUs"
    )
    assert laptop["runs imported"] == "2"


def truncated(file: Path, name: str) -> Path:
    data = file.read_bytes()
    bad = file.with_name(name)
    bad.write_bytes(data[: len(data) // 2])
    return bad


def corrupted(file: Path, name: str) -> Path:
    """The file with one byte of a results.csv changed: its checksum no longer matches."""
    with tarfile.open(file) as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar]
    bad = file.with_name(name)
    with tarfile.open(bad, "w") as tar:
        for member, data in members:
            if member.name.endswith("results.csv"):
                data = data.replace(b"wrk", b"WRK", 1)
            tar.addfile(member, None if data is None else io.BytesIO(data))
    return bad


def test_bad_files_are_listed_and_the_others_shown(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    carol = truncated(files["bob"], "carol.session.tar")
    dave = corrupted(files["bob"], "dave.session.tar")
    missing = files["bob"].with_name("erin.session.tar")
    out = tmp_path / "class"
    argv = ["class", str(files["alice"]), str(carol), str(dave), str(missing), str(files["bob"])]
    assert main([*argv, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "| laptop | alice | bob | spread (max/min) |" in captured.out
    assert f"refused {carol}: truncated" in captured.err
    assert f"refused {dave}: checksum mismatch" in captured.err
    assert f"refused {missing}: no such file" in captured.err
    assert "## Files refused" in captured.out and str(carol) in captured.out
    page = (out / "index.html").read_text()
    assert "Files refused" in page and "carol.session.tar" in page
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["alice", "bob"]


def test_a_second_import_replaces_the_first_and_nothing_else(
    files: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "class"
    assert [s.name for s in import_class([files["alice"]], out)[0]] == ["alice"]
    assert [s.name for s in import_class([files["alice"]], out)[0]] == ["alice"]  # replaced
    (out / "runs" / "bob").mkdir()  # a folder no class import wrote
    students, refused = import_class([files["bob"]], out)
    assert not students and "no class import wrote it" in refused[0].problem
    assert list((out / "runs" / "bob").iterdir()) == []


def test_out_never_overlaps_the_runs_folder(
    files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["class", str(files["alice"]), "--out", str(REPO_ROOT / "data")]) == 2
    monkeypatch.setenv("BENCHBOOK_RUNS_DIR", str(tmp_path / "here" / "runs"))
    assert main(["class", str(files["alice"]), "--out", str(tmp_path / "here")]) == 2
    assert not (tmp_path / "here").exists()


def test_student_names_come_from_the_file_name() -> None:
    assert student_name(Path("x/alice.session.tar")) == "alice"
    assert student_name(Path("bob.tar")) == "bob"
    assert student_name(Path("s.12-a.session.tar")) == "s.12-a"
    for bad in (".session.tar", "..session.tar", "a b.session.tar"):
        with pytest.raises(SessionFileError, match="rename it"):
            student_name(Path(bad))


def test_spread_is_the_largest_over_the_smallest() -> None:
    assert spread([2.0, None, 3.0, math.nan, 1.5]) == 2.0
    assert math.isnan(spread([2.0, None]))
    assert math.isnan(spread([]))


def test_an_open_loop_sweep_shares_rows_by_the_rank_of_its_rates() -> None:
    """Each laptop offers rates from its own maximum: the same step of each sweep is one
    row (ranked per target), a fixed rate keeps its value."""
    rows = pd.DataFrame(
        {
            "target": ["go"] * 4 + ["py"] * 2 + ["fixed"],
            "tool": "vegeta",
            "tool_setting": "vegeta",
            "target_rate": [100, 200, 100, 200, 10, 20, 1000],
            "rps": [90, 180, 110, 190, 10, 15, 999],
            "flags": "",
        }
    )
    found = target_medians("alice", StoredSession("r", {"experiment": "e"}, rows))
    labels = {(f["target"], f["load"]): f["median"] for f in found}
    assert labels == {
        ("fixed", "1,000 req/s offered"): 999,
        ("go", "offered rate 1 of 2"): 100,
        ("go", "offered rate 2 of 2"): 185,
        ("py", "offered rate 1 of 2"): 10,
        ("py", "offered rate 2 of 2"): 15,
    }


@pytest.mark.parametrize("headline", HEADLINES, ids=lambda h: f"{h.experiment}:{h.label}")
def test_each_declared_headline_finds_its_sides_in_the_newest_committed_run(headline) -> None:
    """A renamed target or a changed select shows here, not as a class's row of '–'."""
    experiments = sorted(
        {r.experiment for r in RunStore(RUNS).runs()} & set(_matching(headline.experiment))
    )
    assert experiments, f"no committed run of {headline.experiment}"
    for experiment in experiments:
        newest = finished(experiment)[0]
        ratio = headline_ratio(headline, newest.results())
        assert ratio is not None and ratio > 0, (experiment, headline.label)


def _matching(pattern: str) -> list[str]:
    names = {p.name.split("-", 1)[1].rsplit("-", 1)[0] for p in RUNS.glob("*-*-*") if p.is_dir()}
    return [n for n in names if fnmatch(n, pattern)]


def test_exercise_runs_are_named_by_their_exercise() -> None:
    """An exercise's run (measuring.run: exercise_<NN>_<name>) is labelled with its title."""
    titles = exercise_titles()
    assert titles["exercise_01_littles_law"] == "Little's law at 10 connections"
