"""Each notebook's question answered in at most two sentences that start with the answer
("No: …", "By …", "It depends on …"), for page 1 and the top of each answer box. Every
number comes from the headlines (pooled over this machine class's sessions where they
make a model); the first word follows from the same numbers, so a new session that moves
them changes the words too."""

from collections.abc import Sequence

from benchbook.analyse import bounds
from benchbook.analyse import formatting as fmt
from benchbook.analyse.findings import Headline
from benchbook.analyse.findings_format import LOWER_BOUND, comparison


def figure(h: Headline) -> str:
    """'7.8× (95 % CI 7.4–8.2×)': pooled over this class's sessions where three or more
    make a model, else this session's; a bound as bounds.figure words it."""
    if h.reproduced_why == LOWER_BOUND:
        return bounds.figure(h.ratio, h.sessions)
    if h.pooled_ratio is not None:
        return f"{fmt.ratio(h.pooled_ratio)} (95 % CI {fmt.interval(h.pooled_low, h.pooled_high)})"
    if h.ratio is None:
        return "no comparison"
    if h.ci_low is None or h.ci_high is None:
        return fmt.ratio(h.ratio)
    return f"{fmt.ratio(h.ratio)} ({fmt.level(h.ci_level)} {fmt.interval(h.ci_low, h.ci_high)})"


def estimate(h: Headline) -> float | None:
    """The ratio a reader should quote: pooled where there is a model, else this session's."""
    return h.pooled_ratio if h.pooled_ratio is not None else h.ratio


def ahead(h: Headline) -> bool:
    """The first side is significantly ahead: a rate higher, a time lower (or a bound)."""
    value = estimate(h)
    if value is None:
        return False
    if h.reproduced_why == LOWER_BOUND:
        return True
    higher = value > 1
    return h.significant and (higher if h.metric in ("rps", "") else not higher)


def load_tools(headlines: Sequence[Headline]) -> str:
    """Notebook 00: which load tool can produce the most requests per second."""
    wrk_first = all(ahead(h) for h in headlines)
    lead = "wrk, by far" if wrk_first else "Not always wrk"
    parts = [f"{figure(h)} {h.sides[1]}'s rate" for h in headlines]
    return f"{lead}: it reached {' and '.join(parts)} against the same server."


def how_much_faster(headlines: Sequence[Headline], condition: str) -> str:
    """Notebook 01: by how much Go out-served FastAPI (one headline per FastAPI setup)."""
    decided = [h for h in headlines if ahead(h)]
    if not decided:
        return f"Not measurably {condition}: no comparison showed a difference."
    parts = [f"{figure(h)} against {h.sides[1]}" for h in decided]
    return f"By {' and '.join(parts)}, {condition}."


def under_the_articles_tool(headlines: Sequence[Headline], tool: str) -> str:
    """Notebook 02: is Go ahead under the article's load tool (the first headline), or is
    the tool the limit; then Go against FastAPI under ``tool`` (the second)."""
    article, other = headlines[0], headlines[1]
    if article.reproduced.startswith("different conditions"):
        lead = "No: under the article's settings the load tool, not the servers, set the rate"
    elif ahead(article):
        lead = f"Yes, by {figure(article)}"
    else:
        lead = f"No measurable difference under the article's settings ({figure(article)})"
    return f"{lead}. With {tool}, Go served {figure(other)} FastAPI's requests per second."


def fan_out(headlines: Sequence[Headline]) -> str:
    """Notebook 03: is fan-out slower (the pooled headline), and when does it pay (the
    crossover's)."""
    pooled, crossover = headlines
    if pooled.reproduced.startswith("not resolvable") or not ahead(pooled):
        lead = (
            f"Not measurably: sequential vs goroutines {figure(pooled)} is within what the "
            "same server measured twice strays here"
        )
    else:
        lead = f"Yes, sequential was faster by {figure(pooled)}"
    pays = "pays" if ahead(crossover) else "does not pay even"
    return f"{lead}. Fan-out {pays} with costly lookups on an idle server: {figure(crossover)}."


def reads_and_losses(headlines: Sequence[Headline], lost: str) -> str:
    """Notebook 04: Go against Python on the same storage (the first headline), and
    whether URLs were kept."""
    same_storage = headlines[0]
    if ahead(same_storage):
        lead = f"Go served {figure(same_storage)} Python's reads on the same Redis"
    else:
        lead = f"No measurable difference in reads on the same Redis ({figure(same_storage)})"
    return f"{lead}. {lost}" if lost else f"{lead}."


def faster_protocol(headlines: Sequence[Headline]) -> str:
    """Notebook 05: is gRPC faster than HTTP/JSON (each ratio is HTTP's time per call over
    gRPC's: above 1, gRPC was faster)."""
    grpc_faster = [h for h in headlines if h.significant and (estimate(h) or 0) > 1]
    http_faster = [h for h in headlines if h.significant and 0 < (estimate(h) or 1) < 1]
    if http_faster and not grpc_faster:
        span = [estimate(h) or 0 for h in http_faster]
        return (
            f"No: HTTP/JSON took less time per call than gRPC in {len(http_faster)} of "
            f"{len(headlines)} comparisons, {fmt.interval(min(span), max(span))} of gRPC's "
            "time."
        )
    parts = "; ".join(f"{comparison(h.label)}: {figure(h)}" for h in headlines)
    if grpc_faster and not http_faster:
        return f"Yes, gRPC was faster (HTTP's time per call over gRPC's: {parts})."
    return f"It depends on the backend (HTTP's time per call over gRPC's: {parts})."


def stalls_and_capacity(headlines: Sequence[Headline], tail: str) -> str:
    """Notebook 06: what a closed loop misses, and the capacities at the latency objective
    (every headline after the first, the freeze server's)."""
    parts = []
    for h in headlines[1:]:
        if h.ratio is None:
            parts.append(f"{h.sides[0]} against {h.sides[1]}: {figure(h)}")
        else:
            parts.append(f"{h.sides[0]} took {figure(h)} the load of {h.sides[1]}")
    return f"{tail} Within the p99 objective, {'; '.join(parts)}."


def over_a_network(headlines: Sequence[Headline], trend: str) -> str:
    """Notebook 07: how much of the lead is left across a link."""
    left = [h for h in headlines if ahead(h)]
    lead = "Little of it" if len(left) < len(headlines) else "Most of it"
    return f"{lead}: {trend}"
