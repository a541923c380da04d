"""Notebook 05's reproduction of seed 001's loop: its HTTP side answered 404 to every call
and the loop only logged the errors, so what it timed was the failures. The table of
that loop's medians, the ratio it gives per operation (pooled over the stored sessions
of this machine class for a verdict), the reason a verdict cites, and
what Nagle's algorithm adds to each failed call (the same 404 server with TCP_NODELAY,
measured in the same rounds)."""

from collections.abc import Callable

import pandas as pd

from benchbook.analyse.claims.explanation import Explanation, measured_instead
from benchbook.analyse.claims.published import load_published
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.numbers.pairing import comparison
from benchbook.analyse.numbers.stats import Comparison
from benchbook.analyse.rows.counted import valid_rows
from benchbook.analyse.sessions.replication import spread
from benchbook.analyse.words.verdicts import explanation_figure
from benchbook.runs.store import RunStore
from benchbook.store.sessions import SessionSource

# Notebook 05's stored run of the article's loop, and the article's own figures.
ARTICLE_LOOP_EXPERIMENT = "05_grpc_vs_http_article_style"
PUBLISHED = "05_grpc_vs_http"
# The backend labels notebook 05 gives the article's loop: the 404 server as the article
# had it (Nagle on), and the same server with TCP_NODELAY on each connection.
ARTICLE = "article"
NODELAY = "article, TCP_NODELAY"
# A failed call that took at least this many ms longer with Nagle on than with
# TCP_NODELAY waited for a delayed acknowledgement (tens of ms; a call costs about one).
NAGLE_WAIT_MS = 10.0


# The loop table's columns, as a reader reads them.
TIME_PER_CALL, ERRORS_PER_CALL = "time per call (ns)", "errors per call"


def article_loop_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Median time and errors per call, per operation (rows) and transport (columns), for
    the article's own backend."""
    article = rows[rows["backend"] == ARTICLE]
    medians = article.groupby(["operation", "transport"])[["ns_per_op", "errors_per_op"]].median()
    return medians.rename(
        columns={"ns_per_op": TIME_PER_CALL, "errors_per_op": ERRORS_PER_CALL}
    ).unstack()


def http_over_grpc(table: pd.DataFrame, operation: str) -> float:
    """The loop's HTTP time per call over its gRPC time, as the article reported it."""
    time = table[TIME_PER_CALL]
    return time.loc[operation, "http"] / time.loc[operation, "grpc"]


def article_calls(operation: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """A stored run's loop against the article's own backend for ``operation``, each row
    named by its transport ('http', 'grpc'), as a selection for replication.spread. Its
    failed calls count, as the article's loop counted them: what it timed is the point,
    so its ``bad_response`` flag (and no other) is lifted."""

    def select(rows: pd.DataFrame) -> pd.DataFrame:
        loop = rows[(rows["backend"] == ARTICLE) & (rows["operation"] == operation)]
        flags = (
            loop["flags"]
            .fillna("")
            .map(lambda f: ";".join(x for x in f.split(";") if x and x != "bad_response"))
        )
        return loop.assign(target=loop["transport"], flags=flags)

    return select


def timed_404s(
    rows: pd.DataFrame, operation: str, source: SessionSource | None = None
) -> Explanation:
    """The article's loop for ``operation`` (``rows``: this session's run of it) as an
    explanation of its figure: its HTTP backend answered 404 and the loop timed the
    failures. Its HTTP over gRPC time per call is pooled over the stored sessions of this
    machine class (``source``: the store unless given), and that decides whether it
    explains the article's figure (claims.verdicts.judge)."""
    select = article_calls(operation)
    c = comparison(valid_rows(select(rows)), "http", "grpc", "ns_per_op")
    current = set(rows["run_id"]) if "run_id" in rows else set()
    runs = spread(ARTICLE_LOOP_EXPERIMENT, "http", "grpc", "ns_per_op", select, current, source)
    article = load_published(PUBLISHED)[f"{operation}_ns_per_op"]  # by transport
    return measured_instead(
        "its HTTP backend answered 404 to every call and its loop timed the failures",
        c,
        runs,
        of="HTTP's time per call over gRPC's",
        detail=_beside_the_article(c, article),
        article_timed=float(article["http"]),
    )


def _beside_the_article(c: Comparison | None, article_ns: pd.Series) -> str:
    """'; in this session its failed HTTP calls took 43.6 ms against the article's 42.5
    ms, and its gRPC calls 0.633 ms against 0.401 ms': where a ratio that does not reach
    the article's differs, side by side (``article_ns``: its ns per call by transport;
    '' without this session's figures)."""
    if c is None:
        return ""
    article = article_ns / 1e6
    http, grpc = c.median_a / 1e6, c.median_b / 1e6
    return (
        f"; in this session its failed HTTP calls took {fmt.milliseconds(http)} ms against "
        f"the article's {fmt.milliseconds(article['http'])} ms, and its gRPC calls "
        f"{fmt.milliseconds(grpc)} ms against {fmt.milliseconds(article['grpc'])} ms"
    )


def latest_timed_404s(operation: str) -> Explanation | None:
    """timed_404s from the newest complete stored run of notebook 05's article loop (for
    another notebook's verdict on the same article), or None when there is none yet."""
    for run in RunStore().runs(ARTICLE_LOOP_EXPERIMENT):
        if run.completed and run.has_results:
            return timed_404s(run.results(), operation)
    return None


def nagle_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per operation, the median ms per failed HTTP call against the 404 server with
    Nagle's algorithm on (as the article's backend) and with TCP_NODELAY, their ratio, and
    the runs behind each median."""
    http = rows[(rows["transport"] == "http") & rows["backend"].isin([ARTICLE, NODELAY])]
    ms = http.assign(ms_per_call=http["ns_per_op"] / 1e6)
    grouped = ms.groupby(["operation", "backend"])["ms_per_call"]
    medians = grouped.median().unstack()
    counts = grouped.size().unstack()
    return pd.DataFrame(
        {
            "Nagle on: ms per call": medians[ARTICLE],
            "TCP_NODELAY: ms per call": medians[NODELAY],
            "Nagle on / TCP_NODELAY": medians[ARTICLE] / medians[NODELAY],
            "runs": counts[ARTICLE].astype(str) + " + " + counts[NODELAY].astype(str),
        }
    )


def nagle_sentence(table: pd.DataFrame) -> str:
    """What the socket option changed, per operation, in words (from ``nagle_table``).
    The 404 server writes its headers and its body in two sends: with Nagle's algorithm
    on, the second waits until the first is acknowledged, and a client that delays its
    ACK makes it wait. Whether that happened is read from the ratio, not assumed; it was
    seen for a POST (CreateSession), not a GET (HealthCheck), which the same two sends
    do not explain, so the sentence says how long the wait was, not whose it was."""
    parts = []
    for operation, row in table.iterrows():
        on, off = row["Nagle on: ms per call"], row["TCP_NODELAY: ms per call"]
        change = row["Nagle on / TCP_NODELAY"]
        measured = (
            f"{operation}: {fmt.milliseconds(on)} ms per failed call with Nagle's algorithm on, "
            f"{fmt.milliseconds(off)} ms with TCP_NODELAY"
        )
        added = on - off
        if added >= NAGLE_WAIT_MS:
            why = (
                f"{fmt.ratio(change)} longer with Nagle on: the response's second send waited "
                "about as long as a delayed acknowledgement, tens of ms"
            )
        else:
            more = "more" if added >= 0 else "less"
            why = (
                f"{fmt.ratio(change)}, {fmt.milliseconds(abs(added))} ms {more} per call: far "
                "less than a delayed acknowledgement, which costs tens of milliseconds"
            )
        parts.append(f"{measured} ({why})")
    return "; ".join(parts)


def servers(backends: dict[str, dict[str, str]]) -> list[str]:
    """Every server the loop's backends name, once each, in the order named."""
    return list(dict.fromkeys(s for b in backends.values() for s in b.values()))


