"""Where the time goes: a profiled phase's folded stacks (benchbook.measure.profiling)
sorted into categories a student recognises, a table per comparison, a sentence that
says why, and a row per article claim about a cause saying whether the profile
supports it.

How a stack gets its category — ONE table, RULES, read in two passes:

1. rules marked ``anywhere`` (start-up, disk sync, storage client, logging, encoding:
   *on whose behalf* the CPU worked), in table order: the first whose pattern matches
   any frame of the stack decides (a write syscall made by the Redis client is
   "storage client", not "network syscalls");
2. otherwise the frames are read from the leaf upward, and the first frame matching a
   ``leaf-up`` rule (table order within a frame) decides: *what* the CPU was doing.
3. No match: "other".

A frame is ``function (file)`` in both languages (py-spy's and ``go tool pprof``'s
names). Python stacks show Python frames only: time in C code (uvloop, httptools, a
socket's send) is charged to the Python function that called it, which the rules
name accordingly (``Runner.run`` with nothing above it is uvloop's C loop). Start-up
stacks (imports, py-spy samples the server's whole life) are counted but left out of
the shares, which are of the samples taken under load.
"""

import gzip
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from benchbook.analyse.display import flame_graph
from benchbook.analyse.numbers import formatting as fmt
from benchbook.analyse.rows.names import reader_name, titled
from benchbook.analyse.words.time_spent import OTHER, claim_rows, slowed, why
from benchbook.runs import outputs
from benchbook.runs.layout import REPO_ROOT
from benchbook.runs.sampling import RATE_HZ

STARTUP = "start-up (imports)"
# What each category means, in the order tables list them.
CATEGORIES = {
    "HTTP parsing": "reading requests and writing responses: the HTTP protocol itself",
    "web framework": "routing, middleware, validation, the RPC runtime (FastAPI, gRPC, mux)",
    "application handler": "the server's own code for the request",
    "JSON/protobuf encoding": "turning values into JSON or protobuf and back",
    "event loop/scheduler": "asyncio/uvloop's loop (with the C callbacks it runs, which py-spy "
    "cannot see into: grpc's), Go's goroutine scheduler and channels",
    "network syscalls": "send/recv/epoll: the kernel's side of the sockets",
    "waiting (sleep/timers)": "sleep calls and the timers behind them",
    "GC and allocation": "the garbage collector and memory allocation",
    "logging": "formatting and writing log lines (an access log)",
    "disk sync (fsync)": "forcing writes to the disk",
    "storage client": "talking to the store: Redis client, bbolt",
    OTHER: "everything no rule names",
}


@dataclass(frozen=True)
class Rule:
    category: str
    where: str  # "anywhere" in the stack, or "leaf-up" (see the module's docstring)
    pattern: str  # a regular expression searched in "function (file)"


