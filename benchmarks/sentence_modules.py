"""How many modules of the analysis compose a reader's sentence around a value: issue 44's
measure of whether the words live in one place (words/) or spread over the package.

A module counts when it holds an f-string with a replacement field and at least three
lowercase words outside it, not inside a `raise` or a logging call (an error message is
for a user who typed a wrong parameter, not a reader of the report). Prints each such
module with its count of sentences, then the total; `--at COMMIT` reads the package as
it was at a commit (git archive), for a before/after."""

import argparse
import ast
import io
import re
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "src/benchbook/analyse"
REPO = Path(__file__).resolve().parent.parent
WORDS = re.compile(r"\b[a-z]{2,}\b")
LOGGING = {"warn", "debug", "info", "warning", "error"}


def sentences(source: str) -> int:
    """The f-strings of a module that word a value for a reader."""
    tree = ast.parse(source)
    skipped = set()
    for node in ast.walk(tree):
        called = isinstance(node, ast.Call) and getattr(node.func, "attr", "") in LOGGING
        if isinstance(node, ast.Raise) or called:
            skipped.update(id(sub) for sub in ast.walk(node))
    count = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr) or id(node) in skipped:
            continue
        text = " ".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
        has_field = any(isinstance(v, ast.FormattedValue) for v in node.values)
        count += has_field and len(WORDS.findall(text)) >= 3
    return count


def modules(at: str | None) -> Iterator[tuple[str, str]]:
    """(path under the package, source) of every module but __init__.py, today's or at a
    commit."""
    if at is None:
        for path in sorted((REPO / PACKAGE).rglob("*.py")):
            yield str(path.relative_to(REPO / PACKAGE)), path.read_text()
        return
    archive = subprocess.run(["git", "archive", at, PACKAGE], cwd=REPO, capture_output=True,
                             check=True).stdout  # fmt: skip
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            if member.isfile() and member.name.endswith(".py"):
                name = member.name.removeprefix(PACKAGE + "/")
                yield name, tar.extractfile(member).read().decode()  # type: ignore[union-attr]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", help="a commit: the package as it was there")
    args = parser.parse_args(argv)
    found = [(name, sentences(source)) for name, source in modules(args.at)
             if not name.endswith("__init__.py")]  # fmt: skip
    composing = [(name, n) for name, n in found if n]
    for name, n in composing:
        print(f"{n:4d} {name}")
    print(f"{len(composing)} of {len(found)} modules compose sentences")


if __name__ == "__main__":
    main(sys.argv[1:])
