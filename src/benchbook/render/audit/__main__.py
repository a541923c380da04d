"""`make audit`: python -m benchbook.render.audit [report folder]."""

import argparse
import sys
from pathlib import Path

from benchbook.render.audit import CHECKS, Report, audit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The rendered report read as a critic reads it.")
    parser.add_argument("report", nargs="?", default="report", type=Path,
                        help="the folder holding index.html and report.pdf")  # fmt: skip
    folder = parser.parse_args(argv).report
    if not (folder / "index.html").exists():
        parser.error(f"{folder}/index.html does not exist: `make report` writes it")
    defects = audit(Report.read(folder))
    for defect in defects:
        print(defect)
    print(f"{len(defects)} defects in {len(CHECKS)} kinds of check: {', '.join(CHECKS)}")
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
