"""Page 1's opening: a few generated sentences that answer the report's question across
experiments, then one line of the conditions that change what the numbers mean (the
machine, the cores each side had, run lengths, rounds, sessions) — all read from the
findings the notebooks published and the manifests of the runs behind them."""

import json
from collections import Counter
from collections.abc import Sequence

from benchbook.render.appendix import RunProvenance
from benchbook.render.notebook_html import Section


def overview_sentences(sections: Sequence[Section]) -> list[str]:
    """How the headlines came out, and how the articles held up, in counts."""
    headlines = [h for s in sections for f in s.findings for h in f["headlines"]]
    if not headlines:
        return []
    significant = sum(1 for h in headlines if h.get("significant"))
    verdicts = Counter(h.get("reproduced") for h in headlines if h.get("article_ratio"))
    sentences = [
        f"Of {len(headlines)} headline comparisons, {significant} show a significant "
        "difference on this machine; the others are no significant difference, too few "
        "runs to tell, lower bounds, or within what an A/A control strays."
    ]
    if verdicts:
        parts = [f"{n} {label}" for label, n in verdicts.most_common()]
        sentences.append(
            f"Held against the {sum(verdicts.values())} figures the articles published: "
            + "; ".join(parts)
            + " ('reproduced' only when the article's figure lies inside our interval)."
        )
    sessions = max((len(h.get("spread") or []) for h in headlines), default=0)
    sentences.append(
        f"The widest record behind a headline is {sessions} stored session"
        f"{'s' if sessions != 1 else ''}; the pages after the summary show each of them, "
        "with the machine's speed in that session."
    )
    return sentences


def conditions_line(runs: Sequence[RunProvenance]) -> str:
    """One line: machine, cores per server and per load tool, run lengths, rounds."""
    manifests = [json.loads(run.manifest_path.read_text(encoding="utf-8")) for run in runs]
    if not manifests:
        return ""
    machine = manifests[0].get("provenance", {}).get("machine", {})
    pinning = manifests[0].get("params", {}).get("pinning", {})
    durations = [
        load["duration_s"]
        for m in manifests
        for load in m.get("params", {}).get("loads", [])
        if load.get("duration_s")
    ]
    rounds = [m["params"]["repetitions"] for m in manifests if "repetitions" in m.get("params", {})]
    server_cpus = len(pinning.get("server_cpus") or []) or "all"
    load_cpus = len(pinning.get("load_cpus") or []) or "all"
    parts = [
        f"{machine.get('cpu_model', 'an unrecorded machine')}, "
        f"{machine.get('logical_cpus', '?')} logical CPUs",
        f"servers on {server_cpus} core(s) (a Go server's GOMAXPROCS follows), the load tool "
        f"on {load_cpus}",
    ]
    if durations:
        parts.append(
            f"runs of {min(durations):g}–{max(durations):g} s (each notebook's Setup gives "
            "its article's)"
        )
    if rounds:
        restarted = sum(1 for m in manifests if m.get("params", {}).get("restart"))
        parts.append(
            f"{min(rounds)}–{max(rounds)} rounds per experiment, servers started afresh for "
            f"each round in {restarted} of {len(manifests)} runs"
        )
    parts.append(f"{len(manifests)} runs")
    return "Conditions: " + "; ".join(parts) + "."
