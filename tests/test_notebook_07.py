"""Notebook 07 (what the network changes) executed for real with the smoke profile, over
network-namespace hosts (root only), and its Little's-law arithmetic on constructed rows."""

import os
from dataclasses import replace

import pandas as pd
import pytest
from conftest import descendants, smoke_run

from benchbook.analyse.experiments import network
from benchbook.measure.hosts import namespaces


@pytest.mark.slow
@pytest.mark.skipif(
    os.geteuid() != 0, reason="notebook 07 makes network namespaces, which needs root"
)
def test_the_network_notebook_measures_each_delay_and_judges_one_headline_per_seed(
    tmp_path,
) -> None:
    text, found = smoke_run("07_network", tmp_path)
    assert "RTT measured, median (ms)" in text and "link capacity (MB/s)" in text
    assert "req/s at +0 ms" in text and "p99 ms at +10 ms" in text
    assert "Little&#x27;s law req/s" in text or "Little's law req/s" in text
    assert "Go / FastAPI, requests per second: " in text
    seed_000, seed_001 = found["headlines"]
    assert "over a link adding 10 ms to every round trip:" in seed_000["label"]
    assert seed_000["article_ratio"] == pytest.approx(4.9, abs=0.01)
    assert seed_001["metric"] == "lat_p50_ms"
    # at 10 ms added, the link sets both: never "not reproduced" against the article
    assert {h["reproduced"] for h in found["headlines"]} == {"different conditions: not comparable"}
    assert not [n for n in namespaces.ours() if n.startswith(f"benchbook-{os.getpid()}-")]
    assert descendants() == []


def near_and_far(a: str, b: str, rps: list[float]) -> pd.DataFrame:
    """Rows of two targets, 10 in flight, with nothing and with 10 ms added: ``rps`` is a's
    near and far, then b's."""
    return pd.DataFrame(
        {
            "target": [a, a, b, b],
            "added_rtt_ms": [0, 10, 0, 10],
            "rps": rps,
            "connections": [10] * 4,
            "flags": [""] * 4,
        }
    )


def test_littles_law_puts_the_measured_extra_round_trip_into_each_request() -> None:
    """10 in flight, 2 ms per request with nothing added (5,000 req/s): with 10 ms more
    measured on the link, at most 10 / 12 ms = 833 req/s."""
    rows = near_and_far("a", "b", [5000.0, 800.0, 1000.0, 500.0])
    links = pd.DataFrame({"RTT measured, median (ms)": [0.2, 10.2]}, index=pd.Index([0, 10]))
    table = network.littles_law_table(rows, links)
    a_far = table.loc[("a", 10)]
    assert a_far["W0 (ms)"] == pytest.approx(2.0)
    assert a_far["Little's law req/s"] == pytest.approx(10_000 / 12)
    assert a_far["measured / predicted"] == pytest.approx(800 / (10_000 / 12))
    assert table.loc[("b", 10), "Little's law req/s"] == pytest.approx(10_000 / 20)
    assert network.ratio_by_rtt(rows, "a", "b") == {0: 5.0, 10: 1.6}
    # the verdict's "different conditions", from the same caps: 500 and 833 req/s
    assert "10 requests in flight hold these servers near 500–833 req/s" in (
        network.link_sets_the_rate(rows, links, ["a", "b"], 10, 10)
    )


def test_the_published_vs_reproduced_table_has_a_column_per_delay() -> None:
    table = network.versus_table({"a/b": (4.9, {0: 1.3, 10: 1.0}), "c/d": (None, {0: 0.3})})
    assert list(table.columns) == ["the article", "here, +0 ms", "here, +10 ms"]
    assert table.loc["a/b"].tolist() == [4.9, 1.3, 1.0]
    assert table.loc["c/d", "the article"] != table.loc["c/d", "the article"]  # NaN: none


