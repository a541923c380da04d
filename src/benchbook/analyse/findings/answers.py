"""Each notebook's question answered in at most two sentences that start with the answer
("No: …", "By …", "It depends on …"), for page 1 and the top of each answer box. Every
number comes from the headlines (pooled over this machine class's sessions where they
make a model) or, where an answer needs what one session measured, says it is one
session's; the first word follows from the same numbers, so a new session that moves
them changes the words too (answer_note says which kind of figure each answer gives)."""

import math
from collections.abc import Sequence

import pandas as pd

from benchbook.analyse.claims.in_flight import InFlightLimit
from benchbook.analyse.claims.verdict_kinds import Verdict
from benchbook.analyse.findings.figures import ahead, apart, estimate, figure, ranked
from benchbook.analyse.findings.headlines import Headline
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import runs_of
from benchbook.analyse.numbers.stats import ALPHA
from benchbook.analyse.words import bounds, headroom
from benchbook.analyse.words.findings_format import comparison
from benchbook.analyse.words.sessions import aa_strays
from benchbook.runs.calibration import Ceilings


def load_tools(
    headlines: Sequence[Headline], ceilings: Ceilings, table: pd.DataFrame | None = None
) -> str:
    """Notebook 00: every tool setting's rate (``ceilings``: this run's medians), the
    fastest first (settings within LEVEL_WITH of the fastest are level, not ranked), then
    wrk against each Locust setting (the headlines). ``table``: the ceiling table, whose
    "limited by" of "neither" marks a setting most of whose runs neither side's CPU set:
    its figure rests on the few that one did ("runs counted" of its "runs")."""
    fastest = headroom.fastest(ceilings)
    top = " and ".join(f"{setting} {fmt.count(rps)}" for setting, rps in fastest) + " req/s"
    several = len(fastest) > 1
    if all(setting not in ceilings.tool_bound for setting, _ in fastest):
        every = "both" if len(fastest) == 2 else "all"
        top += (f", level, {every}" if several else ",") + " held back by the server, so "
        top += f"{'each' if several else 'it'} can do more"
    elif several:
        top += ", level"
    top += _other_settings(ceilings, {setting for setting, _ in fastest}, table)
    top += f" (this session's median{'s' if len(ceilings.by_setting) > 1 else ''})"
    parts = [f"{figure(h)} {h.sides[1]}'s rate" for h in headlines]
    against = " and ".join(parts)
    if all(ahead(h) for h in headlines):
        return f"{top}. Against the same server, wrk reached {against}."
    return f"{top}. Against the same server, wrk was not ahead of every Locust setting: {against}."


def _other_settings(ceilings: Ceilings, shown: set[str], table: pd.DataFrame | None) -> str:
    """'; vegeta 38,359, …, locust HttpUser x1 2,113 req/s, each at its own limit' ('' when
    none): the answer's figure for every setting the question asks about, each that is not
    its tool's own limit saying why."""
    others = sorted(
        ((s, rps) for s, rps in ceilings.by_setting.items() if s not in shown), key=lambda i: -i[1]
    )
    if not others:
        return ""

    def why_not_own(setting: str) -> str:  # '' for a setting at its own limit
        if table is not None and setting in table.index:
            row = table.loc[setting]
            if row["limited by"] == "neither":
                return (
                    f" (from {row['runs counted']} of its {row['runs']} runs; neither side's "
                    "CPU limited the others)"
                )
        return "" if setting in ceilings.tool_bound else " (held back by the server)"

    # those at their own limit first, said once, then each other one with its reason
    reason = {setting: why_not_own(setting) for setting, _ in others}
    own = [f"{s} {fmt.count(rps)}" for s, rps in others if not reason[s]]
    rest = [f"{s} {fmt.count(rps)} req/s{reason[s]}" for s, rps in others if reason[s]]
    said = []
    if own:
        said.append(f"{', '.join(own)} req/s, {'each ' if len(own) > 1 else ''}at its own limit")
    if rest:
        said.append(", ".join(rest))
    return "; " + "; ".join(said)


