"""The page of run-to-run spread: for every headline of every notebook, its ratio in each
stored run, as a table and a dot plot drawn for the page."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup

from benchbook.analyse.display import plots
from benchbook.analyse.numbers.stats import share_interval
from benchbook.analyse.sessions import interval_coverage, levels
from benchbook.analyse.sessions.replication import UNRECORDED, OtherClass, session_of
from benchbook.analyse.words import sessions as session_words
from benchbook.analyse.words.across_classes import Check, check, check_over, classes
from benchbook.render.notebook_html import Section
from benchbook.render.svg import svg_inline
from benchbook.render.templates import anchor_id
from benchbook.store.query import open_store


@dataclass(frozen=True)
class ClassSessions:
    """The sessions pooled on one machine class over the report's headlines, and the
    prediction rule checked on them: each session of each headline left out in turn and
    predicted from the rest of the class (levels.leave_one_out)."""

    machine_class: str
    sessions: int
    held_out: int = 0  # sessions left out, over every headline with 2 or more here
    inside: int = 0  # of them, inside the rest's prediction for the next session
    borrowed: int = 0  # of them, predicted from 1–2 sessions with a borrowed spread

    @property
    def share(self) -> float | None:
        return self.inside / self.held_out if self.held_out else None


@dataclass(frozen=True)
class Cluster:
    """The leave-one-out checks of one sitting kind on one machine: the checks share the
    machine (a boot of a host) and the sitting, so they are not independent of each other."""

    machine_class: str
    machine: str  # when it booted (or, not recorded, its first run) and its boot id's start
    first_sitting: bool  # the machine's first sitting (boot and commit) or a later one
    held_out: int
    inside: int


@dataclass(frozen=True)
class Sitting:
    """Where a run was measured: its machine and whether in that machine's first sitting."""

    machine: str
    first: bool


def sittings(manifests: Sequence[dict]) -> dict[str, Sitting]:
    """Each run's machine (its boot id; runs without one stand alone) and whether it was
    measured in the first sitting (boot and commit) of that machine."""
    first_of: dict[str, tuple[str, str]] = {}  # boot → (first run id, its commit)
    found = {}
    for m in sorted(manifests, key=lambda m: m["run_id"]):
        provenance = m.get("provenance") or {}
        machine = provenance.get("machine") or {}
        boot = machine.get("boot_id")
        if not boot:
            continue
        commit = (provenance.get("git") or {}).get("commit", "")
        first_run, first_commit = first_of.setdefault(boot, (m["run_id"], commit))
        booted = machine.get("booted_at")
        label = (
            f"booted {booted[:10]} {booted[11:16]}"
            if booted
            else f"boot {boot[:6]}, first run {_when(first_run)}"
        )
        found[m["run_id"]] = Sitting(label, commit == first_commit)
    return found


def _when(run_id: str) -> str:
    """'2026-11-27 03:24' for run 20261127T032400Z-…"""
    return f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]} {run_id[9:11]}:{run_id[11:13]}"


BOOT_NOT_RECORDED = "boot not recorded"


