"""A notebook's Conclusion, declared: the comparisons it heads with and the parts of its
answer, built into its Findings in one call. The wording lives in the notebook (it is
the notebook's answer); how the parts become one answer lives here, once, so no
Conclusion cell assembles strings by hand.

An answer part is either text or a template over the headlines: ``{0.brief}`` is the
first headline's brief, ``{1.reproduced_why}`` the second's reason (any Headline field).
Only such fields are filled, so text computed elsewhere (which may hold braces) passes
through unchanged. A part may also be a function of the headlines (``briefs``), for a
notebook whose number of headlines follows its parameters.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from benchbook.analyse.findings.headlines import Findings, Headline, headline
from benchbook.analyse.findings.headlines import findings as _findings
from benchbook.analyse.words.findings_format import comparison
from benchbook.analyse.words.flags import CAUTION

Part = str | Callable[[Sequence[Headline]], str]
_FIELD = re.compile(r"\{(\d+)\.([a-z_]+)\}")


@dataclass(frozen=True, eq=False)
class Compare:
    """One headline, declared: ``a`` against ``b`` in ``rows`` (their experiment's stored
    runs give its sessions), the article's claim as ``published.article_claim`` returns
    it, and any other keyword of ``findings.headline`` in ``options``."""

    label: str
    rows: pd.DataFrame
    a: str
    b: str
    experiment: str
    article: tuple[str, float | None] = ("", None)
    options: Mapping[str, object] = field(default_factory=dict)

    def headline(self) -> Headline:
        claim, ratio = self.article
        return headline(
            self.label,
            self.rows,
            self.a,
            self.b,
            experiment=self.experiment,
            article=claim,
            article_ratio=ratio,
            **self.options,
        )


def compare(
    label: str,
    rows: pd.DataFrame,
    a: str,
    b: str,
    experiment: str,
    article: tuple[str, float | None] = ("", None),
    **options: object,
) -> Compare:
    """A headline declared with ``findings.headline``'s own keywords (select=,
    sides_are=, cross_check=, differences=, …), so a notebook reads as before."""
    return Compare(label, rows, a, b, experiment, article, options)


def findings(
    experiment: str,
    title: str,
    question: str,
    headlines: Sequence[Compare],
    answer: Sequence[Part],
    plain: Callable[[Sequence[Headline]], str],
    also: Sequence[str] = (),
) -> Findings:
    """The notebook's findings: each declared headline built, the answer's parts filled
    from them and joined, ``plain`` (analyse.findings.answers) given the built headlines."""
    built = [h.headline() for h in headlines]
    text = cautions_once(" ".join(fill(part, built) for part in answer).strip(), built)
    return _findings(experiment, title, question, text, built, also=also, plain=plain(built))


def fill(part: Part, headlines: Sequence[Headline]) -> str:
    """One answer part as text: a function of the headlines called, a template's
    ``{i.field}`` replaced by that headline's field, any other text kept."""
    if callable(part):
        return part(headlines)
    return _FIELD.sub(lambda m: str(getattr(headlines[int(m[1])], m[2])), part)


def briefs(headlines: Sequence[Headline]) -> str:
    """Every headline's brief in order: the answer when the headlines say it all."""
    return " ".join(h.brief for h in headlines)


def cautions_once(text: str, headlines: Sequence[Headline]) -> str:
    """``text`` with each headline's caution (conclusions.caution, the end of its brief)
    kept where it first appears only: two headlines sharing a side share its flags, and
    an answer that quotes both briefs would say the caution twice."""
    for note in dict.fromkeys(h.brief.partition(" " + CAUTION)[2] for h in headlines):
        if not note:
            continue
        said = " " + CAUTION + note
        first = text.find(said) + len(said)
        if first >= len(said):
            text = text[:first] + text[first:].replace(said, "")
    return text


def verdicts_by_side(headlines: Sequence[Headline]) -> str:
    """One article figure judged against each second side (notebook 01: each FastAPI
    setup): "Against the article's 4.9× — with A: reproduced (…); with B: …"."""
    if not headlines:
        return ""
    verdicts = [f"with {h.sides[1]}: {h.reproduced} ({h.reproduced_why})" for h in headlines]
    return f"Against the article's {headlines[0].article} — " + "; ".join(verdicts) + "."


def verdicts_by_figure(headlines: Sequence[Headline]) -> str:
    """Each article figure judged by its own headline (notebook 05: one per operation):
    "Against the article's figures — Python backend, HealthCheck, its 3.1× (…): not
    reproduced (…); …". The verdict and its reason are the headline's own, as its row of
    the findings table prints them, so the answer cannot say what the table does not."""
    judged = [h for h in headlines if h.article]
    if not judged:
        return ""
    parts = [
        f"{comparison(h.label)}, its {h.article}: {h.reproduced} ({h.reproduced_why})"
        for h in judged
    ]
    return "Against the article's figures — " + "; ".join(parts) + "."
