"""Page 1's opening: a few generated sentences that answer the report's question across
experiments, then one line of the conditions that change what the numbers mean (the
machine, the cores each side had, run lengths, rounds, sessions) — all read from the
findings the notebooks published and the manifests of the runs behind them."""

import json
from collections import Counter
from collections.abc import Sequence

from benchbook.analyse.findings_format import missing, ratio_text
from benchbook.analyse.replication import WITH_SPEED
from benchbook.render.appendix import RunProvenance
from benchbook.render.notebook_html import Section


def overview_sentences(sections: Sequence[Section]) -> list[str]:
    """How the headlines came out, and how the articles held up, in counts."""
    headlines = [h for s in sections for f in s.findings for h in f["headlines"]]
    if not headlines:
        return []
    significant = sum(1 for h in headlines if h.get("significant"))
    answer = go_vs_python(headlines)
    verdicts = Counter(h.get("reproduced") for h in headlines if h.get("article_ratio"))
    sentences = [answer] if answer else []
    sentences += [
        f"Of {len(headlines)} headline comparisons, {significant} show a significant "
        "difference on this machine; the others are no significant difference, too few "
        "runs to tell, lower bounds, or within what an A/A control strays."
    ]
    if verdicts:
        parts = [f"{n} {label}" for label, n in verdicts.most_common()]
        sentences.append(
            f"Held against the {sum(verdicts.values())} figures the articles published: "
            + "; ".join(parts)
            + " ('reproduced' only when the article's figure lies inside the interval a "
            "verdict is judged on)."
        )
    sentences.append(sessions_sentence(headlines))
    moved = [h for h in headlines if h.get("moved")]
    if moved:
        with_speed = [h for h in moved if WITH_SPEED in h["moved"]]
        sentences.append(
            f"{len(moved)} headline estimate{'s' if len(moved) != 1 else ''} moved between "
            f"sessions beyond their intervals; in {len(with_speed)} of them the machine's "
            "speed changed too (each row says how much)."
        )
    return sentences


# Metrics where more is better (the runs' column, or a capacity table's): a Go/Python
# ratio above 1 puts Go ahead.
RATES = ("rps", "requests per second")


def go_vs_python(headlines: Sequence[dict]) -> str:
    """The report's question across experiments: by how much a Go server out-served a
    Python one, where a comparison of rates reached a verdict, and where it did not."""
    decided, bounds, undecided = [], [], []
    for h in headlines:
        languages = list(h.get("languages") or ())
        if sorted(languages) != ["go", "python"] or not str(h.get("metric")).startswith(RATES):
            continue
        if missing(h.get("ratio")):
            continue
        go_over_python = h["ratio"] if languages[0] == "go" else 1 / h["ratio"]
        if h.get("reproduced_why") == "a lower bound":
            bounds.append(go_over_python)
        elif h.get("significant"):
            decided.append((go_over_python, h["label"].split(":")[0]))
        else:
            undecided.append(h["label"].split(":")[0])
    if not decided and not bounds:
        return ""
    parts = []
    if decided:
        low, high = min(decided), max(decided)
        ahead = sum(1 for ratio, _ in decided if ratio > 1)
        parts.append(
            f"Go was ahead of Python in {ahead} of the {len(decided)} comparisons of "
            f"requests per second that reached a verdict, by {ratio_text(low[0])} "
            f"({low[1]}) to {ratio_text(high[0])} ({high[1]})"
        )
    if bounds:
        what = "are lower bounds" if len(bounds) > 1 else "is a lower bound"
        least = " and ".join(ratio_text(bound) for bound in sorted(bounds))
        parts.append(
            f"{len(bounds)} more {what} (at least {least}): the load tool ran out before "
            "Go's server did"
        )
    if undecided:
        parts.append(f"no difference could be shown for {'; '.join(undecided)}")
    return "; ".join(parts) + "."


def sessions_sentence(headlines: Sequence[dict]) -> str:
    """How many measuring sessions stand behind the headlines."""
    counts = [h.get("sessions") or 1 for h in headlines]
    replicated = sum(1 for n in counts if n >= 2)
    if not replicated:
        return (
            "Every headline rests on one measuring session; the run-to-run pages show "
            "earlier runs under other conditions, with the machine's speed in each."
        )
    return (
        f"{replicated} of {len(headlines)} headlines rest on 2–{max(counts)} measuring "
        "sessions of the same comparison (their verdicts are judged on the wider of this "
        "session's interval and the sessions' range); the run-to-run pages show each "
        "session with the machine's speed in it."
    )


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
