"""The report's glossary: every term page 1 uses, in a sentence a student understands,
with the numbers that make it concrete computed from the same statistics the report
uses (the smallest p-value a design can reach), and each validity flag's meaning."""

import math

from benchbook.analyse.numbers.stats import ALPHA, min_detectable_n, min_detectable_pairs
from benchbook.analyse.sessions.levels import MIN_SESSIONS
from benchbook.analyse.words.flags import FLAG_MEANINGS
from benchbook.runs.limits import CLIENT_BOUND_SHARE


def smallest_p_two_samples(n_a: int, n_b: int) -> float:
    """The smallest two-sided p a Mann-Whitney test of n_a against n_b runs can give:
    every run of one side above every run of the other, 2 of C(n_a + n_b, n_a) orders."""
    return min(1.0, 2 / math.comb(n_a + n_b, n_a))


def smallest_p_paired(rounds: int) -> float:
    """The smallest two-sided p a signed-rank test over ``rounds`` pairs can give: one side
    ahead in every round, 2 of 2^rounds sign patterns."""
    return min(1.0, 2 / 2**rounds)


# Terms whose explanation needs no number from the statistics, in reading order; terms()
# puts the prediction interval and the p-value, which do, after "interval" (the fifth).
PLAIN_TERMS = (
    ("run", "one load test: one load tool against one server for a set time, giving one "
     "row of figures (its rate, its latencies, its flags); a round holds one run of each "
     "server, and a session all the rounds of one experiment"),
    ("round", "every server measured once, in a random order, each started afresh unless "
     "its experiment keeps one process for all rounds (its setup says which); a ratio taken "
     "within a round cancels what the machine did that minute"),
    ("session", "one finished run of one experiment (all its rounds) on one machine; one "
     "`make report` makes a session of each experiment it runs (a notebook runs one or "
     "several); a run killed half-way is never a session"),
    ("machine class", "machines with the same CPU (vendor, family, model, stepping) and the "
     "same number of cores; a newer CPU generation is another class, whatever the machine's "
     "name"),
    ("machine", "one boot of one host (its boot id): sessions on it share its speed that "
     "day, and another machine of the same class can differ from it by more than its own "
     "sessions differ from each other, so besides the next session on the class (its "
     "sessions on every machine pooled) the report says what another session on this "
     "machine and a session on another machine of the class should give"),
    ("interval (95 % CI)", "a range computed from the runs by a procedure that, repeated on "
     "new runs, gives ranges covering the true ratio 95 times in 100; one interval either "
     "holds the true ratio or not, and we cannot tell which. '93.8 % CI' means too few runs "
     "for 95 %, and the level they reach is printed"),
    ("A/A control", "one server measured as two targets in the same rounds: its 'ratio' "
     "should be 1, so how far it strays is the smallest difference this setup can resolve — "
     "for one session's ratio, how far the next A/A session may stray (its 95 % prediction "
     "interval); for a ratio pooled over sessions, how far the A/A's pooled mean may (its "
     "95 % CI)"),
    ("lower bound", "'at least N×': the first side's number is only the least it can do, "
     "because something other than what is compared held it (the server held a load tool "
     "back, or a load tool a server), so the true ratio is N× or larger; N is the lowest "
     "that every stored session of this machine class supports (each session's lowest run "
     "of the first side over its highest of the other), and no interval or p-value is "
     "given"),
    ("ceiling", "three different things: a load tool's ceiling, the most requests per "
     "second one setting of it produced here (notebook 00); a ceiling server, one compiled "
     "without a garbage collector whose own CPU set its rate, what a server reaches on the "
     "same core with nothing between its code and the machine; and Little's-law ceiling, "
     "the rate c connections that each wait d per request cannot exceed, c ÷ d"),
    ("machine-speed reference", "a fixed Go and a fixed Python workload timed on the "
     "servers' core before and after each experiment (seconds; lower is faster): how fast "
     "the machine was that session, whatever the servers did"),
    ("closed and open loop", "a closed-loop tool (wrk, Locust) sends the next request only "
     "when an answer came back, so a stalled server also slows the load; an open-loop tool "
     "(vegeta) sends on a schedule whatever happens, as real users do"),
    ("GOMAXPROCS", "how many cores a Go program runs goroutines on; pinned to one core, a Go "
     "server gets GOMAXPROCS = 1"),
    ("percentiles (p50, p90, p99)", "p99 is the latency 99 % of requests beat: one request "
     "in 100 took longer; p90 leaves out one in 10; p50 is the median"),
    ("Little's law", "requests in flight = requests per second × the time each takes; with "
     "c connections that each wait d per request, no server exceeds c ÷ d requests per "
     "second; U users who each wait Z between answers of R send U ÷ (Z + R) per second in "
     "the long run (a short run a little above or below); a run whose numbers break the "
     "law lost time somewhere unmeasured"),
    ("what set the rate", "for every run, the limit its requests per second met, from what "
     "was measured while it ran: the server's own CPU (near all of its cores); the load tool "
     "(its CPU near all of its cores, or near the most it produced in notebook 00); the "
     "requests in flight (a server that holds each request for a wait it declares, a sleep "
     "or a disk sync, or one given no more requests at once than it has cores, which its "
     "own work cannot keep busy: its rate is the requests in flight ÷ how long it holds "
     "each); the "
     "users' wait ('think time' in a table's set-by column: users that pause between "
     "requests send at most users ÷ (wait + response time)); the link (a round trip added "
     "between hosts); the offered rate (an open-loop tool that sent what it was asked); a "
     "busy machine ('machine' in a table: other processes used a tenth of a core or more "
     "during the run, or the hypervisor took a tenth of the CPU time or more while nothing "
     "measured was at its limit: a woken server waits behind that work); nothing measured at "
     "its limit ('none' in a table); or, for a run whose rows did not record the figures the "
     "rule needs (Go benchmarks' own runs), 'unrecorded'. A ratio compares servers only "
     "where both rates were set by the servers (their CPU, or the requests in flight they "
     "held); runs a busy machine or nothing "
     "measured set are shown but count in no estimate"),
    ("headroom", "a run's requests per second ÷ the most its load-tool setting could "
     "produce on this machine (notebook 00); near 100 % the tool, not the server, may have "
     "set the rate"),
    ("SLO (service-level objective)", "a latency target, e.g. a p99 below 20 ms; a "
     "server's capacity within the SLO is where a run's p99 crosses it, placed between the "
     "last offered rate it met and the first it broke (on a log scale of p99), or at least "
     "the last rate met where the load tool gave out first"),
    ("coordinated omission", "a closed-loop tool waits for a stalled answer before sending "
     "its next request, so the requests that would have arrived during the stall are never "
     "sent and never timed: its percentiles miss most of the stall"),
    ("Hodges–Lehmann estimate", "the ratio the report prints for a comparison: the median "
     "of every average of two per-round log-ratios (paired rounds), or of every ratio of a "
     "run of one side to a run of the other; one wild run cannot move it far; a ratio of "
     "medians, as the articles give theirs, can differ from it, by several per cent where "
     "rounds vary"),
    ("N× lower", "a ratio of times below 1, in words: 1 ÷ the ratio, so a table's 0.643× "
     "(the first's time over the second's) reads 1.56× lower; its interval is inverted too"),
    ("signed-rank and Mann-Whitney tests", "the tests behind p: the Wilcoxon signed-rank "
     "test where both sides were measured in the same rounds (it compares round by round), "
     "the Mann-Whitney U test where they cannot be paired (it compares every run of one "
     "side with every run of the other)"),
    ("Tukey's and Moses' methods", "how a Hodges–Lehmann estimate gets its interval with "
     "no assumption about the runs' distribution: it runs between two of the same sorted "
     "averages (Tukey's, paired rounds) or ratios (Moses', unpaired runs), at the ranks the "
     "signed-rank or Mann-Whitney test's exact table gives"),
    ("pooled estimate", "sessions combined with equal weights: the mean of their log "
     "ratios, each session counted once; its 95 % interval is that mean ± t with k−1 "
     "degrees of freedom × their SD ÷ √k (the Hartung–Knapp form with equal weights); it "
     "is about the class's mean, not one session, and sessions that happen to agree closely "
     "make it narrower than their rounds vary: the next session's range is the prediction "
     "interval"),
    ("between-session SD τ (Paule–Mandel estimate)", "how much a headline's sessions on one "
     "machine class differ beyond what their own rounds explain: the SD of their log ratios "
     "(on the log scale τ = 0.1 is about ±10 % on the ratio), estimated by Paule and "
     "Mandel's method, which takes the τ at which the sessions scatter about their mean as "
     "much as their rounds' noise plus τ would by chance; 0 when their rounds explain it all"),
    ("empirical Bayes", "how a prediction interval's spread leans on other headlines: a "
     "headline's own sessions' SD is averaged with the typical SD of the other headlines of "
     "its kind (the same measure) on its machine class, counted as more sessions the more "
     "their SDs agree (Smyth's method, first made to compare many genes' measurements). "
     "Those other headlines are every comparison the stored sessions hold (each "
     "experiment's first target against each of its other targets), "
     "so there are more of them than the report's own headlines"),
    ("sitting", "one commit of the project measured on one machine (one boot of one host); "
     "a machine's first sitting is the first after it booted. Sessions of one machine share "
     "its state, so their checks are not independent"),
    ("USL (Universal Scalability Law)", "Gunther's model of throughput X against "
     "concurrency N: X(N) = λN / (1 + σ(N−1) + κN(N−1)), σ the share of work that waits its "
     "turn (contention), κ the cost of keeping requests in step (crosstalk); it peaks at "
     "N* = √((1−σ)/κ)"),
    ("two-step ids", "a new id made by reading a counter, then writing it back in a second "
     "request: two requests that read between each other's steps get the same id, and the "
     "later record overwrites the earlier one though both were confirmed"),
    ("sc, cc", "the article's two paths in notebook 03, each making two lookups per "
     "request: /sc/{id} one after the other (sequential), /cc/{id} in two goroutines at "
     "once (concurrent); 'sc/cc' is the first's rate over the second's"),
    ("fsync", "a call that makes the operating system write a file's data to the disk "
     "before it returns; a store that calls it on every write waits for the disk each time"),
    ("bbolt (Bolt)", "an embedded key-value store for Go, kept in one file inside the server's "
     "own process (no separate database server); it syncs each write to disk before it "
     "answers"),
    ("uvicorn, uvloop, httptools, h11, gunicorn", "how a Python server is run: uvicorn "
     "runs a FastAPI app on an event loop, either Python's own asyncio with the pure-Python "
     "HTTP parser h11, or uvloop (an event loop written in C) with httptools (a parser in C); "
     "gunicorn starts several worker processes of one app, each with its own loop"),
    ("Locust x1, x2", "how many Locust processes sent the load: x1 one, x2 two (Locust's "
     "--processes 2); HttpUser and FastHttpUser are Locust's two HTTP clients, the second "
     "faster"),
    ("wrk, bombardier, vegeta, ghz", "the other load tools: wrk and bombardier keep a fixed "
     "number of connections busy (a closed loop), vegeta sends at a rate it is given (an open "
     "loop), ghz loads a gRPC server"),
    ("GIL", "Python's global interpreter lock: one thread of a Python process runs Python "
     "code at a time, so one process uses one core however many requests it holds"),
    ("HDR histogram", "a histogram of latencies with a fixed relative precision at every "
     "size, from microseconds to minutes: what wrk and vegeta record percentiles in"),
    ("benchstat", "the Go team's tool that compares `go test -bench` runs with the same kind "
     "of statistics as this report; notebook 05 prints it beside our own"),
    ("ns/op", "nanoseconds per operation, what a Go benchmark (`go test -bench`) prints: a "
     "run's wall time ÷ the calls it made (lower is faster): notebook 05's times per call "
     "and the article's figures"),
    ("AOF (Redis)", "Redis's append-only file: every write is logged to disk, with "
     "`appendfsync` deciding how often the log is synced"),
    ("Toxiproxy", "a proxy that sits between a load tool and a server and adds a fixed "
     "delay to every response: notebook 07's link; the copying it does takes time even with "
     "no delay added"),
    ("M/M/1, M/D/1", "single-server queues: requests arrive at random (M), and each takes "
     "a random (M) or a fixed (D) time to serve; they predict how latency grows as the rate "
     "offered nears what the server can do"),
    ("Kingman's G/G/1 (ca²)", "a single-server queue with any arrival and service times "
     "(G): Kingman's approximation of its mean wait, ρ/(1 − ρ) × (ca² + cs²)/2 × the mean "
     "service time, ρ the share of time the server is busy, ca² and cs² the squared "
     "coefficients of variation (variance ÷ mean²) of the gaps between arrivals and of "
     "service times: ca² = 1 for random arrivals, near 0 for a tool sending at a fixed rate"),
    ("py-spy, pprof, perf", "the sampling profilers behind 'where the time goes': py-spy "
     "reads a Python server's stack from outside, pprof is Go's own, perf the kernel's (used "
     "for Rust); each records which functions were running, many times a second"),
    ("grpc.aio", "the asyncio flavour of Python's gRPC library: the Python gRPC server runs "
     "on an event loop, as FastAPI does"),
    ("Nagle's algorithm (TCP_NODELAY)", "TCP holds back a small packet until the previous "
     "one is acknowledged, to send fewer packets; against a peer that delays its "
     "acknowledgements a small request can wait tens of ms. TCP_NODELAY turns it off"),
)  # fmt: skip