def failed_calls_caveat(style: pd.DataFrame, nagle: pd.DataFrame) -> str:
    """For the answer: what the article's large figure was of, from this session's re-run of
    its loop ('' when its HTTP calls did not fail), and how long a failed call took with
    Nagle's algorithm off (``nagle``: nagle_table), where that removed tens of ms; as
    nagle_sentence, it says how long the wait was, not whose it was."""
    failed = style.loc["CreateSession", (ERRORS_PER_CALL, "http")]
    if not failed > 0:
        return ""
    said = (
        f"The article's loop, re-run in this session, reports CreateSession over HTTP "
        f"{fmt.ratio(http_over_grpc(style, 'CreateSession'))} slower than over gRPC, but "
        f"{fmt.percent(failed)} of its HTTP calls failed with 404: its large figure timed "
        "failed calls, not HTTP"
    )
    if "CreateSession" in nagle.index:
        on, off = nagle.loc["CreateSession", ["Nagle on: ms per call", "TCP_NODELAY: ms per call"]]
        if on - off >= NAGLE_WAIT_MS:
            said += (
                f"; each took {fmt.milliseconds(on)} ms, and {fmt.milliseconds(off)} ms with "
                "Nagle's algorithm off on that server (why this POST waited and a GET did not, "
                "these runs do not say)"
            )
    return said + "."


def what_it_timed(
    style: pd.DataFrame, nagle: pd.DataFrame, pooled: Explanation | None = None
) -> str:
    """What the article's loop reports for CreateSession and what it timed (404 answers,
    flagged and ranked nowhere), then what Nagle's algorithm adds to each failed call;
    ``pooled``: the same ratio over this machine class's sessions (timed_404s), which is
    what a verdict uses, so the two figures are told apart where they are printed."""
    ratio = http_over_grpc(style, "CreateSession")
    failed_call_ms = style.loc["CreateSession", (TIME_PER_CALL, "http")] / 1e6
    failed = style.loc["CreateSession", (ERRORS_PER_CALL, "http")]
    sessions = f" (the figure the verdict reads: {explanation_figure(pooled)})" if pooled else ""
    return (
        f"In this session the article's loop reports CreateSession over HTTP "
        f"**{fmt.ratio(ratio)} slower** than over gRPC (median ns/op){sessions}, while "
        f"{fmt.percent(failed)} of its HTTP calls failed: it timed 404 answers, each taking "
        f"{fmt.milliseconds(failed_call_ms)} ms here — the time of that 404 server's answer, "
        "not of HTTP. These rows are flagged `bad_response` and ranked nowhere.\n\n"
        "**Nagle's algorithm, measured** (the same loop, same rounds, the 404 server with "
        "and without `TCP_NODELAY`; the server writes headers and body in two sends): "
        f"{nagle_sentence(nagle)}."
    )
