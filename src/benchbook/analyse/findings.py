"""What a notebook found, as data: its answer, its headline comparisons, whether the
article's claim reproduced, and how the same comparison came out in every stored run.

A notebook displays a Findings object once (in its Conclusion). In JupyterLab it shows
as the answer and a table; in the report (FINDINGS_MIME) it becomes the section's answer
box and a row of the summary page, so a notebook added later joins the summary without
any change to the report code.
"""

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import pandas as pd

from benchbook.analyse import formatting as fmt
from benchbook.analyse.conclusions import compare_targets, flag_tally, verdict
from benchbook.analyse.findings_format import FINDINGS_MIME
from benchbook.analyse.names import language, reader_name
from benchbook.analyse.pairing import aa_band, comparison, count_text, too_few, within_band
from benchbook.analyse.published import source
from benchbook.analyse.replication import Replication, replication, spread
from benchbook.analyse.stats import ALPHA, Comparison
from benchbook.analyse.tables import valid_rows

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
SOMETHING_ELSE = "the article measured something else"
NO_ARTICLE = "no article figure"
TOO_FEW_RUNS = "too few runs"
SAME_DIRECTION = "same direction, different size"
TOOL_LIMIT = "on this machine, the load tool was the limit"
NOT_RESOLVABLE = "not resolvable on this machine"
NO_VALID_RUNS = "no valid runs"
# Flags that say a load tool, not the server, set a number.
TOOL_LIMIT_FLAGS = ("client_bound", "near_tool_ceiling")


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
    # The smallest ratio an A/A control in the same rounds resolves (None: no control).
    resolvable: float | None = None
    # Sessions of the same comparison behind the verdict (this one included), the range
    # of their estimates, the interval the verdict was judged on (the wider of this
    # session's and that range), and whether the estimate moved with the machine's speed.
    sessions: int = 1
    sessions_low: float | None = None
    sessions_high: float | None = None
    judged_low: float | None = None
    judged_high: float | None = None
    moved: str = ""
    languages: tuple[str, str] = ("", "")  # the two sides' servers' languages
    metric: str = ""  # the column compared, e.g. "rps"


@dataclass
class Findings:
    experiment: str
    title: str
    question: str
    answer: str
    headlines: list[Headline]
    source: dict | None = None

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


def reproduction(
    c: Comparison | None,
    article_ratio: float | None,
    tool_limited: str = "",
    measured_else: str = "",
    differences: str = "",
    band: float | None = None,
    sessions: Replication | None = None,
) -> tuple[str, str]:
    """Whether the article's figure reproduced here, by magnitude, and why.

    "Reproduced" only when the article's ratio lies inside our interval — the wider of
    this session's and the stored sessions' range (``sessions``); a significant ratio in
    the same direction but of another size names what differs in the setup
    (``differences``, from the notebook). "The article measured something else" needs
    evidence from the article itself (``measured_else``); a load tool that limited our
    runs under the article's settings (``tool_limited``) says so, on this machine."""
    if article_ratio is None:
        return NO_ARTICLE, "the article gives no figure to compare"
    if measured_else:
        return SOMETHING_ELSE, measured_else
    if tool_limited:
        return TOOL_LIMIT, tool_limited
    if c is None or c.ratio != c.ratio:
        return NO_VALID_RUNS, "no valid runs to compare"
    # The reason sits beside our ratio and interval (summary, headline table): it names
    # the article's figure and how ours relates to it, not our numbers again.
    article = fmt.ratio(article_ratio)
    if too_few(c):
        return TOO_FEW_RUNS, (
            f"{count_text(c)} runs cannot show any difference at p < {ALPHA} "
            f"({article} in the article): run more repetitions"
        )
    sessions = sessions or Replication(sessions=1)
    low, high = sessions.judged(c)
    where = "the interval"
    if sessions.sessions >= 2:
        where = f"the range judged on ({sessions.text()}, and this session's interval)"
    if c.ratio_confidence and low <= article_ratio <= high:
        return REPRODUCED, f"the article's {article} lies within {where} here"
    if c.significant and within_band(c, band):
        return NOT_RESOLVABLE, f"within what an A/A control strays here; {article} in the article"
    if c.significant and sessions.disagree():
        return NOT_RESOLVABLE, (
            f"the {sessions.text()} lie on both sides of 1; {article} in the article"
        )
    if not c.significant:
        return NOT_REPRODUCED, f"no significant difference here; {article} in the article"
    if (c.ratio > 1) == (article_ratio > 1):
        size = "larger" if abs(math.log(c.ratio)) > abs(math.log(article_ratio)) else "smaller"
        why = f"the article's {article} lies outside {where}, {size} here"
        return SAME_DIRECTION, f"{why}; what differs: {differences}" if differences else why
    return NOT_REPRODUCED, f"the opposite direction to the article's {article}"


