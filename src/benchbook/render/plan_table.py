"""`make plan`: for each headline of the executed notebooks, where its uncertainty comes
from and what reaching a target width would take (analyse.sessions.planner).

    python -m benchbook.render.plan_table [--target 10%] report/executed/01_*.ipynb

Per headline: its variance at each level (SD between rounds in a session, between
sessions on this machine class, on the log scale as ±%), the rounds and sessions behind it
now, the half-widths of its pooled and next-session intervals now and after one more
session, and the cheapest design of rounds per session and sessions reaching the target for
each interval, with its minutes of measuring (the runs' own timestamps), or the floor that
no design passes.
"""

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import nbformat

from benchbook.analyse.sessions import planner
from benchbook.analyse.words import sessions as session_words
from benchbook.analyse.words.findings_format import FINDINGS_MIME
from benchbook.render.findings_html import load_findings
from benchbook.render.notebook_html import outputs_of
from benchbook.runs.layout import runs_dir
from benchbook.runs.manifest import read_manifest

COLUMNS = (
    "Headline", "Rounds × sessions", "SD rounds / sessions",
    "Pooled, expected: now → +1 session", "Next session, expected: now → +1 session",
    "Pooled target: rounds × sessions", "Next-session target: rounds × sessions",
)  # fmt: skip


def percent(share: float | None) -> str:
    return "–" if share is None else f"±{100 * share:.1f} %"


def design(found: planner.Plan) -> str:
    if found.rounds is None:
        if found.floor > found.target:
            return f"below the floor ({percent(found.floor)})"
        return "none within the search"
    return f"{found.rounds} × {found.sessions}, {found.minutes:.0f} min"


def headline_row(headline: dict, target: float) -> list[str] | None:
    """The planner's row of one headline (None without two sessions or a timed run)."""
    c = planner.components_from(headline["spread"])
    current = [r for r in headline["spread"] if r.get("current")]
    if c is None or not current:
        return None
    run = runs_dir() / current[0]["run_id"]
    costs = planner.costs_from(read_manifest(run)) if run.exists() else None
    if costs is None:
        return None
    n, k = c.rounds, c.sessions
    cells = [
        headline["label"],
        f"{n} × {k}",
        f"{session_words.sd_text(c.round_var)} / {session_words.sd_text(c.session_var)}",
    ]
    for interval in (planner.POOLED, planner.NEXT_SESSION):
        now, more = (planner.half_width(c, interval, n, kk) for kk in (k, k + 1))
        cells.append(f"{percent(now)} → {percent(more)}")
    cells += [
        design(planner.plan(c, costs, target, i)) for i in (planner.POOLED, planner.NEXT_SESSION)
    ]
    return cells


def table(notebooks: Iterable[Path], target: float) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    skipped = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        for findings in (load_findings(d) for d in outputs_of(nb, FINDINGS_MIME)):
            for headline in findings["headlines"]:
                row = headline_row(headline, target)
                if row is None:
                    skipped.append(headline["label"])
                else:
                    lines.append("| " + " | ".join(row) + " |")
    if skipped:
        lines.append("")
        lines.append(f"Not planned (fewer than two sessions on this class, or no timed run): "
                     f"{'; '.join(skipped)}.")  # fmt: skip
    return "\n".join(lines)


def parse_target(text: str) -> float:
    """'10%' or '10' → 0.10; a share of 0 or less, or of 100 % or more, is refused."""
    value = float(text.rstrip("% "))
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"target: {text!r}; give a half-width in %, e.g. 10%")
    return value / 100


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=parse_target, default=0.10,
                        help="half-width to reach, in %% (default 10%%)")  # fmt: skip
    parser.add_argument("notebooks", nargs="+", type=Path)
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.notebooks if not p.exists()]
    if missing:
        parser.error(f"no executed notebook {', '.join(missing)}; run `make report` first")
    print(f"Target: a half-width of ±{100 * args.target:g} % "
          "(rounds per session × sessions, minutes of measuring)\n")  # fmt: skip
    print(table(args.notebooks, args.target))


if __name__ == "__main__":
    main(sys.argv[1:])
