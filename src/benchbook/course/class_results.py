"""A class's results side by side: one column per student's laptop — each its own
machine class — so the class sees how much machines differ (the files imported by
course.class_import, the page written by course.class_page).

Each number is a median over the rounds of the student's newest finished run of an
experiment: per target (at each load level it was measured at), the median of its main
column (requests per second; time per call, ns, for Go benchmarks' calls), valid rounds
only (runs.flags), the A/A control's copy left out. Where a notebook heads with a
comparison (class_headlines: Go vs FastAPI, sequential vs goroutines, …), its ratio of
those medians per student. The last column is the spread across laptops: the largest
value over the smallest. No interval, no pooling: medians and ratios of medians,
labelled as such. A student whose imported runs cannot be read is listed with the files
refused, and the others shown.
"""

import math
import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.rows.counted import valid_rows, without_controls
from benchbook.analyse.sessions.machine_classes import UNRECORDED, machine_records
from benchbook.course.class_headlines import HEADLINES, headline_ratio, quantity
from benchbook.course.class_import import Refused, Student
from benchbook.course.exercises import EXERCISES
from benchbook.store.sessions import FolderSessions, StoredSession

MISSING = "–"  # a student without the experiment, or the target
SPREAD = "spread (max/min)"


@dataclass(frozen=True)
class ClassResults:
    """The class side by side. ``machines``: text, one row per property; ``headlines``
    and ``medians``: numbers (NaN where a student has none), one column per student and
    the spread; ``long``: every median with its run, target and rounds (medians.csv)."""

    students: tuple[Student, ...]
    refused: tuple[Refused, ...]
    machines: pd.DataFrame
    headlines: pd.DataFrame
    medians: pd.DataFrame
    long: pd.DataFrame


def newest_runs(runs: Path) -> dict[str, StoredSession]:
    """The newest finished run of each experiment in ``runs``, by experiment name."""
    source = FolderSessions(runs)
    experiments = sorted({str(m["experiment"]) for m in source.manifests()})
    found = {}
    for experiment in experiments:
        if sessions := source.sessions(experiment):
            found[experiment] = sessions[-1]
    return found


def main_column(rows: pd.DataFrame) -> str:
    """The column a target's rows are compared by: the time per call (ns_per_op) where
    every row has one (a Go benchmark's calls, which run as fast as they can), else
    requests per second."""
    if "ns_per_op" in rows and rows["ns_per_op"].notna().all():
        return "ns_per_op"
    return "rps"


def number(value: object) -> float | None:
    """A cell as a number; None for an empty cell, NaN or text."""
    try:
        found = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(found) else found


def _loads(rows: pd.DataFrame) -> pd.Series:
    """Each row's load level as (kind, value, label), the kind and value for sorting:
    '100 connections', '200 users', '1,000 req/s offered'. A target's offered rates that
    follow each machine's own maximum (an open-loop sweep) go by rank, 'offered rate 2 of
    5', so the same step of every laptop's sweep shares a row."""
    found = pd.Series(index=rows.index, dtype=object)
    for _, group in rows.groupby(["target", "_setting"], sort=False):
        found[group.index] = pd.Series(_target_loads(group), index=group.index)
    return found


def _counted(count: float, noun: str) -> str:
    return f"{count:g} {noun}" + ("" if count == 1 else "s")


def _target_loads(rows: pd.DataFrame) -> list[tuple[int, float, str]]:
    """_loads for the rows of one target and tool setting."""
    rates = sorted({r for r in map(number, rows.get("target_rate", [])) if r is not None})
    found = []
    for _, row in rows.iterrows():
        if (connections := number(row.get("connections"))) is not None:
            found.append((0, connections, _counted(connections, "connection")))
        elif (users := number(row.get("users"))) is not None:
            found.append((1, users, _counted(users, "user")))
        elif (rate := number(row.get("target_rate"))) is not None:
            if len(rates) == 1:
                found.append((2, rate, f"{rate:,g} req/s offered"))
            else:
                rank = rates.index(rate) + 1
                found.append((3, rank, f"offered rate {rank} of {len(rates)}"))
        else:
            found.append((4, 0.0, ""))
    return found