@dataclass(frozen=True)
class MachineCensus:
    """Every class the report pools, and the runs that joined no class."""

    classes: tuple[ClassSessions, ...]
    unrecorded: int  # runs without a CPU identity: each on its own
    # The speed-reference model over every headline with two classes or more, each class
    # left out (across_classes.check_over), and how many headlines that is.
    across: Check | None = None
    across_headlines: int = 0
    # Per class, the headlines where a held-out session fell outside (with how many of how
    # many): the per-headline pages count this class's checks only, so the class is said.
    failing: tuple[tuple[str, tuple[str, ...]], ...] = ()
    clusters: tuple[Cluster, ...] = ()  # the checks by machine and sitting
    # Each session predicted from the earlier ones of its class alone (three or more), as
    # an older report would have predicted it: checks, and how many fell inside.
    forward: int = 0
    forward_inside: int = 0
    # The report's own sessions were measured in their machine's first sitting (None: their
    # boot was not recorded).
    measured_first: bool | None = None

    @property
    def held_out(self) -> int:
        return sum(c.held_out for c in self.classes)

    @property
    def inside(self) -> int:
        return sum(c.inside for c in self.classes)

    @property
    def sittings(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(inside, left out) of the checks on machines' first sittings and on their later
        ones, over the machines whose boot was recorded."""
        known = [c for c in self.clusters if c.machine != BOOT_NOT_RECORDED]

        def counted(first: bool) -> tuple[int, int]:
            mine = [c for c in known if c.first_sitting == first]
            return sum(c.inside for c in mine), sum(c.held_out for c in mine)

        return counted(True), counted(False)

    @property
    def share_interval(self) -> tuple[float, float]:
        """The 95 % interval of the share inside, the checks taken as independent."""
        return share_interval(self.inside, self.held_out)


def machine_census(
    sections: Sequence[Section],
    manifests: Sequence[dict] | None = None,
    current: Sequence[str] = (),
) -> MachineCensus:
    """The distinct sessions of each class that some headline pools (measured under its
    conditions), and the leave-one-session-out check on each class, over every section's
    findings, also by machine and sitting (``manifests``: the stored runs' unless given)
    and forward in time; ``current``: the report's own run ids, whose sitting it names."""
    pooled: dict[str, set[str]] = {}
    held: dict[str, list[dict]] = {}
    alone: set[str] = set()
    failing: dict[str, list[str]] = {}
    for headline in _headlines(sections):
        for run in headline.get("spread") or []:
            name = run.get("machine_class")
            if name == UNRECORDED:
                alone.add(run["run_id"])
            elif name and run.get("same_conditions"):
                pooled.setdefault(name, set()).add(run["run_id"])
        checks = [*(headline.get("held_out") or []), *(headline.get("held_out_elsewhere") or [])]
        for one in checks:
            held.setdefault(one.get("machine_class", ""), []).append(one)
        for name in dict.fromkeys(c.get("machine_class", "") for c in checks):
            mine = [c for c in checks if c.get("machine_class", "") == name]
            if outside := sum(1 for c in mine if not c.get("inside")):
                label = f"{headline.get('label')} ({outside} of {len(mine)})"
                failing.setdefault(name, []).append(label)
    counts = tuple(
        ClassSessions(
            name,
            len(runs),
            held_out=len(held.get(name, [])),
            inside=sum(1 for c in held.get(name, []) if c.get("inside")),
            borrowed=sum(1 for c in held.get(name, []) if c.get("borrowed")),
        )
        for name, runs in pooled.items()
    )
    predicted = [h for h in _across(sections) if check(classes(*h))]
    where = sittings(open_store().manifests() if manifests is None else manifests)
    forward = [f for h in _headlines(sections) for f in forward_checks(h.get("spread") or [])]
    return MachineCensus(
        counts,
        len(alone),
        check_over(predicted),
        len(predicted),
        tuple((name, tuple(labels)) for name, labels in failing.items()),
        clusters(held, where),
        len(forward),
        sum(forward),
        next((where[r].first for r in current if r in where), None),
    )


def clusters(held: dict[str, list[dict]], where: dict[str, Sitting]) -> tuple[Cluster, ...]:
    """The leave-one-out checks of each class grouped by machine and sitting."""
    groups: dict[tuple[str, str, bool], list[bool]] = {}
    for name, checks in held.items():
        for one in checks:
            at = where.get(one.get("run_id", ""))
            key = (name, at.machine, at.first) if at else (name, BOOT_NOT_RECORDED, True)
            groups.setdefault(key, []).append(bool(one.get("inside")))
    return tuple(
        Cluster(name, machine, first, len(inside), sum(inside))
        for (name, machine, first), inside in sorted(groups.items())
    )


# What a spread row needs to be a session of the model (a row of a headline with no
# estimate in that run has less).
ESTIMATE = {"ratio", "ci_low", "ci_high", "ci_level", "machine_class", "run_id"}


def forward_checks(spread: Sequence[dict]) -> list[bool]:
    """One headline's sessions, each predicted from the earlier sessions of its class
    alone where three or more came before (levels.pooled): whether each fell inside."""
    found = []
    for name, rows in levels.by_class(
        [session_of(r) for r in spread if r.get("same_conditions") and ESTIMATE <= r.keys()]
    ).items():
        if name == UNRECORDED:
            continue
        ordered = sorted(rows, key=lambda s: s.run_id)
        for i, session in enumerate(ordered):
            fit = levels.pooled(ordered[:i]) if i >= levels.MIN_SESSIONS else None
            if fit is not None and session.ratio > 0:
                found.append(fit.holds(session.ratio))
    return found


def _headlines(sections: Sequence[Section]) -> list[dict]:
    """Every headline of every section's findings, in report order."""
    return [h for s in sections for findings in s.findings for h in findings["headlines"]]


def _across(sections: Sequence[Section]) -> list[tuple[str, float, list[OtherClass]]]:
    """Every headline's class, estimate and other classes."""
    found = []
    for headline in _headlines(sections):
        estimate = headline.get("pooled_ratio") or headline.get("ratio")
        others = [OtherClass(**o) for o in headline.get("other_classes") or []]
        if estimate and others:
            found.append((headline.get("machine_class", ""), estimate, others))
    return found


@dataclass(frozen=True)
class CoverageTable:
    """The simulation that chose the next-session interval (analyse.sessions.interval_coverage): how
    often each rule covers the next session, rows k, columns design × τ, in per cent."""

    rule: str
    columns: tuple[str, ...]  # "6 paired rounds, τ = 0.05"
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # k, the chosen rule's coverage per column
    old_rows: tuple[tuple[int, tuple[str, ...]], ...]  # its own sessions alone (the old rule)
    pooled: tuple[float, float]  # lowest and highest coverage of the pooled interval
    replicates: int
    # A headline whose spread is a multiple of its kind's (interval_coverage.per_headline):
    # rows k, one column per multiple; then the range at one session, the first k from
    # which every multiple is covered 90 % or more, and its own sessions alone from k = 2.
    factors: tuple[str, ...]
    per_headline_rows: tuple[tuple[int, tuple[str, ...]], ...]
    typical: tuple[float, float]  # the lowest and highest at factor 1, over every k
    one_session: tuple[float, float]
    settled_from: int | None
    own_alone: tuple[float, float]
    own_width_at_two: float  # t(1) over the normal quantile: what not borrowing costs at k = 2
    spread_range: tuple[float, float]
    kind_tau: float
    run_sd: tuple[float, float]  # the range each simulated headline's run noise is drawn from


def percent(value: float) -> str:
    """A simulated coverage as a table cell: '95.1', or '–' where none was made."""
    return "–" if value != value else f"{100 * value:.1f}"


def coverage_table() -> CoverageTable:
    """The simulation run now (seeded: the same figures every time)."""
    cells = interval_coverage.coverage()
    pooled = [c.pooled for c in cells if c.pooled == c.pooled]  # none from one session

    def rows(value: Callable[[interval_coverage.Cell], float]) -> tuple:
        table = interval_coverage.table(cells, value)
        return tuple((k, tuple(percent(v) for v in row)) for k, row in table)

    per_headline = interval_coverage.per_headline()
    factors = interval_coverage.SPREAD_FACTORS
    by_k = {k: [c for c in per_headline if c.sessions == k] for k in interval_coverage.SESSIONS}
    at_one = [c.moderated for c in by_k[1]]
    typical = [c.moderated for c in per_headline if c.factor == 1.0]
    settled = [k for k in by_k if all(c.moderated >= 0.90 for j in by_k if j >= k for c in by_k[j])]
    own = [c.plain_t for c in per_headline if c.sessions >= 2]
    return CoverageTable(
        rule=interval_coverage.RULE,
        columns=tuple(f"{d}, τ = {t:.2f}" for d, t in interval_coverage.columns()),
        rows=rows(lambda c: c.moderated),
        old_rows=rows(lambda c: c.plain_t),
        pooled=(min(pooled), max(pooled)),
        replicates=interval_coverage.REPLICATES,
        factors=tuple(f"{f:g}×" for f in factors),
        per_headline_rows=tuple(
            (k, tuple(percent(c.moderated) for c in cells_k)) for k, cells_k in by_k.items()
        ),
        typical=(min(typical), max(typical)),
        one_session=(min(at_one), max(at_one)),
        settled_from=min(settled, default=None),
        own_alone=(min(own), max(own)),
        own_width_at_two=interval_coverage.own_width_at_two(),
        spread_range=interval_coverage.SPREAD_RANGE,
        kind_tau=interval_coverage.KIND_TAU,
        run_sd=interval_coverage.RUN_SD,
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
    levels: str = ""  # where its width comes from (analyse.words.sessions.levels_sentence)


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
                    levels=session_words.levels_sentence(runs, headline.get("pooled_tau")),
                )
            )
    return items
