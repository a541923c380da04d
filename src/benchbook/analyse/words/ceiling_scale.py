"""Every server of a run placed on the scale of its ceiling: the fastest server there in a
language compiled without a garbage collector (a language the registry declares so, as
servers.toml declares Rust), which shows what a server reaches on the same cores with
nothing between its code and the machine. "Go net/http reaches 93 % of the ceiling"
— each server's paired ratio to it (pairing.comparison) with its interval. A run with
no such server gets no sentence. A ceiling is a server that met its own limit, its CPU,
in most of its runs (rows.limits). Where the load tool was the limit instead, its rate
is only a lower bound of the ceiling, and every share of it an upper bound: the sentence
says so. Where anything else set its rate (the requests in flight it held, say), it is no
ceiling: the sentence gives its rate "at the same settings" and what set it, no share.
Nor is it a ceiling of a server that served as much as it (no significant difference):
the sentence says that server reached it."""

from collections.abc import Mapping

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import comparison
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.rows.counted import without_controls
from benchbook.analyse.rows.limits import counted_rows, reason, side_limit
from benchbook.analyse.rows.names import reader_name
from benchbook.runs.languages import Language, load_languages
from benchbook.runs.limits import SERVER_BOUND_SHARE, Limit


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
    valid = without_controls(counted_rows(results, column))
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
    unit = "req/s" if column == "rps" else column
    name, rate = reader_name(valid, ceiling), fmt.count(medians[ceiling])
    side = side_limit(valid, ceiling)
    reached = f"{name}, compiled with no garbage collector, reached {rate} {unit} here"
    if side is not None and side.limit not in (Limit.SERVER, Limit.LOAD_TOOL):
        return (
            f"{name}, compiled with no garbage collector, reached {rate} {unit} (median) at "
            f"the same settings, but its rate was set by {reason(side)}, not by its CPU: it "
            "is no ceiling here, and no server is placed on it."
        )
    if side is not None and side.limit == Limit.LOAD_TOOL:
        shares = [f"{first_name} {_at_most(first)}"]
        shares += [f"{other} {_at_most(c)}" for other, c in rest]
        higher, own = "lies higher", side.server_share
        if own is not None and own >= SERVER_BOUND_SHARE:  # the server at its own limit too
            higher = f"lies at or a little above it (its own CPU was at {fmt.percent(own)} too)"
        return (
            f"{reached} (this session's median), but {reason(side)} set that rate in "
            f"{side.runs} of {side.of} runs: the ceiling "
            f"{higher}, so each share of it is an upper bound: " + ", ".join(shares) + "."
        )
    if first.significant and first.ratio > 1:  # a server above it: no ceiling of anything
        interval = fmt.ci(first.ratio_low, first.ratio_high, first.ratio_confidence)
        return (
            f"{reached} (this session's median), but {first_name} served "
            f"{fmt.ratio(first.ratio)} that ({interval}): so it is no "
            "ceiling here, and no server's rate is given as a share of it."
        )
    by_cpu = "" if side is None else f"; its CPU set its rate in {side.runs} of {side.of} runs"
    if not first.significant:  # a server as fast as it: no ceiling above that one
        return _reached(f"{reached} (this session's median{by_cpu})", (first_name, first), rest)
    shares = [f"{first_name} reaches {_share(first, 'of the ceiling ')}"]
    shares += [f"{other} {_share(c)}" for other, c in rest]
    return (
        f"{name}, compiled with no garbage collector, set the ceiling "
        f"here at {rate} {unit} (this session's median{by_cpu}): " + ", ".join(shares) + "."
    )


def _reached(said: str, first: tuple[str, Comparison], rest: list[tuple[str, Comparison]]) -> str:
    """The no-GC server ``said`` with a server not significantly slower (``first``): no
    ceiling measurably above that one (its share's interval holds 100 %, so the words claim
    no equality), and the others' shares of its rate."""
    name, c = first
    others = "".join(f"; {other} reached {_share(o, 'of its rate ')}" for other, o in rest)
    share = _share(c, "of it ")
    reached = f"{name} reached {share}, a share these runs cannot tell from all of it"
    return f"{said}, and {reached}, so it set no ceiling measurably above {name}{others}."


def _share(c: Comparison, of: str = "") -> str:
    """'93 % of the ceiling (95 % CI 90–95 %)': a server's ratio to the ceiling as a
    share, with the interval of the comparison when it has one."""
    if any(v != v for v in (c.ratio_low, c.ratio_high)) or not c.ratio_confidence:
        return f"{fmt.share_point(c.ratio)} {of}".strip()
    interval = fmt.share_interval(c.ratio_low, c.ratio_high)
    return f"{fmt.share_point(c.ratio)} {of}({fmt.level(c.ratio_confidence)} {interval})"


def _at_most(c: Comparison) -> str:
    """A share of a ceiling the load tool held down, as the upper bound it is: 'at most
    57 % (the upper end of the 95 % CI of the 54 % measured, round by round)' — the
    interval's lower end bounds nothing, as the ceiling lies higher. A paired share is the
    typical round's, not the medians' ratio."""
    if any(v != v for v in (c.ratio_low, c.ratio_high)) or not c.ratio_confidence:
        return f"at most {fmt.share_point(c.ratio)} (as measured)"
    measured = f"{fmt.share_point(c.ratio)} measured{', round by round' if c.paired else ''}"
    return (
        f"at most {fmt.share_point(c.ratio_high)} (the upper end of the "
        f"{fmt.level(c.ratio_confidence)} of the {measured})"
    )
