"""What set each side's rate, as the analysis uses it: which rows count, each side's
limit over its runs, and that limit in words (the rule itself, per row, is
benchbook.runs.limits').

A row whose rate was set by a busy machine, or by nothing that was measured, says
nothing about its target: it is shown with its reason and never counted in an estimate
of a rate (a busy machine's row is not counted in any estimate). A ratio of two rates is
a comparison of servers only where both were set by their servers (runs.limits.SERVER_SET);
a comparison of load tools only where both were set by the tools.
"""

import math
from dataclasses import dataclass

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.rows.counted import RATE_COLUMNS, counted_rows, not_counted, valid_rows
from benchbook.analyse.rows.names import reader_name
from benchbook.runs.limits import BUSY_FOREIGN_PCT, BUSY_STEAL_PCT, NOT_COUNTED, SERVER_SET, Limit

SERVERS, LOAD_TOOLS = "servers", "load tools"  # what a comparison's sides are
SET_BY = {SERVERS: SERVER_SET, LOAD_TOOLS: (Limit.LOAD_TOOL,)}


def subject(limit: Limit | str) -> str:
    """The limit as a sentence's subject: "the users' wait", "a busy machine"."""
    return {
        Limit.MACHINE: "a busy machine",
        Limit.LOAD_TOOL: "the load tool",
        Limit.OFFERED: "the offered rate",
        Limit.SERVER: "each server's CPU",
        Limit.THINK_TIME: "the users' wait",
        Limit.LINK: "the link",
        Limit.IN_FLIGHT: "the requests in flight",
        Limit.NONE: "nothing measured",
        Limit.UNRECORDED: "something not recorded",
    }[limit]


@dataclass(frozen=True)
class SideLimit:
    """What set one side's rate over its valid runs: the limit most of them met (ties go
    to the one listed first in runs.limits.Limit), in how many, and the medians of the
    figures the rule judged by, over those runs."""

    limit: Limit
    runs: int
    of: int
    server_share: float | None
    server_cores: float | None
    client_share: float | None
    client_cores: float | None
    tool: str
    in_flight: float | None  # connections or users
    cycle_ms: float | None  # in flight ÷ rate: how long each request took, wait included
    think_ms: float | None
    link_ms: float | None
    waits: str  # what the server waits per request ('' for none)
    foreign_pct: float | None
    processes: str  # the busiest other processes, from the busiest run
    steal_pct: float | None

    @property
    def counted(self) -> bool:
        return self.limit not in NOT_COUNTED


def side_limit(rows: pd.DataFrame, target: str) -> SideLimit | None:
    """The limit of ``target``'s valid runs in ``rows`` (None: no valid run, or rows
    without limits)."""
    valid = valid_rows(rows)
    if "limit" not in valid:
        return None
    runs = valid[valid["target"] == target]
    if runs.empty:
        return None
    counts = runs["limit"].value_counts()
    order = list(Limit)
    limit = Limit(min(counts.index, key=lambda name: (-counts[name], order.index(Limit(name)))))
    mine = runs[runs["limit"] == str(limit)]

    def median(column: str) -> float | None:
        if column not in mine:
            return None
        values = pd.to_numeric(mine[column], errors="coerce").dropna()
        return float(values.median()) if len(values) else None

    rate, population = median("rps"), median("connections") or median("users")
    busiest = None
    if median("foreign_cpu_pct") is not None:
        busiest = mine.loc[pd.to_numeric(mine["foreign_cpu_pct"], errors="coerce").idxmax()]
    return SideLimit(
        limit=limit,
        runs=len(mine),
        of=len(runs),
        server_share=median("server_cpu_share"),
        server_cores=median("server_cores"),
        client_share=median("client_cpu_share"),
        client_cores=median("client_cores"),
        tool=", ".join(dict.fromkeys(mine.get("tool_setting", pd.Series(["the load tool"])))),
        in_flight=population,
        cycle_ms=1000 * population / rate if population and rate else None,
        think_ms=median("think_ms"),
        link_ms=median("link_rtt_ms"),
        waits=str(mine["server_waits"].iloc[0]) if "server_waits" in mine else "",
        foreign_pct=median("foreign_cpu_pct"),
        processes=str(busiest["foreign_processes"]) if busiest is not None else "",
        steal_pct=median("host_steal_pct"),
    )