def target_medians(student: str, session: StoredSession) -> list[dict]:
    """One session's medians: per target, tool setting and load level, the median of its
    main column over its valid rounds (the A/A control's copy left out)."""
    rows = without_controls(valid_rows(session.rows))
    if rows.empty:
        return []
    setting = rows["tool_setting"] if "tool_setting" in rows else pd.Series("", rows.index)
    rows = rows.assign(_setting=setting.where(setting.astype(bool), rows["tool"]))
    rows = rows.assign(_load=_loads(rows))
    found = []
    for (target, setting_, load), group in rows.groupby(["target", "_setting", "_load"], sort=True):
        column = main_column(group)
        values = pd.to_numeric(group[column], errors="coerce").dropna()
        if values.empty:
            continue
        found.append(
            {
                "student": student,
                "experiment": session.manifest["experiment"],
                "run_id": session.run_id,
                "target": target,
                "setting": setting_,
                "load": load[2],
                "order": (target, setting_, load[0], load[1]),
                "column": column,
                "median": float(values.median()),
                "rounds": len(values),
            }
        )
    return found


def spread(values: Iterable[float | None]) -> float:
    """The largest value over the smallest, over the students with one (NaN with fewer
    than two, or with a value that is not positive)."""
    found = [v for v in values if v is not None and not math.isnan(v)]
    if len(found) < 2 or min(found) <= 0:
        return math.nan
    return max(found) / min(found)