# "at least" as the report's lower bound of a ratio (the "lower bound" term), in the words
# claims.bounds gives it: "at least 22× (the lowest of 5 sessions on this machine class)"
# or "(one session)" (words.bounds.figure), "reached at least 1.65× the requests per second …"
# (words.bounds.sentence), and the answers' note naming the notation, 'a lower bound ("at
# least")'; never "at least 1.74× the 1 ms it waits" or "lost at least 10,134" (records),
# which bound no ratio. Read in the rendered page's HTML (templates.glossary_links, where
# the sentence's bound is in <strong>) and in its text (render.audit).
LOWER_BOUND_USE = (
    r"at least(?= \d[\d.,]*× \((?:the lowest of \d+ sessions\b[^)]*|one session)\))"
    r"|(?:(?<=reached )|(?<=reached <strong>))at least(?= \d[\d.,]*× the )"
    r'|(?<=\(")at least(?="\))'
)

# Where the report's text uses a term (a pattern, case-sensitive), the glossary must
# explain it: tests/test_report_claims.py checks every pattern found in the rendered
# report against the glossary's terms.
TERMS_IN_USE = (
    (r"(?<![/\w])runs?\b(?!/)", "run"),
    (r"\b95 % CI\b", "interval (95 % CI)"),
    (r"prediction interval", "prediction interval"),
    (r"\bp = |\bp < ", "p-value"),
    (r"A/A control", "A/A control"),
    (LOWER_BOUND_USE, "lower bound"),
    (r"closed loop|open loop|closed-loop|open-loop", "closed and open loop"),
    (r"GOMAXPROCS", "GOMAXPROCS"),
    (r"\bp(50|90|99)\b", "percentiles (p50, p90, p99)"),
    (r"Little's law|Little’s law", "Little's law"),
    (r"set (both|the two|the) rates?\b|\bset by\b", "what set the rate"),
    (r"\bheadroom\b", "headroom"),
    (r"\bSLO\b", "SLO (service-level objective)"),
    (r"coordinated omission", "coordinated omission"),
    (r"Hodges-Lehmann|Hodges–Lehmann", "Hodges–Lehmann estimate"),
    (r"× lower\b", "N× lower"),
    (r"\bceiling\b", "ceiling"),
    (r"speed reference", "machine-speed reference"),
    (r"signed-rank|Mann-Whitney", "signed-rank and Mann-Whitney tests"),
    (r"\bpooled\b", "pooled estimate"),
    (r"Universal Scalability Law|\bUSL\b", "USL (Universal Scalability Law)"),
    (r"two-step", "two-step ids"),
    (r"\((?:sc|cc)\)|\bsc/cc\b", "sc, cc"),
    (r"fsync", "fsync"),
    (r"\bb?[Bb]olt\b", "bbolt (Bolt)"),
    (r"py-spy|\bpprof\b|\bperf\b", "py-spy, pprof, perf"),
    (r"grpc\.aio", "grpc.aio"),
    (r"Nagle|TCP_NODELAY", "Nagle's algorithm (TCP_NODELAY)"),
    (r"uvloop|httptools|\bh11\b|gunicorn", "uvicorn, uvloop, httptools, h11, gunicorn"),
    (r"\bx[12]\b", "Locust x1, x2"),
    (r"Toxiproxy", "Toxiproxy"),
    (r"M/[MD]/1", "M/M/1, M/D/1"),
    (r"\bbombardier\b|\bvegeta\b|\bghz\b", "wrk, bombardier, vegeta, ghz"),
    (r"\bGIL\b", "GIL"),
    (r"\bHDR\b", "HDR histogram"),
    (r"\bbenchstat\b", "benchstat"),
    (r"\bAOF\b", "AOF (Redis)"),
    (r"Tukey['’]s method|Moses['’] method", "Tukey's and Moses' methods"),
    (r"Paule[–-]Mandel|\bτ\s=\s\d|SD τ\b", "between-session SD τ (Paule–Mandel estimate)"),
    (r"empirical Bayes", "empirical Bayes"),
    (r"\bsitting\b", "sitting"),
    (r"another machine of (?:this|its) class", "machine"),
    (r"\bns/op\b", "ns/op"),
    (r"Kingman|\bca²", "Kingman's G/G/1 (ca²)"),
)


