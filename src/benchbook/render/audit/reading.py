"""The rendered report as the auditor reads it: the page a reader sees, its text, and the
defects found in it; each check registers itself under its kind (``check``)."""

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from bs4 import BeautifulSoup, Tag


@dataclass(frozen=True)
class Defect:
    kind: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.where}: {self.detail}"


def text_of(element: Tag) -> str:
    """An element's text as it reads: whitespace collapsed, without the spaces that
    separating its elements puts inside brackets and quotes ('( 95 % CI …)')."""
    text = re.sub(r"\s+", " ", element.get_text(" ")).strip()
    text = re.sub(r"\( ", "(", re.sub(r" \)", ")", text))
    return re.sub(r'" ([^"]*?) "', r'"\1"', text)


def text_without(root: Tag, left_out: list[Tag]) -> str:
    """``root``'s text (text_of) without the elements ``left_out``: each taken out of the
    tree for the reading and put back in its place (a new parse of a 6 MB page would take
    seconds each time)."""
    places = []
    for element in left_out:
        if element.parent is not None:  # not inside one already taken out
            places.append((element.parent, element.parent.index(element), element.extract()))
    try:
        return text_of(root)
    finally:
        for parent, index, element in reversed(places):
            parent.insert(index, element)


def number(text: str) -> float:
    return float(text.replace(",", ""))


# What the prose is read without: the glossary, the provenance appendix (manifest values as
# stored), code, and figures.
PROSE_LEAVES_OUT = ("#glossary", "#provenance", "code", "pre", "svg", ".output-image")


@dataclass
class Report:
    html: str
    pdf: Path | None

    @classmethod
    def read(cls, folder: Path) -> "Report":
        pdf = folder / "report.pdf"
        return cls(
            (folder / "index.html").read_text(encoding="utf-8"), pdf if pdf.exists() else None
        )

    @cached_property
    def page(self) -> BeautifulSoup:
        """The page as a reader sees it on screen: no scripts, styles or print-only notes."""
        soup = BeautifulSoup(self.html, "html.parser")
        for hidden in soup.select("script, style, .print-note, .print-only"):
            hidden.decompose()
        return soup

    def without(self, *selectors: str) -> str:
        """The visible text with the elements of ``selectors`` left out."""
        return text_without(self.page, self.page.select(", ".join(selectors)))

    @cached_property
    def body_text(self) -> str:
        """Every visible word outside the glossary."""
        return self.without("#glossary")

    @cached_property
    def prose(self) -> str:
        """What is written for a reader to read as sentences and tables (PROSE_LEAVES_OUT)."""
        return self.without(*PROSE_LEAVES_OUT)


Check = Callable[[Report], Iterator[Defect]]
CHECKS: dict[str, Check] = {}


def check(kind: str) -> Callable[[Check], Check]:
    def register(function: Check) -> Check:
        CHECKS[kind] = function
        return function

    return register