def how_much_faster(headlines: Sequence[Headline], condition: str) -> str:
    """Notebook 01: by how much Go out-served FastAPI (one headline per FastAPI setup)."""
    decided = [h for h in headlines if ahead(h)]
    elsewhere = " ".join(f"Against {h.sides[1]}: {h.set_by}." for h in headlines if h.set_by)
    if not decided:
        return f"Not measurably {condition}: no comparison showed a difference. {elsewhere}".strip()
    parts = [f"{figure(h)} against {h.sides[1]}" for h in decided]
    return f"By {' and '.join(parts)}, {condition}. {elsewhere}".strip()


def under_the_articles_tool(
    headlines: Sequence[Headline], tool: str, runs: str = "", python: str = "FastAPI"
) -> str:
    """Notebook 02: is Go ahead under the article's load tool (the first headline), or is
    the tool the limit; then Go against FastAPI under ``tool`` (the second). ``runs``: how
    the runs differ from the article's, where they do ('2 runs of 15 s a server, not its
    five of 30 s'); ``python``: the Python side as the reader should know it."""
    article, other = headlines[0], headlines[1]
    settings = f"the article's users and wait ({runs})" if runs else "the article's settings"
    if Verdict.of(article.reproduced) is Verdict.DIFFERENT_CONDITIONS:
        lead = f"Not comparable: under {settings} the load tool, not the servers, set both rates"
    elif ahead(article):
        lead = f"Yes, by {figure(article)}" + (f", under {settings}" if runs else "")
    else:
        lead = f"No measurable difference under {settings} ({figure(article)})"
    if other.set_by:
        return f"{lead}. With {tool}, {other.set_by}."
    return f"{lead}. With {tool}, Go served {figure(other)} the requests per second of {python}."


def fan_out(headlines: Sequence[Headline], cores: str, crossover_at: str = "costly lookups") -> str:
    """Notebook 03: is fan-out slower (server ``cores``), did it pay at ``crossover_at``?"""
    pooled, crossover = headlines
    served = f"Not measurably with the server {cores}: sequential served {figure(pooled)} the "
    served += "requests per second of goroutines"
    if Verdict.of(pooled.reproduced) is Verdict.NOT_RESOLVABLE:
        lead = f"{served}, within {aa_strays(pooled.resolvable)}"
    elif not ahead(pooled):
        lead = f"{served}, no significant difference"
    else:
        lead = f"Yes, with the server {cores}, sequential was faster by {figure(pooled)}"
        if _next_may_show_none(pooled):
            lead += f", though {MAY_SHOW_NONE}"
    if Verdict.of(crossover.reproduced) is Verdict.NOT_RESOLVABLE:
        pays = "Not measurably either way, within what the A/A control strays, even"
    elif ahead(crossover):
        pays = "Fan-out paid"
    elif crossover.significant:
        pays = "Fan-out did not pay even"
    else:
        pays = "No significant difference either way, even"
    return (
        f"{lead}. {pays} at one sweep setting ({crossover_at}, the server sharing the cores "
        f"with wrk): {figure(crossover)}"
        f"{pooled_beyond_one_session(crossover)}."
    )


def pooled_beyond_one_session(h: Headline) -> str:
    """Why a pooled difference can stand beside one session's 'no significant difference'
    (its p over its own runs): '' when the session alone showed it too."""
    if h.pooled_ratio is None or h.p is None or h.p < ALPHA:
        return ""
    alone = f"one session alone ({runs_of(h.n)}) could not tell it from no difference"
    return f", pooled over {h.sessions} sessions; {alone} ({fmt.p_value(h.p)})"


