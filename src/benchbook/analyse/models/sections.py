"""What a notebook's "Models" section displays, in order: the Universal Scalability Law over
a concurrency sweep (notebook 01) and queueing curves over latency against offered load
(notebook 06) — the fits drawn over the measurements, their values in sentences, where
the data depart from them, and what each model assumes. A sweep or a load too small to
fit says so in a sentence instead of failing, as the smoke profile's two levels are."""

from collections.abc import Mapping, Sequence

import pandas as pd

from benchbook.analyse import tables
from benchbook.analyse.conclusions import bullets
from benchbook.analyse.models import model_plots, queueing_fit, usl, wording
from benchbook.analyse.tables import valid_rows

# The USL has three parameters: three levels fit it, a fourth checks it on one it did not see.
USL_LEVELS = 3
# A queue is anchored at the lightest load; two more points say which model it follows.
QUEUE_POINTS = 3
# Flags that say the load tool, not the server, may have set a run's latencies.
TOOL_AT_ITS_LIMIT = ("client_bound", "workers_exhausted")


def usl_section(
    sweep: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    connections: float,
    article_ratio: float | None = None,
) -> list[object]:
    """The fitted curves over the sweep's rounds, the table of λ, σ, κ and N*, a sentence
    per target, then per pair (a, b) the predicted ratio over N beside the one the sweep's
    own rounds measured at ``connections`` (the same session's runs) and the article's
    figure."""
    from IPython.display import Markdown

    levels = valid_rows(sweep).groupby("target")["connections"].nunique()
    fitted = [t for t in dict.fromkeys(sweep["target"]) if levels.get(t, 0) >= USL_LEVELS]
    if not fitted:
        return [
            Markdown(
                f"No fit: this sweep measured {int(levels.max()) if len(levels) else 0} "
                f"concurrency level(s) with valid runs; the USL has three parameters, so it "
                f"needs {USL_LEVELS}, and {USL_LEVELS + 1} or more to check it on a level "
                "it did not see."
            )
        ]
    fits = {target: usl.fit(sweep, target) for target in fitted}
    lines = [wording.usl_sentence(fit) for fit in fits.values()]
    lines += [wording.holdout_sentence(fit) for fit in fits.values()]
    lines += [s for fit in fits.values() for s in wording.contradiction_sentences(fit)]
    shown: list[object] = [
        model_plots.usl_curves(fits),
        tables.styled(wording.usl_table(fits)),
        Markdown(bullets(lines + [wording.USL_ASSUMES])),
    ]
    for a, b in pairs:
        if a not in fits or b not in fits:
            continue
        ratio = usl.predicted_ratio(fits[a], fits[b], usl.span(fits, connections))
        at = sweep[sweep["connections"] == connections]
        here = usl.measured_ratio(at, a, b) if {a, b} <= set(at["target"]) else None
        shown += [
            model_plots.ratio_curve(
                ratio,
                (a, b),
                article=(connections, article_ratio) if article_ratio else None,
                measured=(connections, here) if here else None,
            ),
            Markdown(wording.ratio_sentence(ratio, connections, (a, b), here, article_ratio)),
        ]
    return shown


def queueing_section(
    load: pd.DataFrame, capacities: Mapping[str, float], slos: Mapping[str, float]
) -> list[object]:
    """Per target with enough offered rates below its capacity: the table of each model's
    miss and SLO crossing, latency against utilisation with the models over it, and a
    sentence on which model the p99 follows."""
    from IPython.display import Markdown

    fits, skipped, tool_limited = {}, [], []
    for target, rows in valid_rows(load).groupby("target", sort=False):
        server = str(rows["server"].iloc[0])
        try:
            points = queueing_fit.load_points(load, str(target), capacities[server])
        except ValueError:  # every run at a rate the tool fell short of
            points = pd.DataFrame({"rho": []})
        if (points["rho"] < 1).sum() < QUEUE_POINTS:
            skipped.append(str(target))
            continue
        fits[str(target)] = queueing_fit.fit(
            load, str(target), capacities[server], slos.get(str(target))
        )
        limited = rows["flags"].fillna("").str.contains("|".join(TOOL_AT_ITS_LIMIT)).sum()
        if limited:
            tool_limited.append(f"{target} ({limited} of {len(rows)} runs)")
    if not fits:
        return [
            Markdown(
                f"No fit: no server was offered {QUEUE_POINTS} or more rates below its "
                "capacity, the fewest that say which queue its latency follows."
            )
        ]
    lines = [wording.queue_sentence(fit) for fit in fits.values()]
    if tool_limited:
        lines.append(
            "The load tool was at its limit in runs of " + ", ".join(tool_limited) + ": "
            "there the latencies describe the tool's schedule as much as the server's queue."
        )
    if skipped:
        lines.append(
            f"Not fitted: {', '.join(skipped)} (fewer than {QUEUE_POINTS} offered rates below "
            "capacity with valid runs the tool kept up with)."
        )
    return [
        tables.styled(wording.queue_table(fits)),
        *(model_plots.latency_vs_utilisation(fit) for fit in fits.values()),
        Markdown(bullets(lines + [wording.QUEUE_ASSUMES])),
    ]
