"""Notebook 07, what the network changes: the same servers measured over a link with 0,
1 and 10 ms added to every round trip (one stored run per delay), their link probes, and
Little's law with the round trip in it.

With ``c`` requests kept in flight, each taking the server ``W0`` (measured with no
delay added) plus the link's extra round trip ``d``, throughput can be at most
``c / (W0 + d)``: the delay is time every request waits, whatever language served it.
"""

import math
from collections.abc import Iterable, Mapping

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from benchbook.analyse.claims.in_flight import InFlightLimit
from benchbook.analyse.display.chart_style import line_style_for
from benchbook.analyse.display.plots import reader_names
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.rows.counted import valid_rows, without_controls
from benchbook.runs.store import Run


def added_rtt_ms(run: Run) -> int:
    """The round trip a run's link added (its hosts parameters)."""
    hosts = run.plan().hosts
    if not hosts:
        raise ValueError(f"{run.run_id} ran on loopback: it has no link")
    return int(hosts["link"]["added_rtt_ms"])


def link_table(runs: list[Run]) -> pd.DataFrame:
    """Per run (added round trip): what was configured and what the probe measured."""
    rows = []
    for run in runs:
        hosts = run.manifest()["hosts"]
        measured = hosts["link"]["measured"]
        rows.append(
            {
                "added RTT asked (ms)": added_rtt_ms(run),
                "RTT measured, median (ms)": measured["rtt_ms_median"],
                "RTT measured, p90 (ms)": measured["rtt_ms_p90"],
                "link capacity (MB/s)": measured["capacity_mb_s"],
                "Toxiproxy CPU %": hosts["toxiproxy"].get("cpu_pct"),
            }
        )
    return pd.DataFrame(rows).set_index("added RTT asked (ms)")


def rows_by_rtt(runs: list[Run]) -> pd.DataFrame:
    """Every run's rows, with the round trip its link added (``added_rtt_ms``)."""
    return pd.concat(
        [run.results().assign(added_rtt_ms=added_rtt_ms(run)) for run in runs], ignore_index=True
    )


RTT_COLUMNS = {"rps": "req/s", "lat_p99_ms": "p99 ms", "client_cpu_pct": "client CPU %"}


def rtt_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Median req/s, p99 and the load tool's CPU per target (rows) and added round trip
    (columns), valid runs."""
    data = without_controls(valid_rows(rows))
    medians = data.groupby(["target", "added_rtt_ms"], sort=False)[list(RTT_COLUMNS)].median()
    table = medians.unstack("added_rtt_ms")
    table.columns = [f"{RTT_COLUMNS[column]} at +{rtt} ms" for column, rtt in table.columns]
    return table


def littles_law_table(rows: pd.DataFrame, links: pd.DataFrame) -> pd.DataFrame:
    """Per target and added round trip: the measured req/s against Little's law,
    c / (W0 + d), with W0 = c / req/s at the smallest delay and d the measured round trip
    minus the smallest delay's (what the link added, as measured)."""
    data = without_controls(valid_rows(rows))
    base_rtt = links.index.min()
    rtt = links["RTT measured, median (ms)"]
    out = []
    for target, part in data.groupby("target", sort=False):
        medians = part.groupby("added_rtt_ms")[["rps", "connections"]].median()
        if base_rtt not in medians.index:
            continue
        c = float(medians["connections"].iloc[0])
        w0_ms = 1000 * c / medians.loc[base_rtt, "rps"]
        for delay, row in medians.iterrows():
            added = float(rtt[delay] - rtt[base_rtt])
            predicted = 1000 * c / (w0_ms + added)
            out.append(
                {
                    "target": target,
                    "added RTT (ms)": delay,
                    "in flight": c,
                    "W0 (ms)": w0_ms,
                    "measured extra RTT (ms)": added,
                    "Little's law req/s": predicted,
                    "req/s": row["rps"],
                    "measured / predicted": row["rps"] / predicted,
                }
            )
    return pd.DataFrame(out).set_index(["target", "added RTT (ms)"])


