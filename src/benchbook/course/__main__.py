"""The course from the command line:

- ``python -m benchbook.course build`` (make course): both editions, the course map and
  the students' bundle (course.build);
- ``python -m benchbook.course class FILE [FILE …] [--out build/class]`` (make class):
  each student's session file (make export-session) imported into its own runs folder
  under OUT/runs/<student>/ and the class's results side by side, as Markdown on stdout
  and as OUT/index.html (course.class_results, class_import, class_page)."""

import argparse
import sys
from pathlib import Path

from benchbook.course import build as course_build
from benchbook.course.class_import import OutOverlapsRuns
from benchbook.course.class_page import build, markdown

DEFAULT_OUT = Path("build/class")


def _build(args: argparse.Namespace) -> int:
    print("\n".join(course_build.build()))
    return 0


def _class(args: argparse.Namespace) -> int:
    results = build(args.files, args.out)
    print(markdown(results), end="")
    for refused in results.refused:
        print(f"refused {refused.file}: {refused.problem}", file=sys.stderr)
    print(
        f"students imported: {len(results.students)} (under {args.out / 'runs'}); "
        f"files refused: {len(results.refused)}; the page: {args.out / 'index.html'}",
        file=sys.stderr,
    )
    # The page is written either way; a refused file still fails the command, so that
    # `make` says so.
    return 1 if results.refused else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchbook.course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "build", help="the student edition, the teacher key, the course map, the bundle"
    ).set_defaults(run=_build)
    together = commands.add_parser(
        "class", help="a class's session files side by side, one column per laptop"
    )
    together.add_argument(
        "files", type=Path, nargs="+", metavar="FILE",
        help="a student's session file, named <student>.session.tar",
    )  # fmt: skip
    together.add_argument(
        "--out", type=Path, default=DEFAULT_OUT,
        help=f"where the students' runs and index.html go (default: {DEFAULT_OUT})",
    )  # fmt: skip
    together.set_defaults(run=_class)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except OutOverlapsRuns as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
