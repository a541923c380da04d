"""What each validity flag means, in words a student understands: the Validity sections
explain each once, and verdicts name what a flag does to a comparison. The rules that
raise the flags are measure.flags', their thresholds runs.flags' (a change there re-measures;
a change here does not)."""

from collections.abc import Mapping, Sequence

from benchbook.runs.flags import SHORT_RUN_REQUESTS, SHORT_RUN_S

# Each flag in plain words, as the Validity sections explain it once.
FLAG_MEANINGS = {
    "errors": "some connections failed or broke (connect, read or write errors)",
    "timeouts": "some requests took longer than the load tool's timeout; they are counted, "
    "but missing from the latency figures",
    "non_2xx": "some answers were HTTP errors (status 400 or above)",
    "client_bound": "the load tool used (nearly) all the CPU it had: it may have been the "
    "bottleneck rather than the server",
    "near_tool_ceiling": "throughput reached 90 % of the most this load-tool setting could "
    "produce on this machine (notebook 00): the tool may be the limit",
    "littles_law": "throughput and latency disagree: requests in flight (req/s × mean "
    "latency) differ from the open connections by more than 15 %, so some time went "
    "unmeasured and the latency figures are suspect",
    "short_run": f"a short run (under {SHORT_RUN_S:g} s or {SHORT_RUN_REQUESTS:,} requests): "
    "fine for throughput, too few samples for the rarest percentiles",
    "bad_response": "the server gave wrong answers during or after the run (status, type or "
    "body not what the registry requires), so its req/s count wrong answers",
    "server_died": "the server exited during the run",
    "data_loss": "records the server confirmed (e.g. 201 Created) were lost: ids handed out "
    "twice, records that read back wrong, or a store whose count does not match",
    "rate_shortfall": "the open-loop tool sent less than 95 % of the rate asked: the tool, "
    "not the schedule, set the load",
    "workers_exhausted": "every worker the open-loop tool may use was waiting for a reply "
    "at once, so later requests left late and that delay is missing from the latencies",
    "network_bound": "the bytes per second reached 80 % of what the link between the hosts "
    "carried when it was measured: the link, not the server, may have set the pace",
    "busy_machine": "other work on the machine used a tenth of a core or more while the run "
    "measured (or was still running when measuring began), or the hypervisor took a tenth "
    "of the CPU time or more for other machines while nothing measured was at its limit: a "
    "server woken by a request waits behind that work, so the run is shown but counts in "
    "no estimate",
}
# Each flag as a few plain words, for page 1 and answer boxes, which name no flag.
FLAG_PLAIN = {
    "errors": "connection errors",
    "timeouts": "timed-out requests",
    "non_2xx": "HTTP error answers",
    "client_bound": "a load tool at its CPU limit",
    "near_tool_ceiling": "a load tool near its most",
    "littles_law": "throughput and latency that disagree",
    "short_run": "short runs",
    "bad_response": "wrong answers",
    "server_died": "a server that died",
    "data_loss": "lost records",
    "rate_shortfall": "less load than asked",
    "workers_exhausted": "a load tool out of workers",
    "network_bound": "a full link",
    "busy_machine": "a busy machine",
}
# What a flag does to a comparison, in a few words (cautions in verdicts).
FLAG_CONSEQUENCES = {
    "errors": "part of its throughput is failed requests",
    "timeouts": "its latency figures leave out the slowest requests",
    "non_2xx": "part of its throughput is error answers",
    "client_bound": "the load tool may be what was measured",
    "near_tool_ceiling": "the load tool may be what was measured",
    "littles_law": "its latency figures are suspect",
    "short_run": "its rarest percentiles rest on few samples",
    "bad_response": "those runs are left out",
    "server_died": "those runs are left out",
    "data_loss": "those runs are left out",
    "rate_shortfall": "the rate it is listed under was not offered",
    "workers_exhausted": "its latency figures understate what users would wait",
    "network_bound": "the link may be what was measured",
    "busy_machine": "those runs are left out",
}
CAUTION = "Caution: "  # how a caution opens, so an answer can say each one once
# What a rate measured when the only doubt about its row is Little's law (a latency
# matter): the rate itself is the requests completed, whatever the latency says.
RATE_UNDER_LITTLES_LAW = "its rate still counts the requests the load tool completed"


# What each target's runs carry of rows.counted.SUSPECT_FLAGS: target → flag → (k, n).
Tallies = Mapping[str, Mapping[str, tuple[int, int]]]


def caution(
    tallies: Tallies, names: Mapping[str, str], column: str = "", plain: bool = False
) -> str:
    """'Caution: b's runs had throughput and latency that disagree (5 of 5 runs; flag
    `littles_law` under Validity): its latency figures are suspect.' —
    the flags that change the meaning of a comparison, counted, each consequence once
    (their full meaning is in the Validity section). A ranking by requests per second
    (``column`` 'rps') whose only doubt is Little's law says what the rate measured.
    ``plain``: without the flag's name, for page 1, which has no Validity section;
    ``names``: how to call each target."""

    def what(flag: str, counts: Sequence[tuple[int, int]]) -> str:
        shares = " and ".join(f"{k} of {n}" for k, n in counts)
        named = "" if plain else f"; flag `{flag}` under Validity"
        return f"had {FLAG_PLAIN[flag]} ({shares} runs{named})"

    parts = []
    shared = set.intersection(*(set(t) for t in tallies.values())) if len(tallies) > 1 else set()
    for flag in sorted(shared):
        counts = [tally[flag] for tally in tallies.values()]
        consequence = FLAG_CONSEQUENCES[flag].replace("its ", "their ")
        parts.append(f"both sides' runs {what(flag, counts)}: {consequence}")
    for target, tally in tallies.items():
        for flag in sorted(set(tally) - shared):
            parts.append(f"{names[target]}'s runs {what(flag, [tally[flag]])}: "
                         f"{FLAG_CONSEQUENCES[flag]}")  # fmt: skip
    flags = {flag for tally in tallies.values() for flag in tally}
    if column == "rps" and flags == {"littles_law"}:
        parts.append(RATE_UNDER_LITTLES_LAW)
    return (CAUTION + "; ".join(parts) + ".") if parts else ""