def _cores(n: float | None) -> str:
    return "its core" if not n or n == 1 else f"its {n:g} cores"


def _share(value: float | None) -> str:
    return fmt.percent(value) if value is not None else "an unrecorded share"


def reason(side: SideLimit) -> str:
    """What set a side's rate, in words and figures ('its CPU (96 % of its core)')."""
    limit = side.limit
    server = f"its CPU at {_share(side.server_share)} of {_cores(side.server_cores)}"
    tool = f"{side.tool} at {_share(side.client_share)} of {_cores(side.client_cores)}"
    if limit == Limit.SERVER:
        return f"its own CPU ({_share(side.server_share)} of {_cores(side.server_cores)})"
    if limit == Limit.LOAD_TOOL:
        return f"the load tool ({tool})"
    if limit == Limit.OFFERED:
        return "the offered rate (the open-loop tool sent what it was asked and the server kept up)"
    if limit == Limit.IN_FLIGHT:
        wait = f"{side.waits}" if side.waits else "its wait"
        each = f"held {fmt.milliseconds(side.cycle_ms)} ms each" if side.cycle_ms else "held each"
        return (
            f"the requests in flight ({side.in_flight:g} at a time, {each}: {wait} per request, "
            f"with {server})"
        )
    if limit == Limit.THINK_TIME:
        return (
            f"the users' wait ({side.in_flight:g} users, each waiting "
            f"{fmt.milliseconds(side.think_ms or 0)} ms on average between requests)"
        )
    if limit == Limit.LINK:
        return (
            f"the link ({fmt.milliseconds(side.link_ms or 0)} ms added to every round trip, "
            f"{side.in_flight:g} requests in flight)"
        )
    if limit == Limit.MACHINE:
        return f"a busy machine ({busy_evidence(side)})"
    if limit == Limit.NONE:
        return f"nothing measured at its limit ({server}; {tool})"
    return "not recorded (no CPU was sampled in these runs)"


def busy_evidence(side: SideLimit) -> str:
    """What made the machine busy, by the figure that crossed its threshold (runs.limits):
    'other processes used 180 % of a core: yes (PID 4121) 97 %, …' or the hypervisor's
    steal (a process named at '0 %' is left out: it used less than half a per cent)."""
    foreign, steal = side.foreign_pct or 0.0, side.steal_pct or 0.0
    if foreign >= BUSY_FOREIGN_PCT or (foreign > 0 and steal < BUSY_STEAL_PCT):
        busy = [p for p in side.processes.split(", ") if p and not p.endswith(" 0 %")]
        named = f": {', '.join(busy)}" if busy else ""
        return f"other processes used {foreign:.0f} % of a core{named}"
    if steal:
        return f"the hypervisor took {steal:.0f} % of the CPU time"
    return "other work was running when measuring began"


def set_by(rows: pd.DataFrame, target: str) -> str:
    """A table cell: what set the rate of ``target``'s runs ('server 6/6', 'machine 4/6')."""
    side = side_limit(rows, target)
    if side is None:
        return ""
    return f"{side.limit} {side.runs}/{side.of}"


