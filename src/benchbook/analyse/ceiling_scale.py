"""Every server of a run placed on the scale of its ceiling: the fastest server there in a
language compiled without a garbage collector (a language the registry declares so, as
servers.toml declares Rust), which shows what a server reaches on the same cores with
nothing between its code and the machine. "Go net/http reaches 93 % of the ceiling"
— each server's paired ratio to it (pairing.comparison) with its interval. A run with
no such server gets no sentence."""

from collections.abc import Mapping

import pandas as pd

from benchbook.analyse import formatting as fmt
from benchbook.analyse.names import reader_name
from benchbook.analyse.pairing import comparison
from benchbook.analyse.stats import Comparison
from benchbook.analyse.tables import valid_rows, without_controls
from benchbook.runs.languages import Language, load_languages


def ceiling_targets(
    rows: pd.DataFrame, declared: Mapping[str, Language] | None = None
) -> list[str]:
    """The targets of ``rows`` whose server's language is compiled without a garbage
    collector (the rows' ``language``, as ``declared``: servers.toml's by default)."""
    if "language" not in rows or rows.empty:
        return []
    declared = load_languages() if declared is None else declared
    languages = rows.groupby("target", sort=False)["language"].first()
    return [t for t, name in languages.items() if name in declared and declared[name].is_ceiling]


def sentence(
    results: pd.DataFrame, column: str = "rps", declared: Mapping[str, Language] | None = None
) -> str:
    """'Rust hyper (tokio, 1 thread), compiled with no garbage collector, set the ceiling
    here at 14,000 req/s (median): Go net/http reaches 93 % of the ceiling (95 % CI
    90–95 %), FastAPI (asyncio + h11) 21 % (…).' — from the valid rows of ``results``
    (A/A copies left out); '' when they hold no ceiling server or nothing to place on it."""
    valid = without_controls(valid_rows(results))
    ceilings = ceiling_targets(valid, declared)
    if not ceilings:
        return ""
    medians = valid.groupby("target")[column].median()
    ceiling = max(ceilings, key=lambda target: medians[target])
    placed = []
    for target in dict.fromkeys(valid["target"]):
        if target in ceilings:
            continue
        if (c := comparison(valid, target, ceiling, column)) is not None:
            placed.append((reader_name(valid, target), c))
    if not placed:
        return ""
    placed.sort(key=lambda named: -named[1].ratio)  # nearest the ceiling first, every run
    (first_name, first), rest = placed[0], placed[1:]
    shares = [f"{first_name} reaches {_share(first, 'of the ceiling ')}"]
    shares += [f"{name} {_share(c)}" for name, c in rest]
    unit = "req/s" if column == "rps" else column
    return (
        f"{reader_name(valid, ceiling)}, compiled with no garbage collector, set the ceiling "
        f"here at {fmt.count(medians[ceiling])} {unit} (median): " + ", ".join(shares) + "."
    )


def _share(c: Comparison, of: str = "") -> str:
    """'93 % of the ceiling (95 % CI 90–95 %)': a server's ratio to the ceiling as a
    share, with the interval of the comparison when it has one."""
    if any(v != v for v in (c.ratio_low, c.ratio_high)) or not c.ratio_confidence:
        return f"{fmt.percent(c.ratio)} {of}".strip()
    interval = fmt.share_interval(c.ratio_low, c.ratio_high)
    return f"{fmt.percent(c.ratio)} {of}({fmt.level(c.ratio_confidence)} {interval})"