def tool_limited(results: pd.DataFrame, targets: list[str]) -> str:
    """'…' when most runs of every target carry a load-tool limit flag, else ''."""
    tallies = {t: flag_tally(results, t) for t in targets}
    limited = {}
    for target, tally in tallies.items():
        shares = [tally[f] for f in TOOL_LIMIT_FLAGS if f in tally]
        best = max((int(s.split("/")[0]) / int(s.split("/")[1]) for s in shares), default=0)
        if best < 0.5:
            return ""
        limited[target] = ", ".join(f"{f} {tally[f]}" for f in TOOL_LIMIT_FLAGS if f in tally)
    return (
        "its load tool was the limit on both sides ("
        + "; ".join(f"{t}: {flags}" for t, flags in limited.items())
        + ")"
    )


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
    judge_tool_limit: bool = False,
    measured_else: str = "",
    differences: str = "",
    lower_bound: str = "",
    select: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
) -> Headline:
    """One headline comparison a/b on ``column`` (valid runs only; a and b named as a
    reader knows them), its verdict with its flags' caveats, the verdict against
    ``article_ratio``, and the comparison in every stored run of ``experiment``
    (``select``: its rows of a run). ``measured_else``: the article's own evidence that it
    measured something else; ``differences``: what in this setup moves the ratio (cores,
    concurrency, run length, tool); ``lower_bound``: why a's figure is a lower bound (its
    tool was the limit): "at least N×", no interval or p-value."""
    data = select(results) if select else results
    names, languages = _sides(data, a, b)
    label = label.replace(a, names[0]).replace(b, names[1])
    valid = valid_rows(data)
    c = comparison(valid, a, b, column)
    band = _control_band(valid, results, column)
    limited = tool_limited(data, [a, b]) if judge_tool_limit else ""
    current = set(data["run_id"]) if "run_id" in data else set()
    runs = spread(experiment, a, b, column, select, current)
    sessions = replication(c, runs)
    reproduced, why = reproduction(
        c, article_ratio, limited, measured_else, differences, band, sessions
    )
    if lower_bound and c is not None:
        bound = bound_headline(label, c, *names, lower_bound, runs, sessions)
        return replace(bound, languages=languages, metric=column)
    return Headline(
        label=label,
        verdict=compare_targets(data, a, b, column, unit, names) + _across(c, sessions),
        brief=_brief(c, *names, column, unit, band, sessions),
        ratio=c.ratio if c else None,
        ci_low=c.ratio_low if c else None,
        ci_high=c.ratio_high if c else None,
        ci_level=c.ratio_confidence if c else None,
        n=count_text(c) if c else "0",
        p=c.p_value if c else None,
        significant=bool(c and c.significant and not sessions.disagree()),
        article=article,
        article_ratio=article_ratio,
        reproduced=reproduced,
        reproduced_why=why,
        resolvable=band,
        languages=languages,
        metric=column,
        **_sessions_fields(runs, sessions, c),
    )


def _control_band(valid: pd.DataFrame, results: pd.DataFrame, column: str) -> float | None:
    """The A/A band of the rows compared, else of the whole run (a selection, such as one
    pooled over paths, may leave the control out); None without a control."""
    control = aa_band(valid, column) or aa_band(valid_rows(results), column)
    return control[1] if control else None