def reads_and_losses(
    headlines: Sequence[Headline], lost: str, storage: str = "", workers: str = ""
) -> str:
    """Notebook 04: Go against Python on the same storage (the first headline; ``workers``:
    what Python's worker count means for it, where it matters), the writes of one storage
    against another (the third; ``storage``: how the two keep a write, which the ratio is
    of), and whether URLs were kept."""
    same_storage = headlines[0]
    if same_storage.set_by:
        lead = apart(same_storage).removesuffix(".")
    elif ahead(same_storage):
        go, python = same_storage.sides  # as a reader knows them: their setups named
        lead = (
            f"Reading from the same storage (a Redis of its own each), {go} served "
            f"{figure(same_storage)} the requests per second of {python}"
            + (f" ({workers})" if workers else "")
        )
    else:
        lead = (
            "No measurable difference in reads from the same storage (a Redis of its own "
            f"each): {figure(same_storage)}"
        )
    writes = _writes(headlines[2], storage) if len(headlines) > 2 else ""
    return " ".join(part for part in (f"{lead}.", writes, lost) if part)


def _writes(h: Headline, storage: str) -> str:
    """Notebook 04's writes (its third headline: one storage against another, the same
    server), with how each keeps a write where given, and a p that is the figure's own."""
    if h.set_by:
        return apart(h)
    kept = f" ({storage})" if storage else ""
    if not h.significant or (estimate(h) or 1) >= 1:
        alone = h.pooled_ratio is None and h.p is not None and h.p >= ALPHA
        unsure = f", {h.n} runs, no test passed ({fmt.p_value(h.p)})" if alone else ""
        return (
            f"Writing, {h.sides[0]} against {h.sides[1]}, requests per second: "
            f"{figure(h)}{unsure}{kept}."
        )
    served = f"{ranked(h)} of the requests per second"
    return f"Writing, {h.sides[0]} served {served} of {h.sides[1]}{kept}."


def faster_protocol(headlines: Sequence[Headline], scope: str = "", article: str = "") -> str:
    """Notebook 05: is gRPC faster than HTTP/JSON (each ratio is HTTP's time per call over
    gRPC's: above 1, gRPC was faster), naming the calls compared; ``scope``: how they were
    called ('one at a time, over loopback'), which the answer holds for; ``article``: what
    the article's own figure timed, a sentence said after the answer."""
    answer = _protocol_answer(headlines, scope)
    return f"{answer} {article}" if article else answer


def _protocol_answer(headlines: Sequence[Headline], scope: str) -> str:
    """faster_protocol's answer to the question itself."""
    grpc_faster = [h for h in headlines if h.significant and (estimate(h) or 0) > 1]
    http_faster = [h for h in headlines if h.significant and 0 < (estimate(h) or 1) < 1]
    if http_faster and not grpc_faster:
        lower = [fmt.ratio(1 / (estimate(h) or 1)) for h in http_faster]  # as each says it
        others = [comparison(h.label) for h in headlines if all(h is not f for f in http_faster)]
        rest = f"; for {_listed(others)}, neither was significantly faster" if others else ""
        called = f", called {scope}" if scope else ""
        unsure = [comparison(h.label) for h in http_faster if _next_may_show_none(h)]
        caveat = f"; for {_listed(unsure)}, {MAY_SHOW_NONE}" if unsure else ""
        return (
            f"No: for {_listed([comparison(h.label) for h in http_faster])}{called}, HTTP/JSON "
            f"took less time per call than gRPC ({_listed(lower)} lower){caveat}{rest}."
        )
    parts = "; ".join(f"{comparison(h.label)}: {figure(h)}" for h in headlines)
    if grpc_faster and not http_faster:
        return f"Yes, gRPC was faster (HTTP's time per call over gRPC's: {parts})."
    return f"It depends on the backend (HTTP's time per call over gRPC's: {parts})."


# A difference the sessions' mean shows, said where one session's range holds no difference.
MAY_SHOW_NONE = "a single next session may show no difference (its range holds 1)"