def test_the_answer_says_the_lead_was_gone_before_the_link() -> None:
    """10 in flight, 1 ms of I/O a request: Go at 6,300 and FastAPI at 5,000 req/s with
    nothing added (each request 1.59 and 2.00 ms: in flight ÷ rate), 1.26×, far below the
    article's 4.9×; 10.2 ms more on the link caps them at 10 / 11.8 ms and 10 / 12.2 ms."""
    from benchbook.analyse.findings import answers
    from benchbook.analyse.findings.headlines import Headline

    rows = near_and_far("go", "py", [6300.0, 812.0, 5000.0, 800.0])
    links = pd.DataFrame({"RTT measured, median (ms)": [0.2, 10.4]}, index=pd.Index([0, 10]))
    limit = network.in_flight_limit(rows, links, "go", "py", in_flight=10, wait_ms=1)
    assert limit.near_ratio == pytest.approx(1.26)
    w0 = {"go": 1000 * 10 / 6300, "py": 1000 * 10 / 5000}
    caps = sorted(1000 * 10 / (w + 10.2) for w in w0.values())
    assert limit.far_caps == pytest.approx(tuple(caps))

    def headline(ratio: float, metric: str) -> Headline:
        return Headline(label="", verdict="", brief="", ratio=ratio, ci_low=ratio * 0.97,
                        ci_high=ratio * 1.03, ci_level=0.95, n="6 rounds", p=0.09,
                        significant=False, article="", article_ratio=None, reproduced="",
                        reproduced_why="", metric=metric)  # fmt: skip

    rate, protocol = headline(1.015, "rps"), headline(0.94, "lat_p50_ms")
    gaps = {0: 3.2, 1: 1.7, limit.far_rtt: 0.62}  # gRPC's median time minus HTTP's, ms
    text = answers.over_a_network([rate, protocol], limit, 4.9, gaps, (0.024, 0.22))
    assert text.startswith(
        "Little of Go's lead, most of it gone before any delay was added; gRPC had none to "
        "keep: with "
        "nothing added, requests still went through the proxy that makes the link (Toxiproxy), "
        "and "
        "with 10 in flight Go served 1.26× FastAPI's requests per second (6,300 vs 5,000 "
        "req/s; one session's medians), a setup not comparable with the article's 4.9× "
        "(measured with no proxy and many more requests in flight): each request took about "
        "1.59 and 2.00 ms (in flight ÷ rate), at least 1.58× the 1 ms it waits, so even a "
        "server answering in exactly 1 ms would have led FastAPI by at most 2.00× here, before "
        "any delay was added; these runs do not tell how much of the time past the wait the "
        "proxy's path took; "
    )
    assert "over a link adding 10 ms, 1.01× (812 vs 800 req/s; one session's medians)" in text
    pooled = replace(rate, pooled_ratio=1.01, pooled_low=1.005, pooled_high=1.02, sessions=6)
    text_pooled = answers.over_a_network([pooled, protocol], limit, 4.9, gaps, (0.024, 0.22))
    assert (  # the pooled figure the chart plots, this session's medians beside it
        "over a link adding 10 ms, 1.01× (95 % CI 1.005–1.02×) over 6 sessions on this machine "
        "class (this session's medians: "
    ) in text_pooled
    # the link set both rates: no interval for them, as the Conclusion prints none
    apart = replace(pooled, set_by="the link set both rates, not the servers")
    text_apart = answers.over_a_network([apart, protocol], limit, 4.9, gaps, (0.024, 0.22))
    assert "over a link adding 10 ms, 1.01× (812 vs 800 req/s; one session's medians)" in text_apart
    assert f"puts both near {caps[0]:,.0f}–{caps[1]:,.0f} req/s: the link, not the servers" in text
    # the gap in ms at every delay, then why no delay tells the protocols from the clients
    assert (
        "In this session, at every delay gRPC's median latency of a health check was the longer: "
        "the Python "
        "backend's HTTP/JSON answered sooner by 3.20 ms with nothing added, 1.70 ms at +1 ms, "
        "0.620 ms at +10 ms (differences of medians); at +10 ms a gap this session's own runs "
        "cannot tell from none (p = 0.090). But HTTP/JSON and gRPC are timed by "
        "different clients (wrk and ghz)"
    ) in text
    assert text.endswith(
        "where HTTP/JSON took 0.940× (95 % CI 0.912–0.968×) of gRPC's median latency, ghz spent "
        "0.220 ms of CPU per call and wrk 0.0240 ms (client CPU ÷ rate), so how much of the "
        "gap is the protocols' and how much the clients' cannot be told from these runs."
    )
    # a time significantly below the other's reads as its conclusion says it: 1/0.94 lower
    faster = replace(protocol, significant=True)
    lower = answers.over_a_network([rate, faster], limit, 4.9, gaps, (0.024, 0.22))
    assert (
        "where HTTP/JSON's median latency was 1.06× lower (95 % CI 1.03–1.10× lower) than "
        "gRPC's," in lower
    )
    # gaps of both signs: no direction is claimed
    mixed = answers.over_a_network([rate, protocol], limit, 4.9, {0: 3.2, 10: -0.1}, (0.024, 0.22))
    assert "minus HTTP/JSON's was +3.20 ms with nothing added, -0.100 ms at +10 ms" in mixed
    assert "lead was not seen" not in mixed