RULES: tuple[Rule, ...] = (
    # anywhere: on whose behalf
    Rule(STARTUP, "anywhere", r"\(<frozen importlib\._bootstrap"),
    Rule("disk sync (fsync)", "anywhere", r"\b(fdatasync|[Ff]sync|Fdatasync)\b"),
    Rule("storage client", "anywhere", r"\((redis|go\.etcd\.io/bbolt|github\.com/redis)/"),
    Rule("logging", "anywhere", r"\((logging|uvicorn/logging\.py|log/log\.go|gunicorn/glogging)"),
    Rule("logging", "anywhere", r"\(aiohttp/web_log\.py"),
    Rule("JSON/protobuf encoding", "anywhere",
         r"\((json/|encoding/json/|google\.golang\.org/protobuf/|google/protobuf/)"
         r"|_pb2\.py\)|jsonable_encoder|serialize_response|JSONResponse\.render"),
    # leaf-up: what the CPU was doing
    Rule("waiting (sleep/timers)", "leaf-up",
         r"^(time\.Sleep|runtime\.(timeSleep|resetForSleep)|runtime\.\(\*timers?\)"
         r"|sleep \(asyncio|<?tokio::(time|runtime::time)::)"),
    Rule("network syscalls", "leaf-up",
         r"^(syscall\.|internal/runtime/syscall|internal/poll\.|net\.\(\*netFD\)|runtime\.netpoll"
         r"|net\.\(\*conn\)\.(Read|Write)|__GI___writev|__libc_(recv|send)|epoll_wait)"
         r"|\(\[kernel\.kallsyms\]\)"),  # perf: the kernel's frames, on a server's behalf
    Rule("network syscalls", "leaf-up",
         r"^(socket\.|_SelectorSocketTransport\.(write|_read_ready)|\w+\.(send|sendall|recv)"
         r" \(socket\.py)|\(socket\.py\)"),
    Rule("GC and allocation", "leaf-up",
         r"^runtime\.(gc|mallocgc|malloc|mark|scan|sweep|greyobject|findObject|heapBits|memclr"
         r"|newobject|makeslice|growslice|nextFree|\(\*mheap\)|\(\*mcache\)|\(\*mspan\)|\(\*gcWork\)"
         r"|typePointers|bgsweep|bgscavenge|wbBuf|\(\*mcentral\)|arenaIndex|spanOf)"
         r"|^(__libc_malloc|_int_malloc|_int_free|malloc|cfree|free|realloc)\b"),
    Rule("HTTP parsing", "leaf-up",
         r"\((h11/|httptools|uvicorn/protocols/http/|aiohttp/(http_parser|http_writer|_http)"
         r"|gunicorn/http/|http/server\.py|email/)"),
    Rule("HTTP parsing", "leaf-up",
         r"^(net/http\.(readRequest|\(\*conn\)\.readRequest|\(\*response\)|\(\*chunkWriter\)"
         r"|Header|\(\*connReader\)|hasToken|checkConnErrorWriter|\(\*conn\)\.(serve|finalFlush))"
         r"|net/textproto\.|bufio\.|golang\.org/x/net/http2|google\.golang\.org/grpc/internal/transport"
         r"|<?hyper::proto::|<?httparse::)"),
    Rule("application handler", "leaf-up",
         r"^main\.|^benchbook/servers/|\(((hello|iodelay|shortener)\.py|governance/)"
         r"|^(iodelay::reply|hello::main::\{\{closure|benchbook_servers::text)"),
    Rule("web framework", "leaf-up",
         r"\((fastapi|starlette|pydantic|anyio|aiohttp/web|grpc/|uvicorn/middleware)"
         r"|^(github\.com/gorilla/mux|google\.golang\.org/grpc|net/http\.\(\*ServeMux\)"
         r"|net/http\.\(\*routingNode\)|net/http\.HandlerFunc|net/http\.serverHandler)"),
    Rule("event loop/scheduler", "leaf-up",
         r"\((asyncio/|uvloop|selectors\.py|concurrent/futures|threading\.py|contextvars)"
         r"|^(Runner\.run|runtime\.(schedule|findRunnable|park|gopark|goready|ready|newproc"
         r"|chan|selectgo|mcall|gosched|wakep|futex|notesleep|notewakeup|stopm|startm|usleep"
         r"|runqget|runqput|globrunq|execute|gogo|goexit|casgstatus|lock|unlock|procyield"
         r"|acquireSudog|releaseSudog|send|recv|closechan|netpollblock|resetspinning|handoffp"
         r"|checkTimers|stealWork|runqsteal|mPark|systemstack|sysmon)|sync\.|internal/sync\."
         r"|<?&?(tokio::runtime::|mio::))"),
)  # fmt: skip
_COMPILED = [(rule, re.compile(rule.pattern)) for rule in RULES]


def categorise(stack: Sequence[str]) -> str:
    """The category of one stack (root first), by RULES (see the module's docstring)."""
    for rule, pattern in _COMPILED:
        if rule.where == "anywhere" and any(pattern.search(frame) for frame in stack):
            return rule.category
    for frame in reversed(stack):
        for rule, pattern in _COMPILED:
            if rule.where == "leaf-up" and pattern.search(frame):
                return rule.category
    return OTHER


def read_folded(path: Path) -> list[tuple[list[str], int]]:
    """Folded stacks ('root;…;leaf count' lines, gzipped or not; loose or packed) as
    (frames, count)."""
    data = outputs.read_bytes(path)
    text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode(errors="replace")
    lines = [line.rstrip("\n") for line in text.splitlines() if line.strip()]
    stacks = []
    for line in lines:
        stack, _, count = line.rpartition(" ")
        stacks.append((stack.split(";"), int(count)))
    return stacks


def category_samples(stacks: Iterable[tuple[list[str], int]]) -> Counter[str]:
    """Samples per category, start-up included."""
    counts: Counter[str] = Counter()
    for frames, count in stacks:
        counts[categorise(frames)] += count
    return counts


def shares(stacks: Iterable[tuple[list[str], int]]) -> pd.Series:
    """Each category's share of the samples taken under load (start-up left out), in
    CATEGORIES' order; empty when there were none."""
    counts = category_samples(stacks)
    counts.pop(STARTUP, None)
    total = sum(counts.values())
    if not total:
        return pd.Series(dtype=float)
    return pd.Series({c: counts.get(c, 0) / total for c in CATEGORIES}, name="share")