def natural(text: str) -> tuple:
    """A sort key that puts 07_network_rtt1ms before 07_network_rtt10ms."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def exercise_titles() -> dict[str, str]:
    """Exercise runs' experiments (exercise_01_littles_law) → the exercise's title."""
    return {f"exercise_{key.replace('.', '_')}": e.title for key, e in EXERCISES.items()}


def _experiment_label(experiment: str, titles: dict[str, str]) -> str:
    title = titles.get(experiment)
    return f"{experiment} ({title})" if title else experiment


def _machines(students: Sequence[Student]) -> pd.DataFrame:
    """Each laptop: its CPU model and logical CPUs, its CPU identity (the machine class),
    the machine-speed reference (seconds of a fixed Go and Python workload, median over
    its runs: lower is faster) and how many runs it brought."""
    names = [s.name for s in students]
    table: dict[str, dict[str, str]] = {
        "machine (CPU model, logical CPUs)": {},
        "machine class (CPU identity)": {},
        "Go reference workload, s (median of runs)": {},
        "Python reference workload, s (median of runs)": {},
        "runs imported": {},
    }
    speeds: dict[str, list[float | None]] = {"go": [], "python": []}
    for student in students:
        records = list(machine_records(FolderSessions(student.runs)).values())
        machines = dict.fromkeys(f"{r.cpu_model or 'unknown CPU'}, {r.logical_cpus} CPUs"
                                 for r in records)  # fmt: skip
        classes = dict.fromkeys(r.machine_class or UNRECORDED for r in records)
        references = [r.reference for r in records if r.reference]
        go = statistics.median(r[0] for r in references) if references else None
        python = statistics.median(r[1] for r in references) if references else None
        speeds["go"].append(go)
        speeds["python"].append(python)
        cells = (
            "; ".join(machines) or MISSING,
            "; ".join(classes) or MISSING,
            MISSING if go is None else fmt.significant(go, 3),
            MISSING if python is None else fmt.significant(python, 3),
            str(len(student.run_ids)),
        )
        for row, cell in zip(table.values(), cells, strict=True):
            row[student.name] = cell
    frame = pd.DataFrame.from_dict(table, orient="index", columns=names)
    frame[SPREAD] = ["", "", fmt.ratio(spread(speeds["go"])),
                     fmt.ratio(spread(speeds["python"])), ""]  # fmt: skip
    frame.index.name = "laptop"
    return frame.reset_index()


Key = tuple[str, str, str, str]  # a headline's row: experiment, label, sides, unit
LONG_COLUMNS = ["student", "experiment", "run_id", "target", "setting", "load", "column",
                "median", "rounds"]  # fmt: skip


def student_results(student: Student) -> tuple[list[dict], dict[Key, float | None]]:
    """One student's medians (target_medians, per experiment's newest run) and headline
    ratios (None: the run lacks a side)."""
    medians: list[dict] = []
    ratios: dict[Key, float | None] = {}
    for experiment, session in newest_runs(student.runs).items():
        medians += target_medians(student.name, session)
        for headline in HEADLINES:
            if fnmatch(experiment, headline.experiment):
                sides = f"{headline.a} / {headline.b}"
                key = (experiment, headline.label, sides, quantity(headline.column))
                ratios[key] = headline_ratio(headline, session.rows)
    return medians, ratios


def class_results(students: Sequence[Student], refused: Sequence[Refused] = ()) -> ClassResults:
    """The imported students' results side by side (see the module's docstring)."""
    kept, refused = [], list(refused)
    long: list[dict] = []
    ratios: dict[Key, dict[str, float]] = {}
    for student in students:
        try:
            medians, found = student_results(student)
        except Exception as error:  # one student's unreadable runs: listed, the rest shown
            refused.append(Refused(student.file, f"imported, yet its runs cannot be read "
                                                 f"({type(error).__name__}: {error})"))  # fmt: skip
            continue
        kept.append(student)
        long += medians
        for key, ratio in found.items():
            ratios.setdefault(key, {})
            if ratio is not None:
                ratios[key][student.name] = ratio
    names = [s.name for s in kept]
    titles = exercise_titles()
    headlines = pd.DataFrame(
        [
            {
                "experiment": _experiment_label(experiment, titles),
                "headline": label,
                "ratio of medians": f"{sides}, {unit}",
                **{n: found.get(n, math.nan) for n in names},
                SPREAD: spread(found.get(n) for n in names),
            }
            for (experiment, label, sides, unit), found in sorted(
                ratios.items(), key=lambda item: natural(item[0][0])
            )
        ],
        columns=["experiment", "headline", "ratio of medians", *names, SPREAD],
    )
    return ClassResults(
        tuple(kept),
        tuple(refused),
        _machines(kept),
        headlines,
        _side_by_side(long, names, titles),
        pd.DataFrame(long, columns=LONG_COLUMNS),
    )


def _side_by_side(long: list[dict], names: list[str], titles: dict[str, str]) -> pd.DataFrame:
    """The students' medians, one row per experiment and what was measured, one column
    per student, and the spread."""
    rows = []
    frame = pd.DataFrame(long)
    if not frame.empty:
        frame["measured"] = [
            " · ".join(p for p in (t, s, load) if p)
            for t, s, load in zip(frame["target"], frame["setting"], frame["load"], strict=True)
        ]
        keys = ["experiment", "measured", "column"]
        for (experiment, measured, column), group in frame.groupby(keys, sort=False):
            by_student = dict(zip(group["student"], group["median"], strict=True))
            rows.append(
                {
                    "experiment": _experiment_label(experiment, titles),
                    "measured": measured,
                    "median of": quantity(column),
                    **{n: by_student.get(n, math.nan) for n in names},
                    SPREAD: spread(by_student.values()),
                    "_sort": (natural(experiment), group["order"].iloc[0]),
                }
            )
        rows.sort(key=lambda row: row["_sort"])
    columns = ["experiment", "measured", "median of", *names, SPREAD]
    return pd.DataFrame([{c: row[c] for c in columns} for row in rows], columns=columns)