def compared_as(
    sides: dict[str, SideLimit | None], names: dict[str, str], what: str = SERVERS
) -> str:
    """'' where every side's rate was set by what is compared (``what``: the servers, or
    the load tools); else what set each, for a reader: 'the users' wait set both rates (…)'."""
    known = {t: s for t, s in sides.items() if s is not None}
    if len(known) < len(sides) or all(s.limit in SET_BY[what] for s in known.values()):
        return ""
    limits = {s.limit for s in known.values()}
    if len(limits) == 1:
        (limit,) = limits
        shown = "; ".join(f"{names[t]}: {reason(s)}" for t, s in known.items())
        return f"{subject(limit)} set both rates, not the {what} ({shown})"
    shown = "; ".join(f"{names[t]}'s by {reason(s)}" for t, s in known.items())
    return f"the two rates were set by different things, not both by the {what}: {shown}"


def uncounted(rows: pd.DataFrame, target: str, name: str, column: str = "rps") -> str:
    """Why none of ``target``'s valid runs counts for ``column`` ('' when one does, or
    when it has no valid run at all)."""
    counted = counted_rows(rows, column)
    side = side_limit(rows, target)
    if side is None or (counted["target"] == target).any():
        return ""
    return f"no run of {name} counts: its rate was set by {reason(side)}"


@dataclass(frozen=True)
class RateSides:
    """What set the two sides' rates of a headline, and what follows for its words:
    ``apart`` why it is no comparison of what it compares ('' when it is one);
    ``uncounted`` why one side has no run that counts ('' when both have)."""

    sides: dict[str, SideLimit | None]
    apart: str = ""
    uncounted: str = ""

    @property
    def why(self) -> str:
        """Why the ratio is no comparison of what it compares ('' when it is one)."""
        return self.uncounted or self.apart


def rate_sides(
    rows: pd.DataFrame, a: str, b: str, names: tuple[str, str], column: str, what: str = SERVERS
) -> RateSides:
    """What set ``a``'s and ``b``'s rates in ``rows`` (nothing to say for a column that is
    not a rate)."""
    if column not in RATE_COLUMNS:
        return RateSides({})
    sides = {a: side_limit(rows, a), b: side_limit(rows, b)}
    called = dict(zip((a, b), names, strict=True))
    missing = "; ".join(filter(None, (uncounted(rows, t, called[t], column) for t in (a, b))))
    return RateSides(sides, compared_as(sides, called, what), missing)


def apart_brief(names: tuple[str, str], medians: tuple[float, float], why: str) -> str:
    """A ratio of two rates that compares no servers, worded as what it is: 'The users'
    wait set both rates, not the servers (…): Go 6,080 vs FastAPI 6,010 req/s, a ratio of
    1.01× that measures the wait.' The ratio is of the medians printed beside it, so the
    two never disagree (the paired estimate may round differently)."""
    a, b = names
    rates = f"{fmt.count(medians[0])} vs {b} {fmt.count(medians[1])}"
    figures = f"{a} {rates} req/s (this session's medians)"
    measured = all(math.isfinite(m) and m > 0 for m in medians)
    ratio = medians[0] / medians[1] if measured else None
    of = f", a ratio of medians of {fmt.ratio(ratio)} that describes what set them" if ratio else ""
    return f"**Not a comparison of the servers.** {why[0].upper()}{why[1:]}: {figures}{of}."


def side_medians(data: pd.DataFrame, a: str, b: str, column: str) -> tuple[float, float]:
    """Each side's median over its valid runs (what was measured, counted or not)."""
    valid = valid_rows(data)
    a_median, b_median = (valid.loc[valid["target"] == t, column].median() for t in (a, b))
    return float(a_median), float(b_median)


def set_apart(rows: pd.DataFrame, a: str, b: str, column: str = "rps") -> str:
    """Why a session of ``a`` against ``b`` is kept out of every pooled estimate: most of a
    side's valid runs count for nothing (a busy machine; for a rate, nothing measured at
    its limit); '' otherwise."""
    reasons = []
    for target in (a, b):
        side = side_limit(rows, target)
        if side is not None and side.limit in not_counted(column):
            name = reader_name(rows, target)
            reasons.append(
                f"{name}'s rate was set by {reason(side)} in {side.runs} of {side.of} runs"
            )
    return "; ".join(reasons)
