"""What a notebook found, as data: its answer, its headline comparisons, whether the
article's claim reproduced, and how the same comparison came out in every stored run.

A notebook displays a Findings object once (in its Conclusion). In JupyterLab it shows
as the answer and a table; in the report (FINDINGS_MIME) it becomes the section's answer
box and a row of the summary page, so a notebook added later joins the summary without
any change to the report code.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

import pandas as pd

from benchbook.analyse.claims.bounds import (
    bound_rows,
    extremes,
    over_sessions,
    own_spread,
    session_runs,
)
from benchbook.analyse.claims.control import control_band
from benchbook.analyse.claims.explanation import Explanation
from benchbook.analyse.claims.published import source
from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.claims.verdicts import judge
from benchbook.analyse.findings.session_fields import sessions_fields
from benchbook.analyse.numbers.pairing import comparison, count_text
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.rows.counted import suspect_flags
from benchbook.analyse.rows.limits import (
    SERVERS,
    apart_brief,
    counted_rows,
    rate_sides,
    side_medians,
)
from benchbook.analyse.rows.names import language, reader_name
from benchbook.analyse.sessions.kinds import kind_levels
from benchbook.analyse.sessions.machine_classes import WORKLOADS
from benchbook.analyse.sessions.replication import Replication, replication, spread
from benchbook.analyse.words.across_classes import servers_limit
from benchbook.analyse.words.bounds import placed_ends, sentence
from benchbook.analyse.words.conclusions import compared, metric, unranked
from benchbook.analyse.words.findings_format import FINDINGS_MIME, LOWER_BOUND
from benchbook.analyse.words.flags import caution
from benchbook.analyse.words.sessions import across, brief
from benchbook.analyse.words.verdicts import control_sentence, verdict_and_reason
from benchbook.runs.languages import load_languages


@dataclass
class Headline:
    label: str
    verdict: str  # the full sentence, with medians, p, runs and cautions
    brief: str  # the answer and its interval, for the answer box
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float | None
    n: str
    p: float | None
    significant: bool
    article: str
    article_ratio: float | None
    reproduced: str
    reproduced_why: str
    spread: list[dict] = field(default_factory=list)
    classes: str = ""  # the other machine classes, for the sessions appendix (words.sessions)
    # The smallest ratio an A/A control in the same rounds resolves (None: no control), and
    # the control's own figures it comes from (claims.control.control_band): its estimate and the
    # interval printed for it (the next session's prediction, else this session's CI).
    resolvable: float | None = None
    control: dict = field(default_factory=dict)
    # The sessions of the same comparison on this session's machine class (this one
    # included) and their model (levels): the pooled estimate with its 95 % interval, the
    # 95 % prediction interval for the next session, and the leave-one-session-out check
    # on this class and on every other (each held-out session: run id, estimate, the rest's
    # prediction, whether it fell inside, whether that borrowed a spread); the pooled ones
    # None below three sessions, where the prediction borrows the spread of the other
    # headlines of its kind (Replication.predicted) and ``sessions_basis`` says so.
    machine_class: str = ""
    sessions: int = 1
    pooled_ratio: float | None = None
    pooled_low: float | None = None
    pooled_high: float | None = None
    pooled_tau: float | None = None  # Paule–Mandel SD between sessions (log scale)
    predict_low: float | None = None
    predict_high: float | None = None
    held_out: list[dict] = field(default_factory=list)
    held_out_elsewhere: list[dict] = field(default_factory=list)  # other classes' sessions
    sessions_text: str = ""  # words.sessions.sessions_text: how many sessions
    sessions_basis: str = ""  # below 3 sessions, what predicts the next (words.sessions)
    # What another session on this machine, and a session on another machine of this
    # class, should give (sessions.machines), in words (words.sessions) and figures, and
    # their checks: each session of a machine left out of its others, each machine too.
    another_session: str = ""
    session_low: float | None = None
    session_high: float | None = None
    held_out_on_machines: list[dict] = field(default_factory=list)
    another_machine: str = ""
    machine_low: float | None = None
    machine_high: float | None = None
    machines: int = 0
    machines_held_out: list[dict] = field(default_factory=list)
    # Sessions on other machine classes, each apart (replication.OtherClass as a dict).
    other_classes: list[dict] = field(default_factory=list)
    languages: tuple[str, str] = ("", "")  # the two sides' servers' languages
    sides: tuple[str, str] = ("", "")  # the two sides as a reader knows them
    metric: str = ""  # the column compared, e.g. "rps"
    # Whether the two sides differ in more than their language (e.g. their storage):
    # such a comparison stays out of a Go-vs-Python tally.
    like_for_like: bool = True
    cross_check: bool = False  # the same pair of servers measured with a second load tool
    # Why this ratio compares no servers (what set its rates, rows.limits); '' where both
    # sides' rates were set by what it compares.
    set_by: str = ""


@dataclass
class Findings:
    experiment: str
    title: str
    question: str
    answer: str
    headlines: list[Headline]
    source: dict | None = None
    # The notebook's answers to its own question that no ratio headline carries (lost
    # records, a percentile against the open loop, a trend with delay): page 1 shows them.
    also: list[str] = field(default_factory=list)
    # The question answered in at most two sentences that start with the answer (answers).
    plain: str = ""

    def as_json(self) -> dict:
        """JSON-safe: a NaN (no interval with too few runs) is null, not the text 'nan'."""
        return _without_nan(asdict(self))

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return {FINDINGS_MIME: self.as_json(), "text/markdown": self.markdown()}

    def markdown(self) -> str:
        lines = [f"**Answer.** {self.answer}", ""]
        lines += [
            "| headline | verdict | the article | reproduced? |",
            "| --- | --- | --- | --- |",
        ]
        lines += [
            f"| {h.label} | {h.verdict} | {h.article or '—'} | {h.reproduced}: {h.reproduced_why} |"
            for h in self.headlines
        ]
        return "\n".join(lines)


def _without_nan(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _without_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nan(v) for v in value]
    return value


def headline(
    label: str,
    results: pd.DataFrame,
    a: str,
    b: str,
    *,
    experiment: str,
    column: str = "rps",
    unit: str = "req/s",
    article: str = "",
    article_ratio: float | None = None,
    sides_are: str = SERVERS,
    measured_else: Explanation | None = None,
    differences: str = "",
    different_conditions: str = "",
    lower_bound: str = "",
    cross_check: bool = False,
    select: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    same_conditions_ignore: tuple[str, ...] = (),
) -> Headline:
    """One headline a/b on ``column`` over the runs that count (rows.limits): verdict and
    caveats, sessions on this machine class (replication), verdict against ``article_ratio``
    (claims.verdicts.judge), the comparison in every stored run of ``experiment`` (``select``:
    its rows of a run; for a bound, each session's bound: ``lower_bound`` says why a's is one).
    A ratio of rates ``sides_are`` (servers, load tools) did not both set is never judged."""
    data = select(results) if select else results
    names, languages = _sides(data, a, b)
    label = label.replace(a, names[0]).replace(b, names[1])
    valid = counted_rows(data, column)
    c = comparison(valid, a, b, column)
    current = set(data["run_id"]) if "run_id" in data else set()
    runs = spread(experiment, a, b, column, select, current, ignore=same_conditions_ignore)
    go_side, limit = _speed_model(data, languages, [a, b], column, unit, different_conditions)
    sessions = replication(c, runs, "" if limit else go_side, *kind_levels(column))
    apart = rate_sides(data, a, b, names, column, sides_are).why  # what set the rates if not a, b
    shared = {"languages": languages, "sides": names, "metric": column, "spread": runs,
              "like_for_like": _like_for_like(data, a, b), "cross_check": cross_check,
              "set_by": "" if lower_bound else apart}  # fmt: skip
    if lower_bound and c is not None:
        bound_sessions = spread(experiment, a, b, column, extremes(a, b, column, select), current,
                            ignore=same_conditions_ignore)  # fmt: skip
        bound = bound_headline(label, valid, a, b, names, lower_bound, column, bound_sessions, unit)
        return replace(bound, **shared | {"spread": bound_rows(runs, bound_sessions)},
                       machine_class=sessions.machine_class)  # fmt: skip
    band, control = control_band(valid, results, column, experiment, select, current,
                                  pooled=sessions.pooled is not None)  # fmt: skip
    judged = judge(c, article_ratio, apart, measured_else, differences, band, sessions,
                   different_conditions)  # fmt: skip
    reproduced, why = verdict_and_reason(judged)
    sentences = _sentences(data, c, (a, b), names, column, unit, band, sessions, apart,
                           across(c, sessions, column, unit, runs, go_side, limit))  # fmt: skip
    return Headline(
        label=label, **sentences, **_session_fields(c),
        significant=bool(c and sessions.significant(c) and not sessions.within_band(c, band)),
        article=article, article_ratio=article_ratio, resolvable=band, control=control, **shared,
        reproduced=reproduced, reproduced_why=why, **sessions_fields(sessions, c, column, unit),
    )  # fmt: skip


def _sentences(
    data: pd.DataFrame,
    c: Comparison | None,
    targets: tuple[str, str],
    names: tuple[str, str],
    column: str,
    unit: str,
    band: float | None,
    sessions: Replication,
    apart: str,
    beyond: tuple[str, str],
) -> dict[str, str]:
    """A headline's brief, verdict and other classes in words: the rates' limit where the
    servers did not both set them (``apart``), else the answer with the cautions its runs'
    flags call for; ``beyond``: words.sessions.across's sentences."""
    tallies = {side: suspect_flags(data, side) for side in targets}
    note = caution(tallies, dict(zip(targets, names, strict=True)), column, plain=True)
    worded = apart and apart_brief(names, side_medians(data, *targets, column), apart)
    said = worded or brief(c, *names, column, unit, band, sessions)
    pooled, classes = beyond
    in_full = (compared(c, names, tallies, column, unit) if c
               else unranked(data, targets, names, column))  # fmt: skip
    return {
        "brief": said + (f" {note}" if note else ""),  # no "served N×" if apart
        # the pooled one may differ from this session's
        "verdict": worded or ("This session: " if pooled else "") + in_full + pooled,
        "classes": "" if worded else classes,
    }


