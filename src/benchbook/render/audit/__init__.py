"""The report read as a critic reads it: `make audit` (python -m benchbook.render.audit)
checks the rendered HTML and PDF, not the code that wrote them, and names every defect by
its kind and where it stands.

The kinds were found by reading the report as a new reader would (each check's docstring
quotes the defect that made it). A verdict's numbers come from the data attributes its
badge carries (findings.html.j2: the verdict, the article's figure, and the interval it
was judged on, unrounded); the rest is read from the words and the PDF's layout. The
checks live by what they read (numbers, words, layout); tests/test_audit.py plants each
kind in a copy of a rendered report and checks the auditor names it."""

from benchbook.render.audit import layout, numbers, words  # noqa: F401  (each registers its checks)
from benchbook.render.audit.reading import CHECKS, Defect, Report, text_of

__all__ = ["CHECKS", "Defect", "Report", "audit", "text_of"]


def audit(report: Report, kinds: list[str] | None = None) -> list[Defect]:
    """Every defect the checks of ``kinds`` (all by default) find."""
    return [d for kind in kinds or list(CHECKS) for d in CHECKS[kind](report)]
