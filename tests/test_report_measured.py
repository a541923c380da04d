"""When and by which code a report's runs were measured, said in its header."""

from pathlib import Path

from benchbook.render.provenance import RunProvenance, measured_when


def run(created: str, commit: str) -> RunProvenance:
    values = [("run_id", "r"), ("created_utc", created), ("provenance.git.commit", commit)]
    return RunProvenance("r", "a", Path("n"), "s", Path("m"), values)


def test_a_reports_runs_say_when_and_at_which_commit_they_were_measured() -> None:
    runs = [run("2026-12-06T05:20:17+00:00", "c2e0d750f4ae"),
            run("2026-12-06T05:49:02+00:00", "c2e0d750f4ae")]  # fmt: skip
    assert measured_when(runs) == "measured 2026-12-06 05:20–05:49 UTC, commit c2e0d750"
    later = [*runs, run("2026-12-07T04:01:00+00:00", "0badc0de0000")]
    assert measured_when(later) == (
        "measured 2026-12-06 05:20 – 2026-12-07 04:01 UTC, commits 0badc0de, c2e0d750"
    )
    assert measured_when([]) == ""