def _session_fields(c: Comparison | None) -> dict:
    """This session's comparison: ratio, interval, its level, n and p (None without one)."""
    if c is None:
        return dict.fromkeys(("ratio", "ci_low", "ci_high", "ci_level", "p")) | {"n": "0"}
    return {"ratio": c.ratio, "ci_low": c.ratio_low, "ci_high": c.ratio_high,
            "ci_level": c.ratio_confidence, "n": count_text(c), "p": c.p_value}  # fmt: skip


def _speed_model(
    data: pd.DataFrame,
    languages: tuple[str, str],
    targets: list[str],
    column: str,
    unit: str,
    link: str,
) -> tuple[str, str]:
    """Whether the speed-reference model speaks to this comparison: its Go side ('a',
    'b'; '' unless Go against Python) and why it does not apply ('' where the servers set
    the rate: across_classes.servers_limit)."""
    return _go_side(languages), servers_limit(data, targets, column, unit, link)


def _go_side(languages: tuple[str, str]) -> str:
    """'a' or 'b': the side whose language's speed follows the machine-speed reference's
    first workload (Go's) when the other's follows its second (Python's), as each
    language declares (servers.toml); '' for any other pair: the model has nothing to
    scale it by."""
    declared = load_languages()
    references = tuple(declared[n].speed_reference if n in declared else "" for n in languages)
    if references == WORKLOADS:
        return "a"
    return "b" if references == WORKLOADS[::-1] else ""


