"""Figures quoted from the source articles, set beside what benchbook measured.

Machines differ, so the comparison that means something is between ratios (A/B in
the article vs A/B here), not between absolute numbers.
"""

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.rows.counted import flag_counts, with_derived
from benchbook.runs.layout import PUBLISHED_DIR

METRICS = {
    "rps": "requests per second",
    "lat_mean_ms": "mean latency (ms)",
    "lat_max_ms": "max latency (ms)",
    "timeouts_per_million": "timeouts per million requests",
}

# The header of a ratio of medians, as the article's are: a comparison table's ratio is the
# Hodges-Lehmann estimate, which can differ in its last digit (0.957× beside 0.959×).
OF_MEDIANS = " (ratio of medians)"


SOURCES = PUBLISHED_DIR / "sources.csv"


def source(experiment: str) -> dict[str, str | None]:
    """The article behind an experiment: title, author, url, language, published, what
    (data/published/sources.csv)."""
    table = pd.read_csv(SOURCES, dtype=str).set_index("experiment")
    if experiment not in table.index:
        raise ValueError(f"{experiment}: no source in {SOURCES}; have {', '.join(table.index)}")
    row = table.loc[experiment]
    return {key: (None if pd.isna(value) else value) for key, value in row.items()}


def citation(experiment: str) -> str:
    """'Source: “Title”, Author, 2021 (Portuguese): <url>' in Markdown."""
    s = source(experiment)
    who = f", {s['author']}" if s["author"] else ""
    link = f": <{s['url']}>" if s["url"] else ""
    return (
        f"**Source:** “{s['title']}”{who}, {s['published']} ({s['language']}; {s['what']}){link}. "
        f"Its published figures: `data/published/{experiment}.csv`."
    )


def article_claim(
    experiment: str, metric: str, a: str, b: str, unit: str = "req/s"
) -> tuple[str, float]:
    """The article's a/b ratio on ``metric`` and how it reads: ('4.9× (39,652 vs 8,083
    req/s)', 4.905…)."""
    table = load_published(experiment)
    va, vb = table.loc[a, metric], table.loc[b, metric]
    number = fmt.count if unit in ("req/s", "requests") else fmt.milliseconds
    return f"{fmt.ratio(va / vb)} ({number(va)} vs {number(vb)} {unit})", float(va / vb)


def load_published(experiment: str) -> pd.DataFrame:
    """data/published/<experiment>.csv as a table side × metric."""
    frame = pd.read_csv(PUBLISHED_DIR / f"{experiment}.csv")
    wide = frame.pivot(index="side", columns="metric", values="value")
    if {"err_timeout", "requests"} <= set(wide.columns):
        wide["timeouts_per_million"] = wide["err_timeout"] / wide["requests"] * 1e6
    return wide


def _ratio(a: float, b: float) -> float:
    return a / b if b else np.nan


def published_vs_reproduced(
    results: pd.DataFrame,
    published: pd.DataFrame,
    sides: tuple[str, str],
    reproduced: Mapping[str, Sequence[str]],
    metrics: Mapping[str, str] = METRICS,
) -> pd.DataFrame:
    """One row per metric: the article's two values and ratio, then, for each pair of
    our targets standing for the two sides, the medians measured here and their ratio.

    ``reproduced`` maps each side to the target(s) that stand for it here.
    """
    data = with_derived(results)
    medians = data.groupby("target")[list(metrics)].median()
    flags = data.groupby("target")["flags"].agg(flag_counts)
    a, b = sides
    rows = []
    for metric, label in metrics.items():
        row: dict[str, object] = {
            "metric": label,
            f"article {a}": published.loc[a, metric],
            f"article {b}": published.loc[b, metric],
            f"article {a}/{b}": _ratio(published.loc[a, metric], published.loc[b, metric]),
        }
        for target_a in reproduced[a]:
            for target_b in reproduced[b]:
                here_a, here_b = medians.loc[target_a, metric], medians.loc[target_b, metric]
                row[f"here {target_a}"] = here_a
                row[f"here {target_b}"] = here_b
                row[f"here {target_a} / {target_b}{OF_MEDIANS}"] = _ratio(here_a, here_b)
        rows.append(row)
    flag_row: dict[str, object] = {"metric": "flags (runs here)"}
    for side in (a, b):
        for target in reproduced[side]:
            flag_row[f"here {target}"] = flags[target]
    rows.append(flag_row)
    return pd.DataFrame(rows).set_index("metric")
