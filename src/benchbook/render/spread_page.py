"""The page of run-to-run spread: for every headline of every notebook, its ratio in each
stored run, as a table and a dot plot drawn for the page."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from benchbook.analyse import interval_coverage, plots
from benchbook.render.notebook_html import Section
from benchbook.render.svg import svg_inline
from benchbook.render.templates import anchor_id


@dataclass(frozen=True)
class HeldOutCheck:
    """The report's check of its own prediction rule: every headline with enough sessions
    refitted without each one, and whether that session's estimate fell inside."""

    inside: int
    total: int
    failing: tuple[str, ...]  # labels of headlines with a held-out session outside

    @property
    def share(self) -> float | None:
        return self.inside / self.total if self.total else None


def held_out_check(sections: Sequence[Section]) -> HeldOutCheck:
    """Leave-one-session-out over every headline of every section's findings."""
    inside = total = 0
    failing = []
    for section in sections:
        for findings in section.findings:
            for headline in findings["headlines"]:
                held = headline.get("held_out") or []
                total += len(held)
                inside += sum(1 for h in held if h.get("inside"))
                if any(not h.get("inside") for h in held):
                    failing.append(str(headline.get("label")))
    return HeldOutCheck(inside, total, tuple(failing))


@dataclass(frozen=True)
class CoverageTable:
    """The simulation that chose the next-session interval (analyse.interval_coverage): how
    often each rule covers the next session, rows k, columns design × τ, in per cent."""

    rule: str
    columns: tuple[str, ...]  # "6 paired rounds, τ = 0.05"
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # k, the chosen rule's coverage per column
    old_rows: tuple[tuple[int, tuple[str, ...]], ...]  # the same for the old rule
    pooled: tuple[float, float]  # lowest and highest coverage of the pooled interval
    verdict: tuple[float, float]  # and of the verdict interval
    borrowed: tuple[float, float]  # the borrowed prediction from 1 or 2 sessions
    replicates: int


def coverage_table() -> CoverageTable:
    """The simulation run now (seeded: the same figures every time)."""
    cells = interval_coverage.coverage()
    borrowed = [share for k in (1, 2) for share in interval_coverage.borrowed_coverage(k).values()]

    def percent(value: float) -> str:
        return "–" if value != value else f"{100 * value:.1f}"

    def rows(value: Callable[[interval_coverage.Cell], float]) -> tuple:
        table = interval_coverage.table(cells, value)
        return tuple((k, tuple(percent(v) for v in row)) for k, row in table)

    return CoverageTable(
        rule=interval_coverage.RULE,
        columns=tuple(f"{d}, τ = {t:.2f}" for d, t in interval_coverage.columns()),
        rows=rows(lambda c: c.plain_t),
        old_rows=rows(lambda c: c.hts),
        pooled=(min(c.pooled for c in cells), max(c.pooled for c in cells)),
        verdict=(min(c.verdict for c in cells), max(c.verdict for c in cells)),
        borrowed=(min(borrowed), max(borrowed)),
        replicates=interval_coverage.REPLICATES,
    )


@dataclass
class SpreadItem:
    """One headline's run-to-run spread: its stored runs as a table and a dot plot."""

    anchor: str
    section: Section
    experiment: str
    headline: dict
    runs: list[dict]
    plot: Markup


def spread_items(sections: Sequence[Section]) -> list[SpreadItem]:
    """A spread item per headline of every section's findings, in notebook order."""
    items = []
    for section in sections:
        headlines = [(f, h) for f in section.findings for h in f["headlines"]]
        for number, (findings, headline) in enumerate(headlines, start=1):
            runs = list(headline.get("spread") or [])
            anchor = f"spread-{anchor_id(section.path.stem)}-{number}"
            plot = Markup("")
            if runs:
                predict = (headline.get("predict_low"), headline.get("predict_high"))
                fig = plots.spread_dots(
                    runs,
                    headline.get("article_ratio"),
                    predict=None if None in predict else predict,
                )
                plot = svg_inline(fig, anchor, f"Run-to-run spread of {headline.get('label')}")
            items.append(
                SpreadItem(
                    anchor=anchor,
                    section=section,
                    experiment=findings.get("title") or section.title,
                    headline=headline,
                    runs=runs,
                    plot=plot,
                )
            )
    return items
