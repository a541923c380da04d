"""The report's glossary: every term page 1 uses, in a sentence a student understands,
with the numbers that make it concrete computed from the same statistics the report
uses (the smallest p-value a design can reach), and each validity flag's meaning."""

import math

from benchbook.analyse.flag_wording import FLAG_MEANINGS
from benchbook.analyse.levels import MIN_HELD_OUT, MIN_SESSIONS
from benchbook.analyse.stats import ALPHA, min_detectable_n, min_detectable_pairs
from benchbook.runs.flags import CLIENT_BOUND_SHARE


def smallest_p_two_samples(n_a: int, n_b: int) -> float:
    """The smallest two-sided p a Mann-Whitney test of n_a against n_b runs can give:
    every run of one side above every run of the other, 2 of C(n_a + n_b, n_a) orders."""
    return min(1.0, 2 / math.comb(n_a + n_b, n_a))


def smallest_p_paired(rounds: int) -> float:
    """The smallest two-sided p a signed-rank test over ``rounds`` pairs can give: one side
    ahead in every round, 2 of 2^rounds sign patterns."""
    return min(1.0, 2 / 2**rounds)


# Terms whose explanation needs no number from the statistics, in reading order; terms()
# puts the prediction interval and the p-value, which do, after "interval".
PLAIN_TERMS = (
    ("round", "every server measured once, each started afresh, in a random order; a "
     "ratio taken within a round cancels what the machine did that minute"),
    ("session", "one finished run of an experiment (all its rounds) on one machine: one "
     "`make report`; a run killed half-way is never a session"),
    ("machine class", "machines with the same CPU (vendor, family, model, stepping) and the "
     "same number of cores; a newer CPU generation is another class, whatever the machine's "
     "name"),
    ("interval (95 % CI)", "the range that holds the true ratio 95 times in 100; '93.8 % CI' "
     "means too few runs for 95 %, and the level they reach is printed"),
    ("A/A control", "one server measured as two targets in the same rounds: its 'ratio' "
     "should be 1, so how far it strays is the smallest difference this setup can resolve"),
    ("lower bound", "'at least N×': the load tool, not the server, set one side's number, so "
     "the true ratio is larger; N is the lowest that every stored session of this machine "
     "class supports (each session's lowest run of one side over its highest of the other), "
     "and no interval or p-value is given"),
    ("closed and open loop", "a closed-loop tool (wrk, Locust) sends the next request only "
     "when an answer came back, so a stalled server also slows the load; an open-loop tool "
     "(vegeta) sends on a schedule whatever happens, as real users do"),
    ("GOMAXPROCS", "how many cores a Go program runs goroutines on; pinned to one core, a Go "
     "server gets GOMAXPROCS = 1"),
)  # fmt: skip


def p_value_text() -> str:
    """The p-value in words, with the smallest p the report's designs can reach."""
    n, pairs = min_detectable_n(), min_detectable_pairs()
    return (
        f"how often a difference this large would appear by chance if there were none; "
        f"below {ALPHA} we call it significant. Few runs cannot reach a small p at all: "
        f"{n}+{n} runs give at best p = {smallest_p_two_samples(n, n):.3f}, {pairs} paired "
        f"rounds p = {smallest_p_paired(pairs):.3f}, and {n - 1}+{n - 1} runs "
        f"p = {smallest_p_two_samples(n - 1, n - 1):.2f}, never significant: then the report "
        "says 'too few runs to tell'"
    )


def terms() -> list[tuple[str, str]]:
    """(term, its explanation), in the order a reader meets them."""
    predicted = (
        "where the next session's estimate on this machine class should land, 95 times in "
        f"100; it needs {MIN_SESSIONS} sessions, and the report checks it by leaving out "
        f"each session of a headline with {MIN_HELD_OUT} or more"
    )
    computed = [("prediction interval", predicted), ("p-value", p_value_text())]
    return [*PLAIN_TERMS[:4], *computed, *PLAIN_TERMS[4:]]


def flags() -> list[tuple[str, str]]:
    """(flag, its meaning) for every validity flag, with the thresholds in force."""
    details = {
        "client_bound": f" (at {CLIENT_BOUND_SHARE * 100:.0f} % of its cores or more)",
    }
    return [(flag, meaning + details.get(flag, "")) for flag, meaning in FLAG_MEANINGS.items()]