def profiled_rows(runs: object) -> pd.DataFrame:
    """The profiled phase of one run or several (their ``profiled.csv``), one row per
    profiled target; empty when none was recorded."""
    paths = [Path(getattr(r, "path", r)) for r in (runs if isinstance(runs, list) else [runs])]
    frames = []
    for path in paths:
        if (path / "profiled.csv").exists():
            rows = pd.read_csv(path / "profiled.csv", dtype={"svg": str, "folded": str})
            rows = rows.fillna({"svg": "", "folded": ""})
            # The files where the run is now (it may have been copied since it was measured).
            for column in ("folded", "svg"):
                rows[column] = [_here(path, stored) for stored in rows[column]]
            frames.append(rows)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def with_profiles(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of targets that were profiled (a language may declare no profiler)."""
    if "unprofiled_because" not in rows:
        return rows
    return rows[rows["unprofiled_because"].fillna("") == ""]


def not_profiled(rows: pd.DataFrame) -> str:
    """'Rust hyper (tokio, 1 thread) was not profiled: <why>.' for each target whose
    language declares no profiler, as its language says why ('' when none)."""
    if "unprofiled_because" not in rows:
        return ""
    missing = rows[rows["unprofiled_because"].fillna("") != ""]
    return " ".join(
        f"{titled(row.target, row.server)} was not profiled: {row.unprofiled_because}."
        for row in missing.itertuples()
    )


def _here(run_dir: Path, stored: str) -> str:
    return str(run_dir / "profiles" / Path(stored).name) if stored else ""


def _path(stored: str) -> Path:
    path = Path(stored)
    return path if path.is_absolute() else REPO_ROOT / path


def under_load(stacks: Iterable[tuple[list[str], int]]) -> int:
    """The samples the shares are of: every sample but start-up's."""
    counts = category_samples(stacks)
    return sum(counts.values()) - counts.get(STARTUP, 0)


def share_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Categories as rows, profiled targets as columns: each target's share (0–1) of
    its samples under load; a last row gives the samples counted."""
    columns = {}
    counted = {}
    for row in rows.itertuples():
        stacks = read_folded(_path(row.folded))
        columns[row.target] = shares(stacks)
        counted[row.target] = under_load(stacks)
    table = pd.DataFrame(columns).reindex(list(CATEGORIES)).fillna(0.0)
    table.index.name = "category"
    return table.loc[table.max(axis=1) > 0].T.assign(samples=pd.Series(counted)).T


def overhead_table(rows: pd.DataFrame, measured: pd.DataFrame) -> pd.DataFrame:
    """Each profiled target's req/s while profiled beside the median of the measured
    rounds under the same load tool (the profiler's overhead, and a shorter window, in one
    ratio), and the samples under load that its shares are of (start-up left out, as in
    share_table)."""
    table = []
    for row in rows.itertuples():
        same = measured["target"] == row.target
        if "tool" in measured and isinstance(getattr(row, "tool", None), str):
            same &= measured["tool"] == row.tool
        rounds = measured.loc[same, "rps"]
        median = float(rounds.median()) if len(rounds) else float("nan")
        table.append({
            "target": row.target, "profiler": row.profiler,
            "req/s measured (median)": median,
            "req/s while profiled": float(row.rps_while_profiled),
            "profiled / measured": float(row.rps_while_profiled) / median if median else None,
            "window s": row.window_s,
            "samples under load": under_load(read_folded(_path(row.folded))),
            "unreadable stacks": getattr(row, "profiler_errors", None),
        })  # fmt: skip
    return pd.DataFrame(table).set_index("target") if table else pd.DataFrame()


def flame_graphs(rows: pd.DataFrame) -> list[tuple[str, Path]]:
    """(target, SVG path) of each profiled target that has a flame graph."""
    found = []
    for row in rows.itertuples():
        if isinstance(row.svg, str) and row.svg and outputs.exists(_path(row.svg)):
            found.append((row.target, _path(row.svg)))
    return found


def method_note() -> str:
    """How a notebook's profiled phase is taken and read, once for every notebook."""
    return (
        "After the measured rounds, and apart from them, each headline server is started "
        f"afresh under a profiler — py-spy (`record --subprocesses --nonblocking`, {RATE_HZ} "
        "Hz) as the parent of a Python server, the Go runtime's own CPU profiler (`-pprof` on "
        "a loopback side port) for a Go server, perf (`record --call-graph dwarf`, the kernel's "
        "frames included) as the parent of a native one, such as Rust's — verified, and "
        "given the same load as its measured runs for a few seconds. Its rows go to the "
        "run's `profiled.csv`, never into the results above. Every sampled stack is put in "
        "one category by one table of rules (`benchbook.analyse.display.profiles.RULES`: who asked "
        "— storage client, logging, encoding — anywhere in the stack first, then what the "
        "CPU was doing, from the leaf up). "
        "Start-up samples are left out. A CPU profile shows where the CPU went, not time "
        "spent waiting."
    )


def section(runs: object, experiment: str) -> list[object]:
    """What a notebook's "Where the time goes" section displays, in order: the share
    table, the sentence, the article's claimed causes against them, and which targets
    were not profiled, and why."""
    from IPython.display import Markdown

    recorded = profiled_rows(runs)
    if recorded.empty:
        return [Markdown("No profiled phase was recorded with this run.")]
    unprofiled = [Markdown(note)] if (note := not_profiled(recorded)) else []
    rows = with_profiles(recorded)
    if rows.empty:
        return unprofiled
    table, names = share_table(rows), reader_names(rows)  # shown by reader names; kept by id
    shares_index = [c for c in table.index if c != "samples"]
    shown: list[object] = [
        Markdown("Share of each server's CPU samples under load, by category:"),
        table.rename(columns=names)
        .style.format(fmt.percent, subset=pd.IndexSlice[shares_index, :])
        .format("{:,.0f}", subset=pd.IndexSlice[["samples"], :]),
        Markdown(
            (why(table, names) + slowed(_slowdown(rows, runs), names))
            or "The profiles hold no samples taken under load."
        ),
    ]
    claims = claim_rows(experiment, table, names)
    if not claims.empty:
        # A Styler without its index: a row label "0" means nothing to a reader, and a
        # Styler prints every cell whole where a DataFrame's repr cuts long text.
        shown += [
            Markdown("The article's causes, against the profiles:"),
            claims.style.hide(axis="index"),
        ]
    return shown + unprofiled


def _slowdown(rows: pd.DataFrame, runs: object) -> dict[str, float]:
    """Each profiled target's req/s while profiled ÷ its measured median (overhead_table)."""
    found = [
        r.results() for r in (runs if isinstance(runs, list) else [runs]) if hasattr(r, "results")
    ]
    table = overhead_table(rows, pd.concat(found, ignore_index=True)) if found else pd.DataFrame()
    return table["profiled / measured"].dropna().to_dict() if not table.empty else {}


def details(runs: object, measured: pd.DataFrame) -> list[object]:
    """The profiled phase's details, for the report's appendix: the profiler's cost, then
    each flame graph with a caption."""
    from IPython.display import SVG, Markdown

    rows = with_profiles(profiled_rows(runs))
    if rows.empty:
        return []
    names = reader_names(rows)
    shown: list[object] = [
        Markdown(
            "Profiler overhead: req/s in the profiled window beside the median of the "
            "measured rounds under the same load tool. One short window: a ratio below 1× "
            "is the profiler's cost plus noise (the rounds' own spread, in the results "
            "above, says how much noise)."
        ),
        overhead_table(rows, measured).rename(index=names).style.format(
            {"req/s measured (median)": "{:,.0f}", "req/s while profiled": "{:,.0f}",
             "profiled / measured": "{:.2f}×", "window s": "{:g}", "samples under load": "{:,.0f}",
             "unreadable stacks": "{:,.0f}"},
            na_rep="–",
        ),
    ]  # fmt: skip
    graphs = flame_graphs(rows)
    for target, svg in graphs:
        shown += [
            SVG(data=flame_graph.static(outputs.read_bytes(svg), names[target])),
            Markdown(flame_graph.CAPTION.format(name=names[target])),
        ]
    if not graphs:
        shown.append(
            Markdown(
                "No flame graphs: inferno-flamegraph was not built "
                "(`make flamegraph`, which `make report` runs)."
            )
        )
    return shown


def answer_sentence(runs: object) -> str:
    """The sentence a notebook appends to its findings' answer ('' without profiles)."""
    rows = with_profiles(profiled_rows(runs))
    return why(share_table(rows), reader_names(rows)) if not rows.empty else ""


def reader_names(rows: pd.DataFrame) -> dict[str, str]:
    """Each profiled target → the name a reader knows ('FastAPI (asyncio + h11)')."""
    return {target: reader_name(rows, target) for target in rows["target"]}


def shares_of(paths: Mapping[str, Path]) -> pd.DataFrame:
    """A share table straight from folded files (label → path): for tests and samples."""
    rows = pd.DataFrame([{"target": k, "folded": str(v)} for k, v in paths.items()])
    return share_table(rows)
