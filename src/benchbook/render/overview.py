"""Page 1's opening: a few generated sentences that answer the report's question across
experiments, then one line of the conditions that change what the numbers mean (the
machine, the cores each side had, run lengths, rounds, sessions) — all read from the
findings the notebooks published and the manifests of the runs behind them."""

from collections import Counter
from collections.abc import Mapping, Sequence

from benchbook.analyse.findings import answer_note
from benchbook.analyse.sessions.machine_classes import machine_class
from benchbook.analyse.words.bounds import figure as bound_figure
from benchbook.analyse.words.findings_format import LOWER_BOUND, comparison, missing, ratio_text
from benchbook.render.notebook_html import Section
from benchbook.render.provenance import RunProvenance
from benchbook.runs.experiment import Pinning
from benchbook.runs.languages import load_languages, title_of
from benchbook.runs.manifest import description_of, plan_of, read_manifest


def overview_sentences(sections: Sequence[Section]) -> list[str]:
    """How the headlines came out, and how the articles held up, in counts."""
    all_findings = [f for s in sections for f in s.findings]
    headlines = [h for f in all_findings for h in f["headlines"]]
    if not headlines:
        return []
    # a difference where something other than the servers set the rates is no verdict
    significant = sum(1 for h in headlines if h.get("significant") and not h.get("set_by"))
    answer = language_tally(headlines)
    sentences = [answer] if answer else []
    one_session = all((h.get("sessions") or 1) <= 1 for h in headlines)
    where = "in this machine class's one session" if one_session else "on this machine class"
    sentences += [
        f"Of {len(headlines)} headline comparisons, {significant} show a significant "
        f"difference {where}; the others are no significant difference, too few "
        "runs to tell, lower bounds, within what an A/A control strays, or set by something "
        "other than the servers."
    ]
    figures = published_figures(all_findings)
    if figures:
        sentences.append(
            f"The articles' {len(figures)} headline ratios, each held against what this "
            "machine class measured (their other claims, such as latencies and rates, are "
            "held against it in the notebooks themselves): " + "; ".join(figures) + "."
        )
    sentences.append(sessions_sentence(headlines))
    return sentences


def answers_note(sections: Sequence[Section]) -> str:
    """The note under page 1's answers, computed from the answers as printed (each
    findings' plain answer, or its full answer without one) and their headlines."""
    kinds = [
        answer_note.figure_kinds(
            f.get("plain") or f.get("answer", ""),
            [answer_note.headline_from_json(h) for h in f["headlines"]],
        )
        for s in sections
        for f in s.findings
    ]
    return answer_note.answers_note(kinds)


def published_figures(all_findings: Sequence[dict]) -> list[str]:
    """Each figure an article published, once, with the verdict of every headline held
    against it: '4.9× (Go vs FastAPI (uvloop)): reproduced; … (asyncio): same direction'."""
    verdicts: dict[tuple[str, float], list[str]] = {}
    for findings in all_findings:
        for h in findings["headlines"]:
            if missing(h.get("article_ratio")):
                continue
            # a figure is its claim as the article states it (notebook 07 holds seeds 000
            # and 001's figures again): the same text is the same figure
            key = (str(h.get("article") or ""), round(float(h["article_ratio"]), 6))
            label = comparison(h["label"])
            verdicts.setdefault(key, []).append(f"{h.get('reproduced')} ({label})")
    return [
        f"{ratio_text(ratio)}: " + ", ".join(dict.fromkeys(found))
        for (_, ratio), found in verdicts.items()
    ]


# Metrics where more is better (the runs' column, or a capacity table's): a ratio above 1
# puts the first language ahead.
RATES = ("rps", "requests per second")


def language_tally(headlines: Sequence[dict]) -> str:
    """The report's question across experiments — Go against Python — for every pair of
    languages the headlines compared (each headline's own ``languages``), a sentence each,
    the pair in the registry's order of languages (servers.toml)."""
    declared = load_languages()
    order = {name: i for i, name in enumerate(declared)}
    pairs: dict[tuple[str, str], list[dict]] = {}
    for h in headlines:
        languages = tuple(h.get("languages") or ())
        if len(set(languages)) != 2 or "" in languages:
            continue  # one language on both sides: not a comparison of languages
        pair = sorted(languages, key=lambda name: (order.get(name, len(order)), name))
        pairs.setdefault((pair[0], pair[1]), []).append(h)
    sentences = [pair_tally(pair, found, declared) for pair, found in pairs.items()]
    return " ".join(sentence for sentence in sentences if sentence)