def _next_may_show_none(h: Headline) -> bool:
    """The headline's next-session range holds 1: its mean differs, a session may not."""
    low, high = h.predict_low, h.predict_high
    return low is not None and high is not None and low <= 1 <= high


def _listed(items: Sequence[str]) -> str:
    """'a, b and c': each item, as '1.52×, 1.67× and 1.87×' lists each estimate rather than
    a range that would read as an interval."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def over_a_network(
    headlines: Sequence[Headline],
    limit: InFlightLimit,
    article_ratio: float | None,
    protocol_gap_ms: dict[int, float],
    client_cpu_ms: tuple[float, float],
) -> str:
    """Notebook 07: how much of Go's lead (the first headline: req/s over the far link)
    and of gRPC's (the second: HTTP's median time over gRPC's there) is left across a
    link, and what took the rest: with few requests in flight, Little's law caps both
    servers before any network (``limit``), and the link's round trip caps them again.
    ``protocol_gap_ms``: gRPC's median time minus HTTP's at each added round trip (ms);
    ``client_cpu_ms``: wrk's and ghz's CPU per call over the far link. HTTP and gRPC are
    timed by different clients, and a delay adds the same round trip to both without
    removing what each client adds, so no delay makes their times compare protocols."""
    rate, protocol = headlines
    go, other = limit.near
    took = [1000 * limit.in_flight / side for side in (go, other)]  # Little's law: ms each
    gone = article_ratio is not None and _closer_to(limit.near_ratio, estimate(rate), article_ratio)
    near = (
        f"with nothing added, requests still went through the proxy that makes the link "
        f"(Toxiproxy), and with "
        f"{limit.in_flight} in flight Go served {fmt.ratio(limit.near_ratio)} FastAPI's requests "
        f"per second ({fmt.count(go)} vs {fmt.count(other)} req/s; one session's medians)"
        + (
            f", a setup not comparable with the article's {fmt.ratio(article_ratio)} "
            "(measured with no proxy and many more requests in flight)"
            if gone
            else ""
        )
        + f": each request took about {fmt.milliseconds(took[0])} and "
        f"{fmt.milliseconds(took[1])} ms (in flight ÷ rate), at least "
        f"{fmt.ratio_at_least(min(took) / limit.wait_ms)} the {limit.wait_ms:g} ms it waits"
        + (  # Little's law: at this many in flight, a 1 ms server's rate over the other's
            f", so even a server answering in exactly {limit.wait_ms:g} ms would have led "
            f"FastAPI by at most {fmt.ratio_at_most(took[1] / limit.wait_ms)} here, before any "
            "delay was added; these runs do not tell how much of the time past the wait the "
            "proxy's path took"
            if gone
            else ""
        )
    )
    far = _far_link(rate, limit)
    most = ahead(rate) and _most_left(rate, article_ratio)
    lead = f"{'Most' if most else 'Little'} of Go's lead" + (
        ", most of it gone before any delay was added" if gone and not most else ""
    )
    if all(gap > 0 for gap in protocol_gap_ms.values()):
        lead += "; gRPC had none to keep"
    return f"{lead}: {near}; {far}. " + _protocols(
        protocol, protocol_gap_ms, limit.far_rtt, client_cpu_ms
    )


def _far_link(rate: Headline, limit: InFlightLimit) -> str:
    """Notebook 07's far link: the headline's own figure (pooled, as the chart beside the
    answers plots it, with this session's medians; else, or where something other than the
    servers set the rates and no interval is printed for them, this session's ratio of
    medians), and whether Little's law's cap there says the link set both rates."""
    low, high = limit.far_caps
    capped = min(limit.far) >= LINK_SET_THE_RATE * low
    this_session = f"{fmt.count(limit.far[0])} vs {fmt.count(limit.far[1])} req/s"
    pooled = rate.pooled_ratio is not None and not rate.set_by
    return (
        f"over a link adding {limit.far_rtt} ms, "
        + (
            f"{figure(rate)} {bounds.sessions_text(rate.sessions)} (this session's medians: "
            f"{this_session})"
            if pooled
            else f"{fmt.ratio(limit.far_ratio)} ({this_session}; one session's medians)"
        )
        + (
            f", where Little's law puts both near {fmt.count(low)}–{fmt.count(high)} req/s: the "
            "link, not the servers, set that rate"
            if capped
            else ""
        )
    )


def _protocols(
    protocol: Headline, gap_ms: dict[int, float], far_rtt: int, client_cpu_ms: tuple[float, float]
) -> str:
    """Notebook 07's HTTP/JSON against gRPC (the Python backend): the gap between their
    median times at each delay, and why it cannot be told apart from their clients'."""

    def gaps(signed: bool) -> str:
        return ", ".join(
            f"{'+' if signed and gap > 0 else ''}{fmt.milliseconds(gap if signed else abs(gap))} "
            f"ms {'with nothing added' if rtt == 0 else f'at +{rtt} ms'}"
            for rtt, gap in sorted(gap_ms.items())
        )

    if all(gap > 0 for gap in gap_ms.values()):
        seen = (
            "In this session, at every delay gRPC's median latency of a health check was the "
            "longer: the Python "
            f"backend's HTTP/JSON answered sooner by {gaps(False)} (differences of medians)"
        )
    elif all(gap < 0 for gap in gap_ms.values()):
        seen = (
            "In this session, at every delay gRPC's median latency of a health check was the "
            "shorter, by "
            f"{gaps(False)} (differences of medians)"
        )
    else:
        seen = (
            "In this session, gRPC's median latency of a health check minus HTTP/JSON's was "
            f"{gaps(True)} (differences of medians)"
        )
    if protocol.p is not None and protocol.p >= ALPHA:  # this session's own test at the far link
        seen += (
            f"; at +{far_rtt} ms a gap this session's own runs cannot tell from none "
            f"({fmt.p_value(protocol.p)})"
        )
    if protocol.significant and (estimate(protocol) or 1) < 1:
        far = f"HTTP/JSON's median latency was {ranked(protocol)} than gRPC's"
    else:
        far = f"HTTP/JSON took {figure(protocol)} of gRPC's median latency"
    if protocol.pooled_ratio is not None:  # beside one session's gaps: say it is pooled
        far += f" {bounds.sessions_text(protocol.sessions)}"
    wrk, ghz = client_cpu_ms
    return (
        f"{seen}. But HTTP/JSON and gRPC are timed by different "
        "clients (wrk and ghz), and a delay adds the same round trip to both without "
        f"removing what each client adds: over {far_rtt} ms, where {far}, ghz spent "
        f"{fmt.milliseconds(ghz)} ms of CPU per call and wrk {fmt.milliseconds(wrk)} ms "
        "(client CPU ÷ rate), so how much of the gap is the protocols' and how much the "
        "clients' cannot be told from these runs."
    )


# Both servers served at least this share of Little's-law cap over the far link: the
# link, not the servers, set the rate.
LINK_SET_THE_RATE = 0.8


def _most_left(h: Headline, article_ratio: float | None) -> bool:
    """More than half of the article's lead (on the log scale) is left in ``h``."""
    value = estimate(h)
    if value is None or article_ratio is None or article_ratio <= 1 or value <= 0:
        return False
    return math.log(value) / math.log(article_ratio) > 0.5


def _closer_to(value: float, far: float | None, article: float) -> bool:
    """Whether ``value`` (nothing added) lies nearer ``far`` (the far link's estimate)
    than the article's figure, on the log scale: most of the move happened before any
    network."""
    if far is None or value <= 0 or far <= 0 or article <= 0:
        return False
    return abs(math.log(value / far)) < abs(math.log(article / value))