def _like_for_like(data: pd.DataFrame, a: str, b: str) -> bool:
    """The two sides share every factor but the server (e.g. the same storage)."""
    if "storage" not in data:
        return True
    storage = [set(data.loc[data["target"] == side, "storage"].dropna()) for side in (a, b)]
    return storage[0] == storage[1]


def _sides(data: pd.DataFrame, a: str, b: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """a's and b's names as a reader knows them, and their servers' languages (from the
    rows, else from the registry)."""
    names = (reader_name(data, a), reader_name(data, b))
    languages = []
    for side in (a, b):
        rows = data[data["target"] == side] if "language" in data else data.iloc[0:0]
        languages.append(str(rows["language"].iloc[0]) if len(rows) else language(side))
    return names, (languages[0], languages[1])


def bound_headline(
    label: str,
    valid: pd.DataFrame,
    a: str,
    b: str,
    names: tuple[str, str],
    why: str,
    column: str,
    runs: Sequence[dict] = (),
    unit: str = "req/s",
) -> Headline:
    """A bound stays a bound: "at least N×" where N is what every session of this
    machine class supports (bounds.over_sessions over ``runs``, spread's rows under
    bounds.extremes), why, and no interval or p-value (an interval around a number the
    tool set would describe the tool); no ratio at all when the bound is closer to 1
    than b's own runs differ (bounds.Bound.informative). A run without a value (a round
    with no capacity at an SLO) is left out, of the bound and of the count, as
    comparison does."""
    valid = valid.dropna(subset=[column])
    low, high = session_runs(valid, a, b, column)
    bound = over_sessions(runs, low / high, own_spread(valid, b, column))
    m = metric(column, unit)
    runs = f"{m.value(low)} vs {m.value(high)} {m.unit}"
    brief = sentence(bound, names, m.name, why, runs, ends=placed_ends(valid, column, names))
    return Headline(
        label=label, verdict=brief, brief=brief,
        ratio=bound.value if bound.informative else None, ci_low=None, ci_high=None,
        ci_level=None, n=str(int((valid["target"] == a).sum())) + "+"
        + str(int((valid["target"] == b).sum())), p=None, significant=False, article="",
        article_ratio=None, reproduced=Verdict.NO_ARTICLE.label, reproduced_why=LOWER_BOUND,
        sessions=bound.sessions,
    )  # fmt: skip


def findings(
    experiment: str,
    title: str,
    question: str,
    answer: str,
    headlines: list[Headline],
    also: Sequence[str] = (),
    plain: str = "",
) -> Findings:
    """The notebook's findings, with the article it re-runs (data/published/sources.csv);
    ``also``: its answers that no ratio headline carries, for page 1; ``plain``: the
    question answered in at most two sentences (analyse.findings.answers)."""
    try:
        cited = source(experiment)
    except ValueError:
        cited = None  # an experiment of our own (e.g. the calibration)
    return Findings(experiment, title, question, answer + band_sentence(headlines), headlines,
                    cited, [a for a in also if a], plain)  # fmt: skip


def band_sentence(headlines: list[Headline]) -> str:
    """What the A/A control of these headlines resolves, once, from its own figures: its
    estimate and the interval printed for it ('' without one)."""
    found = [h for h in headlines if h.resolvable]
    if not found:
        return ""
    h = max(found, key=lambda h: h.resolvable or 0)
    return control_sentence(h.resolvable or 0, h.control)
