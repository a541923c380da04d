"""The findings a notebook publishes as data, for the report's summary and answer boxes.

A notebook displays one output with the MIME type ``FINDINGS_MIME`` (usually in its
"Conclusion" cell); ``benchbook.render.report`` lifts it into the report's first page (one row
per headline), a run-to-run spread page, and an answer box at the top of the notebook's
section, and renders the output itself in place as a table of the headlines. Its JSON::

    {
      "experiment": "01_io_concurrency",        # the experiment's name, as in manifests
      "title": "Goroutines vs an asyncio …",    # the notebook's title
      "question": "One sentence.",
      "answer": "Markdown, 2–4 sentences: the answer box.",
      "source": {"title": "…", "author": "… or null", "url": "… or null"},
      "headlines": [
        {
          "label": "Go vs FastAPI (asyncio+h11), requests per second",
          "verdict": "Markdown sentence with the ratio, its CI and n.",
          "brief": "The answer and its interval only (optional; summary, answer box).",
          "ratio": 14.3, "ci_low": 11.0, "ci_high": 20.6,   # null: no comparison possible
          "ci_level": 0.968,                                # coverage actually reached
          "n": "5+5", "p": 0.008, "significant": true,
          "article": "4.9× (39,652 vs 8,083 req/s)",        # what the article claimed, as text
          "article_ratio": 4.91,                            # or null
          "reproduced": "reproduced",  # | "not reproduced" | "the article measured
                                       #   something else" | "no article figure"
                                       #   | "too few runs" (no difference could show)
          "reproduced_why": "Short reason.",
          "resolvable": 1.06,          # the A/A control's band, or null
          "machine_class": "AMD EPYC (family 25, model 17, stepping 1), 2 CPUs",
          "sessions": 7,               # on this machine class under the same conditions,
                                       #   this one included
          "pooled_ratio": 5.9, "pooled_low": 5.5, "pooled_high": 6.4,  # levels.pooled;
          "predict_low": 4.7, "predict_high": 7.4,  # below 3 sessions: borrowed (levels)
          "sessions_text": "7 sessions on this machine class",  # words.sessions.sessions_text
          "sessions_basis": "",        # below 3 sessions: what the prediction is built from
          "held_out": [{"run_id": "…", "ratio": 5.6, "predict_low": 4.5,
                        "predict_high": 7.6, "inside": true,  # leave-one-session-out
                        "machine_class": "…", "borrowed": false}],  # 1–2 left: borrowed
          "held_out_elsewhere": [],    # the same check on every other class's sessions
          "other_classes": [{"machine_class": "…", "sessions": 2, "estimate": 6.1,
                             "low": 6.0, "high": 6.2, "go_s": 0.4, "python_s": 0.36,
                             "expected": 6.5,  # the speed references' prediction
                             "cpu_expected": 6.3}],  # the CPU cost's (across_classes)
          "like_for_like": true,       # false: the sides differ beyond language (storage)
          "cross_check": false,        # the same servers under a second load tool
          "set_by": "",                # why the rates compare no servers (rows.limits)
          "classes": "On … (2 sessions): 6.0× (5.8–6.2×). …",  # the other machine classes
          "spread": [                  # every stored run of the experiment, oldest first
            {"run_id": "…", "date": "2026-11-22 04:09", "machine": "hostname (2 CPUs)",
             "speed": "0.51→0.52, 0.53→0.53", "go_s": 0.515, "python_s": 0.53,
             "cpu_per_request": "0.02 / 0.31", "cpu_cost": 15.5,  # b's over a's
             "ratio": 14.3, "ci_low": 11.0, "ci_high": 20.6, "ci_level": 0.968,
             "n": "5+5", "current": true, "same_conditions": true,
             "machine_class": "…",
             "set_apart": ""}          # why a session is never pooled (rows.limits)
          ]
        }
      ]
    }

``ratio``, ``ci_low``, ``ci_high``, ``ci_level`` and ``p`` may be null wherever no
comparison was possible (a lower bound's ``ratio`` too, where it shows only the load
tool's limit: analyse.claims.bounds); ``article`` and ``article_ratio`` are null without an article
figure. Ratios are a/b of medians; a ratio below 1 means the first side was lower.
The report prints these values with ``ratio_text``, ``ci_text`` and ``ratio_with_ci``
below: its summary says once that intervals are 95 %, so a cell names only a level that
falls short of it.
"""

import math
from collections.abc import Mapping

from benchbook.analyse.numbers import formatting as fmt

FINDINGS_MIME = "application/vnd.benchbook.analyse.findings+json"

# The reason of a headline that is a lower bound (no interval, no verdict against a figure).
LOWER_BOUND = "a lower bound"


def comparison(label: str) -> str:
    """What a headline compares, without its metric: a label is '<comparison>: <metric>',
    and either part may hold a colon inside brackets ('… (same storage: the language
    apart): requests per second'), so the first colon outside brackets ends it."""
    depth = 0
    for position, char in enumerate(label):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == ":" and depth == 0:
            return label[:position].strip()
    return label.strip()


def missing(value: object) -> bool:
    """No number to print: null, absent from the JSON, NaN, or not a number at all."""
    return isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value)


def ratio_text(ratio: float | None) -> str:
    """'14×', '0.0031×' (formatting.ratio: two significant digits, never '0.00×'); '—'
    for no ratio."""
    return "—" if missing(ratio) else fmt.ratio(ratio)


def ci_text(low: float | None, high: float | None, level: float | None) -> str:
    """'CI 11–21×' for an interval reaching 95 %, '93.8 % CI 11–21×' for one that
    could not (too few runs), 'no CI' without one."""
    if missing(low) or missing(high) or missing(level) or not level:
        return "no CI"
    label = fmt.level(level)
    label = "CI" if label == fmt.level(fmt.TARGET_LEVEL) else label
    return f"{label} {fmt.interval(low, high)}".replace(" %", "\u00a0%")


def ratio_with_ci(
    ratio: float | None, low: float | None, high: float | None, level: float | None
) -> str:
    """'14× (CI 11–21×)', '14× (93.8 % CI 11–21×)', or 'no comparison'."""
    if missing(ratio):
        return "no comparison"
    return f"{ratio_text(ratio)} ({ci_text(low, high, level)})"


def unpooled(headline: Mapping) -> str:
    """Why a headline with sessions on this class has no pooled estimate: a lower bound is
    never pooled (each session's bound stands alone); otherwise too few sessions."""
    count = headline.get("sessions") or 0
    sessions = f"{count} session{'s' if count != 1 else ''} on this machine class"
    if headline.get("reproduced_why") == LOWER_BOUND:
        return f"{sessions}: a lower bound, not pooled; each session's bound is below"
    return f"{sessions}: not yet replicated"
