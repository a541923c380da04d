"""The report's own templates (the page, the findings macros) and their filters: markdown
as the notebooks render it, anchors, and the findings' numbers as the summary prints them."""

import functools
import re
from pathlib import Path

import jinja2
from markupsafe import Markup
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.words import glossary
from benchbook.analyse.words.findings_format import (
    LOWER_BOUND,
    missing,
    ratio_text,
    ratio_with_ci,
    unpooled,
)
from benchbook.analyse.words.sessions import next_session, pooled_sentence, sd_text

TEMPLATE_DIR = Path(__file__).resolve().parent / "report_template"


def anchor_id(text: str) -> str:
    """An HTML id that survives any run id or file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "x"


def run_anchor(run_id: str) -> str:
    """Anchor of a run in the appendix, shared by the template's links and the appendix."""
    return "run-" + anchor_id(run_id)


def term_anchor(term: str) -> str:
    """The glossary's id of a term: 'interval (95 % CI)' → 'term-interval'."""
    return "term-" + anchor_id(term.split(" (")[0].lower())


# Notation an answer on page 1 may use (a pattern over its HTML, matching only the words
# to link), and the glossary term that explains it: "at least" only as a ratio's lower bound.
NOTATION = (
    (re.escape("95 % CI"), "interval"),
    (glossary.LOWER_BOUND_USE, "lower bound"),
    (r"\d[\d.,]*×\s?lower\b", "N× lower"),
)
# ... then the first use of every other term the glossary explains (its tool names, "sc")
GLOSSED = NOTATION + tuple(
    (pattern, term)
    for pattern, term in glossary.TERMS_IN_USE
    if term_anchor(term) not in {term_anchor(t) for _, t in NOTATION}
)


def glossary_links(html: Markup) -> Markup:
    """Rendered text with the first use of each GLOSSED notation linked to its term."""
    text = str(html)
    for pattern, term in GLOSSED:
        text = re.sub(
            rf"(?<!\w)(?:{pattern})(?![^<]*</a>)(?![^<>]*>)",  # not in a link, nor a tag
            lambda used, term=term: f'<a class="term" href="#{term_anchor(term)}">{used[0]}</a>',
            text,
            count=1,
        )
    return Markup(text)


def markdown(source: str | None) -> Markup:
    """Markdown as nbconvert renders the notebooks' cells."""
    return Markup(markdown2html_mistune(source or "").strip())


def markdown_inline(source: str | None) -> Markup:
    """One paragraph of markdown without its <p>, for a table cell or a list item."""
    rendered = markdown(source)
    match = re.fullmatch(r"<p>(.*)</p>", rendered, re.S)
    return Markup(match.group(1)) if match else rendered


def badge_symbol(label: str | None) -> str:
    """The badge of a stored verdict ('?' for one it does not know)."""
    verdict = Verdict.of(label)
    return verdict.value.badge if verdict else "?"


def reproduced_class(label: str | None) -> str:
    """CSS class of a stored verdict, by the verdict's name (verdict_kinds)."""
    verdict = Verdict.of(label)
    return verdict.css_class if verdict else "verdict-other"


def claim_attributes(headline: dict) -> Markup:
    """The numbers a badge stands for, unrounded, as data attributes for render.audit: its
    verdict, the article's figure and the interval it was judged on (the next-session
    prediction the answer prints, else this session's interval: Replication.judged), and
    for a lower bound the bound and each session's bound it is the lowest of."""
    attributes = {
        "data-label": headline.get("label", ""),
        "data-verdict": headline.get("reproduced") or "",
    }
    judged = ("predict_low", "predict_high")
    if missing(headline.get("predict_low")):
        judged = ("ci_low", "ci_high")
    low, high = (headline.get(key) for key in judged)
    if not any(missing(v) for v in (headline.get("article_ratio"), low, high)):
        attributes |= {
            "data-article": headline["article_ratio"],
            "data-low": low,
            "data-high": high,
        }
    if headline.get("reproduced_why") == LOWER_BOUND and not missing(headline.get("ratio")):
        over = [
            run["ratio"]
            for run in headline.get("spread", [])
            if run.get("same_conditions") and not run.get("set_apart")
            and run.get("machine_class") == headline.get("machine_class")
            and not missing(run.get("ratio"))
        ]  # fmt: skip
        attributes |= {"data-bound": headline["ratio"], "data-sessions": " ".join(map(repr, over))}
    return Markup(
        "".join(f' {name}="{Markup.escape(value)}"' for name, value in attributes.items())
    )


def summary_why(label: str | None) -> bool:
    """The summary's row gives the verdict's reason unless the verdict says it all."""
    verdict = Verdict.of(label)
    return not (verdict and verdict.value.self_explained)


def unsaid_headlines(findings: dict) -> list[dict]:
    """The headlines whose brief a findings' answer does not already hold (an answer box
    lists those, not every one twice)."""
    answer = str(findings.get("answer") or "")
    return [h for h in findings["headlines"] if not h.get("brief") or h["brief"] not in answer]


def pooled_words(headline: dict) -> Markup:
    """A pooled headline's estimate and intervals as its answer words them (a time below 1×
    as 'N× lower'), so the sessions appendix prints one fact the way the answer does."""
    text = pooled_sentence(
        headline["pooled_ratio"],
        (headline["pooled_low"], headline["pooled_high"]),
        (headline["predict_low"], headline["predict_high"]),
        str(headline.get("metric") or ""),
    )
    return Markup(str(Markup.escape(text)).replace(" %", "&nbsp;%"))


def next_session_words(headline: dict) -> Markup:
    """An unpooled headline's prediction for the next session, worded as its answer words
    it (words.sessions.next_session)."""
    low, high = headline["predict_low"], headline["predict_high"]
    text = next_session(fmt.interval(low, high), low, high)
    return Markup(str(Markup.escape(text)).replace(" %", "&nbsp;%"))


@functools.cache
def page_environment() -> jinja2.Environment:
    """The report's own templates (page, findings), autoescaped, with its filters."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR), autoescape=True, keep_trailing_newline=True
    )
    environment.filters.update(
        markdown=markdown,
        markdown_inline=markdown_inline,
        ratio=ratio_text,
        interval=lambda low, high: "—" if missing(low) else fmt.interval(low, high),
        level=lambda level: "—" if missing(level) else fmt.level(level).removesuffix(" CI"),
        ratio_with_ci=ratio_with_ci,
        reproduced_class=reproduced_class,
        badge_symbol=badge_symbol,
        summary_why=summary_why,
        claim_attributes=claim_attributes,
        run_anchor=run_anchor,
        term_anchor=term_anchor,
        glossary_links=glossary_links,
        unsaid_headlines=unsaid_headlines,
        p_value=lambda p: "—" if missing(p) else fmt.p_value(p),
        unpooled=unpooled,
        tau_spread=lambda tau: Markup(sd_text(tau**2).replace(" %", "&nbsp;%")),
        pooled_sentence=pooled_words,
        next_session=next_session_words,
    )
    environment.globals["lower_bound"] = LOWER_BOUND  # a headline's reproduced_why
    return environment
