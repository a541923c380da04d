"""The planner checked against what happened: for each headline, the half-widths of its
pooled and next-session intervals before a change of design, what the planner predicted
from the sessions before it for the design after it (its rounds, its sessions), and what
the report printed after it.

    python benchmarks/planner_check.py --before OLD/report/executed --after report/executed

``OLD`` is a checkout of the commit before the change (``git worktree add``); the
variance components come from its headlines' sessions alone (analyse.sessions.planner), so the
prediction uses nothing measured after it. A headline whose conditions changed pools only
the sessions after it: its prediction assumes the variances per round and between
sessions stayed what they were.
"""

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat

from benchbook.analyse.sessions import planner
from benchbook.analyse.words.findings_format import FINDINGS_MIME
from benchbook.render.findings_html import load_findings
from benchbook.render.notebook_html import outputs_of
from benchbook.render.plan_table import percent

COLUMNS = (
    "Headline", "Rounds × sessions: before → after",
    "Pooled: before → predicted / after", "Next session: before → predicted / after",
)  # fmt: skip


def headlines(folder: Path) -> dict[str, dict]:
    """Every headline of the executed notebooks in ``folder``, by label."""
    found = {}
    for path in sorted(folder.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for findings in (load_findings(d) for d in outputs_of(nb, FINDINGS_MIME)):
            for headline in findings["headlines"]:
                found[headline["label"]] = headline
    return found


def printed(headline: dict, low: str, high: str) -> float | None:
    """An interval's half-width as printed, as a share (its upper side, log scale)."""
    lo, hi = headline.get(low), headline.get(high)
    if not lo or not hi or lo <= 0:
        return None
    return math.expm1(math.log(hi / lo) / 2)


def row(label: str, before: dict, after: dict) -> list[str] | None:
    """One headline's widths before, predicted and after (None without two sessions on
    either side)."""
    was, now = planner.components_from(before["spread"]), planner.components_from(after["spread"])
    if was is None or now is None:
        return None
    cells = [label, f"{was.rounds} × {was.sessions} → {now.rounds} × {now.sessions}"]
    for interval, low, high in (
        (planner.POOLED, "pooled_low", "pooled_high"),
        (planner.NEXT_SESSION, "predict_low", "predict_high"),
    ):
        predicted = planner.half_width(was, interval, now.rounds, now.sessions)
        cells.append(
            f"{percent(printed(before, low, high))} → {percent(predicted)} / "
            f"{percent(printed(after, low, high))}"
        )
    return cells


def table(before: dict[str, dict], after: dict[str, dict]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    for label, headline in after.items():
        found = row(label, before[label], headline) if label in before else None
        if found is not None:
            lines.append("| " + " | ".join(found) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="executed notebooks before")
    parser.add_argument("--after", type=Path, required=True, help="executed notebooks after")
    args = parser.parse_args(argv)
    print(table(headlines(args.before), headlines(args.after)))


if __name__ == "__main__":
    main(sys.argv[1:])