def rtt_curves(rows: pd.DataFrame, column: str, ylabel: str, title: str) -> Figure:
    """One line per target over the added round trip: medians with min–max whiskers."""
    data = without_controls(valid_rows(rows))
    names = reader_names(data, data["target"].unique())  # as the tables name them
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for target, part in data.groupby("target", sort=False):
        stats = part.groupby("added_rtt_ms")[column].agg(["median", "min", "max"])
        err = [stats["median"] - stats["min"], stats["max"] - stats["median"]]
        ax.errorbar(stats.index, stats["median"], yerr=err, capsize=4,
                    label=names[str(target)], **line_style_for(target))  # fmt: skip
    ax.set_xlabel("round trip added by the link (ms)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    plt.close(fig)
    return fig


def ratio_by_rtt(rows: pd.DataFrame, a: str, b: str, column: str = "rps") -> dict[int, float]:
    """The ratio of medians a/b at each added round trip."""
    data = without_controls(valid_rows(rows))
    medians = data.groupby(["added_rtt_ms", "target"])[column].median().unstack("target")
    return {int(rtt): float(row[a] / row[b]) for rtt, row in medians.iterrows()}


def gap_by_rtt(rows: pd.DataFrame, a: str, b: str, column: str = "lat_p50_ms") -> dict[int, float]:
    """``b``'s median minus ``a``'s at each added round trip, in ``column``'s unit (a
    ratio near 1 over a long link can hide a gap that did not shrink)."""
    data = without_controls(valid_rows(rows))
    medians = data.groupby(["added_rtt_ms", "target"])[column].median().unstack("target")
    return {int(rtt): float(row[b] - row[a]) for rtt, row in medians.iterrows()}


def client_cpu_ms_per_call(rows: pd.DataFrame, target: str, rtt: int) -> float:
    """The load tool's CPU per request it completed against ``target`` at the added
    ``rtt`` (its CPU % of one core ÷ 100 × 1000 ÷ req/s; median over valid runs): what the
    client itself costs a call, which differs between wrk and ghz."""
    data = without_controls(valid_rows(rows))
    at = data[(data["target"] == target) & (data["added_rtt_ms"] == rtt)]
    return float((10 * at["client_cpu_pct"] / at["rps"]).median())


def versus_table(comparisons: Mapping[str, tuple[float | None, dict[int, float]]]) -> pd.DataFrame:
    """Published vs reproduced: per comparison (row), the article's ratio (None: it gave
    none) and the ratio of medians here at each added round trip (ratio_by_rtt)."""
    delays = sorted({rtt for _, here in comparisons.values() for rtt in here})
    return pd.DataFrame(
        [
            {"the article": article if article is not None else float("nan")}
            | {f"here, +{rtt} ms": here.get(rtt, float("nan")) for rtt in delays}
            for article, here in comparisons.values()
        ],
        index=list(comparisons),
    )


def ratio_sentence(ratios: dict[int, float], a: str, b: str, what: str) -> str:
    """'Go served 4.1× FastAPI's req/s with nothing added, 2.0× at +1 ms and 1.02× at
    +10 ms.' (ratios of medians; the headline gives the interval)."""
    parts = [
        f"{fmt.ratio(r)} {'with nothing added' if rtt == 0 else f'at +{rtt} ms'}"
        for rtt, r in sorted(ratios.items())
    ]
    return f"{a} / {b}, {what}: " + ", ".join(parts) + " (this session's ratios of medians)."


def littles_law_caps(
    rows: pd.DataFrame, links: pd.DataFrame, targets: Iterable[str], rtt: int
) -> tuple[float, float]:
    """The lowest and highest Little's-law req/s among ``targets`` at the added round trip
    ``rtt`` (littles_law_table: in flight ÷ (W0 + d), W0 each one's own time with nothing
    added): what that link lets each serve with this many requests in flight; NaN when
    none of them has valid rows there."""
    caps = littles_law_table(rows, links)["Little's law req/s"]
    found = [float(caps[(target, rtt)]) for target in targets if (target, rtt) in caps.index]
    return (min(found), max(found)) if found else (math.nan, math.nan)


def round_trip_shares(
    rows: pd.DataFrame,
    links: pd.DataFrame,
    targets: Iterable[str],
    rtt: int,
    column: str = "lat_p50_ms",
) -> tuple[float, float]:
    """The round trip the probe measured at the added ``rtt`` as a share of each target's
    median ``column`` there (valid runs): the lowest and highest share among ``targets``
    (near 1: the link, not the server, set that latency); NaN without their rows."""
    data = without_controls(valid_rows(rows))
    medians = data[data["added_rtt_ms"] == rtt].groupby("target")[column].median()
    measured = float(links.loc[rtt, "RTT measured, median (ms)"])
    shares = [measured / float(medians[target]) for target in targets if target in medians.index]
    return (min(shares), max(shares)) if shares else (math.nan, math.nan)


def link_sets_the_rate(
    rows: pd.DataFrame, links: pd.DataFrame, targets: Iterable[str], rtt: int, in_flight: int
) -> str:
    """Why a rate measured over the link at ``rtt`` says nothing of the servers when
    Little's law caps them all near the same rate (for a verdict's different conditions)."""
    low, high = littles_law_caps(rows, links, targets, rtt)
    return (
        f"over a link adding {rtt} ms, {in_flight} requests in flight hold these servers near "
        f"{low:,.0f}–{high:,.0f} req/s (Little's law: in flight ÷ (own time + round trip), "
        "with each server's own time measured with nothing added), "
        "so the link, not the servers, set the rate; the article measured on one machine"
    )


def link_sets_the_latency(
    rows: pd.DataFrame, links: pd.DataFrame, targets: Iterable[str], rtt: int
) -> str:
    """Why a median time measured over the link at ``rtt`` says nothing of the protocol
    when the measured round trip is most of it (for a verdict's different conditions)."""
    low, high = round_trip_shares(rows, links, targets, rtt)
    measured = float(links.loc[rtt, "RTT measured, median (ms)"])
    share = (
        f"{100 * low:.0f} %"
        if round(100 * low) == round(100 * high)
        else (f"{100 * low:.0f}–{100 * high:.0f} %")
    )  # never '92–92 %'
    return (
        f"over a link adding {rtt} ms, the round trip as measured ({measured:.1f} ms) is "
        f"{share} of each side's median latency of a health check, "
        "so the link, not the protocol, set it; the article measured on one machine"
    )


def in_flight_limit(
    rows: pd.DataFrame, links: pd.DataFrame, a: str, b: str, in_flight: int, wait_ms: float
) -> InFlightLimit:
    """The two servers' medians and Little's-law caps with nothing added and over the
    largest delay (rows_by_rtt's rows, link_table's links)."""
    data = without_controls(valid_rows(rows))
    medians = data.groupby(["added_rtt_ms", "target"])["rps"].median()
    near_rtt, far_rtt = int(links.index.min()), int(links.index.max())
    return InFlightLimit(
        in_flight=in_flight,
        wait_ms=wait_ms,
        near=(float(medians[(near_rtt, a)]), float(medians[(near_rtt, b)])),
        far_rtt=far_rtt,
        far=(float(medians[(far_rtt, a)]), float(medians[(far_rtt, b)])),
        far_caps=littles_law_caps(rows, links, (a, b), far_rtt),
    )