def pair_tally(pair: tuple[str, str], headlines: Sequence[dict], declared: Mapping) -> str:
    """By how much a server of the pair's first language out-served one of its second,
    where a comparison of rates reached a verdict, and where it did not — like for like
    only (the same storage; a second load tool on the same servers is a cross-check, not
    another comparison), and only where the servers set both rates (``set_by`` empty:
    analyse.rows.limits)."""
    first, second = (title_of(name, declared) for name in pair)
    decided, bounds, undecided = [], [], []
    for h in headlines:
        if not str(h.get("metric")).startswith(RATES):
            continue
        if h.get("cross_check") or h.get("like_for_like") is False or missing(h.get("ratio")):
            continue
        if h.get("set_by"):  # something other than the servers set the rates
            continue
        pooled = h.get("pooled_ratio")
        ratio = h["ratio"] if missing(pooled) else pooled
        first_over_second = ratio if h["languages"][0] == pair[0] else 1 / ratio
        if h.get("reproduced_why") == LOWER_BOUND:
            bounds.append((first_over_second, int(h.get("sessions") or 1)))
        elif h.get("significant"):
            decided.append((first_over_second, comparison(h["label"])))
        else:
            undecided.append(comparison(h["label"]))
    if not decided and not bounds:
        return ""
    parts = []
    if decided:
        low, high = min(decided), max(decided)
        ahead = sum(1 for ratio, _ in decided if ratio > 1)
        parts.append(
            f"{first} was ahead of {second} in {ahead} of the {len(decided)} like-for-like "
            f"comparisons of requests per second that reached a verdict (a second load tool on "
            f"the same servers not counted again), by "
            f"{ratio_text(low[0])} ({low[1]}) to {ratio_text(high[0])} ({high[1]})"
        )
    if bounds:
        what = "are lower bounds" if len(bounds) > 1 else "is a lower bound"
        least = " and ".join(bound_figure(*bound) for bound in sorted(bounds))
        parts.append(
            f"{len(bounds)} more {what}, {least}: the load tool ran out before {first}'s server did"
        )
    if undecided:
        parts.append(f"no difference could be shown for {'; '.join(undecided)}")
    return "; ".join(parts) + "."


def sessions_sentence(headlines: Sequence[dict]) -> str:
    """How many sessions of this machine class stand behind the headlines, and how the
    prediction rule held when each session was left out."""
    # 3+ sessions: a prediction interval, which Appendix C draws for each (one whose rates
    # something else set is counted too: its verdict is "not comparable", not its interval)
    modelled = [
        h
        for h in headlines
        if not missing(h.get("pooled_ratio")) and not missing(h.get("predict_low"))
    ]
    held = [s for h in headlines for s in h.get("held_out") or []]
    if not modelled:
        text = (
            "Every headline rests on fewer than three sessions of this machine class: not "
            "yet replicated (make replicate adds sessions)"
        )
    else:
        counts = [h.get("sessions") or 1 for h in modelled]
        many = f"{min(counts)}" if min(counts) == max(counts) else f"{min(counts)}–{max(counts)}"
        apart = sum(1 for h in modelled if h.get("set_by"))
        text = (
            f"{len(modelled)} of {len(headlines)} headlines rest on {many} "
            "sessions of this machine class and have a 95 % prediction interval for the next one, "
            "drawn in Appendix C"
            + (
                f" ({apart} of them not comparable, their rates set by something other than "
                "the servers: no answer gives their intervals, and Appendix C marks them so)"
                if apart
                else ""
            )
        )
    if held:
        inside = sum(1 for s in held if s.get("inside"))
        text += (
            f"; in {len(held)} checks on this machine class, each leaving one session of one "
            f"headline out, {inside} fell inside the interval the others predicted (Appendix C "
            "counts every class's)"
        )
    return text + "."


def cores(pinned: Sequence[int] | None) -> str:
    """'1 core', '2 cores', or 'all cores' when nothing was pinned."""
    if not pinned:
        return "all cores"
    return f"{len(pinned)} core{'s' if len(pinned) != 1 else ''}"


def placement(pinnings: Sequence[Pinning]) -> str:
    """Where servers and load tools ran: one placement for every run, or each placement
    with its count of runs, the commonest first ('servers on 1 core …, the load tool on
    1 core in 21 of 22 sessions; nothing pinned in 1')."""
    counts = Counter((cores(p.server_cpus), cores(p.load_cpus)) for p in pinnings).most_common()
    said = []
    for (server, tool), n in counts:
        where = (
            "nothing pinned"
            if server == tool == "all cores"
            else f"servers on {server}"
            + (" (a Go server's GOMAXPROCS follows)" if not said else "")
            + f", the load tool on {tool}"
        )
        said.append(where + (f" in {n} of {len(pinnings)} sessions" if len(counts) > 1 else ""))
    return "; ".join(said)


def conditions_line(runs: Sequence[RunProvenance]) -> str:
    """One line: machine, cores per server and per load tool, run lengths, rounds."""
    manifests = [read_manifest(run.manifest_path.parent) for run in runs]
    if not manifests:
        return ""
    machine = manifests[0]["provenance"]["machine"]
    plans = [plan_of(m) for m in manifests]
    descriptions = [description_of(m) for m in manifests]
    durations = [d for plan in plans for d in plan.load_values("duration_s")]
    rounds = [d.repetitions for d in descriptions if d.repetitions]
    parts = [
        # the machine class every "this machine class" of the report means
        (f"{cls} (“this machine class” below)" if (cls := machine_class(machine)) else "")
        or f"{machine.get('cpu_model', 'an unrecorded machine')}, "
        f"{machine.get('logical_cpus', '?')} logical CPUs",
        placement([plan.pinning for plan in plans]),
    ]
    if durations:
        parts.append(
            f"runs of {min(durations):g}–{max(durations):g} s (each notebook's Setup gives "
            "its article's)"
        )
    if rounds:
        restarted = sum(1 for d in descriptions if d.restart)
        parts.append(
            f"{min(rounds)}–{max(rounds)} rounds per experiment, servers started afresh for "
            f"each round in {restarted} of {len(manifests)} sessions"
        )
    parts.append(f"{len(manifests)} sessions")
    return "Conditions: " + "; ".join(parts) + "."