def p_value_text() -> str:
    """The p-value in words, with the smallest p the report's designs can reach."""
    n, pairs = min_detectable_n(), min_detectable_pairs()
    return (
        f"how often chance alone, were there no difference, would give one at least as large "
        f"as the one measured; "
        f"below {ALPHA} we call it significant. Few runs cannot reach a small p at all: "
        f"{n}+{n} runs give at best p = {smallest_p_two_samples(n, n):.3f}, {pairs} paired "
        f"rounds p = {smallest_p_paired(pairs):.3f}, and {n - 1}+{n - 1} runs "
        f"p = {smallest_p_two_samples(n - 1, n - 1):.2f}, never significant: then the report "
        "says 'too few runs to tell'"
    )


def terms() -> list[tuple[str, str]]:
    """(term, its explanation), in the order a reader meets them."""
    predicted = (
        "where the next session's estimate on this machine class should land: a range made "
        "by a procedure that, repeated, holds the next session's estimate 95 times in 100; "
        "its width comes from the spread of its own sessions, moderated by how far sessions "
        "of the other headlines of its kind move on the class (they weigh the more, the more "
        "their spreads agree; its own sessions count one each), so even one session has one; "
        f"without such others, a headline has one from {MIN_SESSIONS} sessions on; the report "
        "checks it by leaving out each stored session in turn and predicting it from the "
        "rest of its machine class (Appendix C). It is the interval a "
        "verdict against an article is judged on: "
        "'reproduced' when the article's figure lies inside it"
    )
    computed = [("prediction interval", predicted), ("p-value", p_value_text())]
    return [*PLAIN_TERMS[:5], *computed, *PLAIN_TERMS[5:]]


def flags() -> list[tuple[str, str]]:
    """(flag, its meaning) for every validity flag, with the thresholds in force."""
    details = {
        "client_bound": f" (at {CLIENT_BOUND_SHARE * 100:.0f} % of its cores or more)",
    }
    return [(flag, meaning + details.get(flag, "")) for flag, meaning in FLAG_MEANINGS.items()]