def _sides(data: pd.DataFrame, a: str, b: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """a's and b's names as a reader knows them, and their servers' languages (from the
    rows, else from the registry)."""
    names = (reader_name(data, a), reader_name(data, b))
    languages = []
    for side in (a, b):
        rows = data[data["target"] == side] if "language" in data else data.iloc[0:0]
        languages.append(str(rows["language"].iloc[0]) if len(rows) else language(side))
    return names, (languages[0], languages[1])


def _sessions_fields(runs: list[dict], sessions: Replication, c: Comparison | None) -> dict:
    """A headline's stored runs, the sessions among them behind its verdict, and the
    interval the verdict was judged on (none for a bound)."""
    judged = sessions.judged(c) if c else (None, None)
    return {
        "judged_low": judged[0],
        "judged_high": judged[1],
        "spread": runs,
        "sessions": sessions.sessions,
        "sessions_low": sessions.low,
        "sessions_high": sessions.high,
        "moved": sessions.moved,
    }


def bound_headline(
    label: str,
    c: Comparison,
    a: str,
    b: str,
    why: str,
    runs: list[dict],
    sessions: Replication,
) -> Headline:
    """A bound stays a bound: "at least N×", why, and no interval or p-value (an interval
    around a number the tool set would describe the tool)."""
    brief = f"**{a}** took **at least {fmt.ratio(c.ratio)}** the load of **{b}**: {why}."
    return Headline(
        label=label, verdict=brief, brief=brief, ratio=c.ratio, ci_low=None, ci_high=None,
        ci_level=None, n=count_text(c), p=None, significant=False, article="",
        article_ratio=None, reproduced=NO_ARTICLE, reproduced_why="a lower bound",
        **_sessions_fields(runs, sessions, None),
    )  # fmt: skip


def _brief(
    c: Comparison | None,
    a: str,
    b: str,
    column: str,
    unit: str,
    band: float | None,
    sessions: Replication,
) -> str:
    """The answer and its interval; a ratio inside the A/A band, or one whose direction
    the stored sessions do not share, is no verdict at all."""
    if c is None:
        return "not ranked: no valid runs."
    if c.significant and within_band(c, band):
        return (
            f"**Not resolvable on this machine**: {a} vs {b} {fmt.ratio(c.ratio)} is within "
            f"the ±{(band - 1) * 100:.0f} % that the same server measured twice strays here "
            "(A/A control)."
        )
    if c.significant and sessions.disagree():
        return (
            f"**Not resolvable on this machine**: {a} vs {b} {fmt.ratio(c.ratio)} in this "
            f"session, but the {sessions.text()} lie on both sides of 1."
        )
    return verdict(c, a, b, column, unit, brief=True) + _across(c, sessions)


def _across(c: Comparison | None, sessions: Replication) -> str:
    """' Judged on 4.2–6.1× across 3 sessions.' — the interval the verdict used, when
    stored sessions of the same comparison widened it; nothing with one session."""
    if c is None or sessions.sessions < 2:
        return ""
    low, high = sessions.judged(c)
    if (low, high) == (c.ratio_low, c.ratio_high):
        return f" The {sessions.sessions} sessions' estimates lie within it."
    return f" Judged on {fmt.interval(low, high)} across {sessions.sessions} sessions."


def pinning_caveat(run: object) -> str:
    """'Each server ran on 1 of the machine's 2 cores, so Go's GOMAXPROCS was 1.' — from
    the run's manifest: pinning changes what a Go server can do."""
    manifest = run.manifest()
    cpus = manifest["params"]["pinning"]["server_cpus"]
    total = manifest["provenance"]["machine"]["logical_cpus"]
    if not cpus:
        return (
            f"The servers were not pinned: they shared the machine's {total} cores with "
            "the load tool."
        )
    n = len(cpus)
    return (
        f"Each server ran on {n} of the machine's {total} cores (the load tool on the "
        f"other{'s' if total - n > 1 else ''}), so a Go server's GOMAXPROCS was {n}."
    )


def setup_differences(run: object) -> str:
    """What in this run's setup is known to move a ratio, for a verdict of another size
    than the article's: cores per server, run length, load, rounds (from its manifest;
    the articles' own settings are in each notebook's Setup)."""
    params = run.manifest()["params"]
    cpus = params["pinning"]["server_cpus"]
    parts = [f"{len(cpus)} core per server (GOMAXPROCS {len(cpus)})" if cpus else "no pinning"]
    durations = sorted({load["duration_s"] for load in params["loads"] if load.get("duration_s")})
    if durations:
        parts.append("runs of " + ", ".join(f"{d:g} s" for d in durations))
    for key, name in (("connections", "connections"), ("users", "users")):
        counts = sorted({load[key] for load in params["loads"] if load.get(key)})
        if counts:
            parts.append(f"{', '.join(map(str, counts))} {name}")
    parts.append(f"{params['repetitions']} rounds")
    return ", ".join(parts) + " here (the article's settings: see Setup)"


def findings(
    experiment: str,
    title: str,
    question: str,
    answer: str,
    headlines: list[Headline],
) -> Findings:
    """The notebook's findings, with the article it re-runs (data/published/sources.csv)."""
    try:
        cited = source(experiment)
    except ValueError:
        cited = None  # an experiment of our own (e.g. the calibration)
    return Findings(experiment, title, question, answer + band_sentence(headlines), headlines,
                    cited)  # fmt: skip


def band_sentence(headlines: list[Headline]) -> str:
    """What the A/A control of these headlines resolves, once ('' without one)."""
    bands = {h.resolvable for h in headlines if h.resolvable}
    if not bands:
        return ""
    widest = max(bands)
    return (
        f" An A/A control (one server measured as two targets in the same rounds) strayed "
        f"up to {fmt.ratio(widest)} from itself: ratios closer to 1 than that are not "
        "resolvable on this machine."
    )
