"""The profiled phase (benchbook.measure.profiling) and where-the-time-goes analysis
(benchbook.analyse.display.profiles).

The category rules are checked on real profiles of this repository's servers
(tests/samples/profiles/, re-captured with capture.py there); a real short profiled
phase runs one Python server (py-spy) and one Go server (runtime/pprof); and a
profiled phase interrupted with Ctrl-C must leave no profiler and no server running.
Run as a script (``python test_profiles.py runner OUT``), this file is that last
test's child: a profiled phase meant to last a minute.
"""

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from benchbook.measure.profiling import FLAMEGRAPH

SAMPLES = Path(__file__).parent / "samples" / "profiles"


def sample_table():
    from benchbook.analyse.display import profiles

    return profiles.shares_of({p.name.split(".")[0]: p for p in sorted(SAMPLES.glob("*.gz"))})


def test_every_captured_profile_is_mostly_named() -> None:
    table = sample_table()
    assert len(table.columns) >= 8
    for target in table.columns:
        assert table.loc["samples", target] > 10, target
        assert table.loc["other", target] <= 0.05, (target, table[target].to_dict())


@pytest.mark.parametrize(
    ("target", "largest"),
    [
        ("go-hello", "network syscalls"),  # the handler writes 9 bytes: the rest is I/O
        ("go-shortener-bolt-create", "disk sync (fsync)"),  # bbolt fsyncs every write
        ("python-shortener-redis-create", "storage client"),  # redis.asyncio, three commands
    ],
)
def test_the_largest_category_of_real_profiles(target: str, largest: str) -> None:
    column = sample_table()[target].drop(["samples"])
    assert column.idxmax() == largest, column.to_dict()


def test_what_the_articles_blame_shows_in_real_profiles() -> None:
    table = sample_table()
    # FastAPI's access log (seed 002), on by default in python-hello only.
    assert table.loc["logging", "python-hello"] >= 0.10
    assert table.loc["logging", "python-governance-http-HealthCheck"] == 0
    # Goroutines started per request (seed 003) show as scheduler time.
    assert (
        table.loc["event loop/scheduler", "go-fanout-cc-9"]
        > table.loc["event loop/scheduler", "go-fanout-sc-9"]
    )
    # FastAPI under uvicorn: the framework and the HTTP protocol lead.
    assert set(table["python-hello"].drop("samples").nlargest(2).index) == {
        "web framework",
        "HTTP parsing",
    }


def test_start_up_is_counted_apart_from_the_load() -> None:
    from benchbook.analyse.display import profiles

    stacks = profiles.read_folded(SAMPLES / "python-hello.folded.gz")
    counts = profiles.category_samples(stacks)
    assert counts[profiles.STARTUP] > 0  # py-spy samples the server from its start
    assert abs(profiles.shares(stacks).sum() - 1) < 1e-9  # shares leave start-up out


# Stacks root first, frames joined by ";" as in a folded file.
REDIS_WRITE = (
    "main.handler (cmd/shortener/handlers.go);"
    "github.com/redis/go-redis/v9.(*baseClient).process (github.com/redis/go-redis/v9/redis.go);"
    "syscall.Write (syscall/syscall_unix.go)"
)
HTTP_WRITE = (
    "net/http.(*conn).serve (net/http/server.go);net.(*conn).Write (net/net.go);"
    "syscall.Write (syscall/syscall_unix.go)"
)
BOLT_SYNC = (
    "go.etcd.io/bbolt.(*Tx).Commit (go.etcd.io/bbolt/tx.go);"
    "go.etcd.io/bbolt.fdatasync (go.etcd.io/bbolt/bolt_linux.go);"
    "syscall.Syscall (syscall/syscall_linux.go)"
)
GOROUTINE = (
    "runtime.goexit (runtime/asm_amd64.s);main.fetch.func1.1 (cmd/fanout/main.go);"
    "runtime.newproc (runtime/proc.go)"
)
UVICORN = "process 7 (python -m uvicorn);Runner.run (asyncio/runners.py)"


@pytest.mark.parametrize(
    ("stack", "category"),
    [
        (REDIS_WRITE, "storage client"),  # who asked beats what the CPU did
        (HTTP_WRITE, "network syscalls"),
        (BOLT_SYNC, "disk sync (fsync)"),
        ("runtime.gcBgMarkWorker (runtime/mgc.go);runtime.gcDrain (runtime/mgcmark.go)",
         "GC and allocation"),
        (GOROUTINE, "event loop/scheduler"),
        ("<module> (uvicorn/__main__.py);_find_and_load (<frozen importlib._bootstrap>)",
         "start-up (imports)"),
        (UVICORN + ";handle_events (h11/_connection.py)", "HTTP parsing"),
        (UVICORN + ";Logger.info (logging/__init__.py);LogRecord.__init__ (logging/__init__.py)",
         "logging"),
        (UVICORN, "event loop/scheduler"),  # uvloop's C loop: nothing above Runner.run
        ("process 7 (python -m uvicorn);mystery (somewhere.py)", "other"),
    ],
)  # fmt: skip
def test_a_stack_gets_the_first_matching_rule(stack: str, category: str) -> None:
    from benchbook.analyse.display import profiles

    assert profiles.categorise(stack.split(";")) == category


def test_the_sentence_and_the_claims_come_from_the_shares() -> None:
    from benchbook.analyse.claims import profile_claims
    from benchbook.analyse.words import time_spent

    table = sample_table()[["python-hello", "go-hello"]]
    sentence = time_spent.why(table)
    share = table.loc["logging", "python-hello"]
    assert sentence.startswith("Under load (profiled phase), python-hello spent ")
    go_samples = int(table.loc["samples", "go-hello"])
    assert go_samples < time_spent.FEW_SAMPLES  # the captured Go profile: its count is said
    assert f"go-hello (only {go_samples} samples: each share ±" in sentence and " %" in sentence
    assert "python-hello (only" not in sentence
    (claim,) = time_spent.claim_rows("02_hello_world_locust", table).to_dict("records")
    expected = "supports it" if share >= profile_claims.SUPPORT_SHARE else "partly supports it"
    assert claim["the profile"] == expected
    fsync = time_spent.claim_rows("04_url_shortener", sample_table()[["go-shortener-bolt-create"]])
    assert fsync["the profile"].item() == "supports it"


def test_a_loop_that_took_nearly_every_sample_says_what_it_hides() -> None:
    """A grpc.aio server's profile: py-spy charges grpc's C core to the loop that runs it."""
    from benchbook.analyse.words import time_spent

    table = pd.DataFrame(
        {"python-governance-grpc": [1.0, 275.0]}, index=[time_spent.LOOP, "samples"]
    )
    assert time_spent.why(table) == (
        "Under load (profiled phase), python-governance-grpc spent 100 % in event loop/"
        "scheduler (with the C code the loop runs, which the profiler cannot see into)."
    )


def test_a_server_the_profiler_slowed_says_so_beside_its_shares() -> None:
    """Notebook 04's Python shortener ran at 0.57× its measured rate while profiled."""
    from benchbook.analyse.words import time_spent

    ratios = {"python-shortener": 0.57, "go-shortener": 0.95, "unmeasured": float("nan")}
    assert time_spent.slowed(ratios, {"python-shortener": "aiohttp + Redis"}) == (
        " Profiling slowed aiohttp + Redis to 0.57× its measured rate: those shares are of a "
        "slower server, one where the profiler's own cost weighs more."
    )
    assert time_spent.slowed({"go-shortener": 0.95}, {}) == ""


def test_a_cause_the_profiler_cannot_see_is_neither_refuted_nor_confirmed() -> None:
    """Notebook 01: 7 % in the loop for FastAPI (uvloop) and for Go; py-spy cannot see into
    uvloop's C code, so the profile cannot tell, where a supporting share still supports."""
    from benchbook.analyse.claims.profile_claims import CLAIMS
    from benchbook.analyse.words.time_spent import verdict

    loop = next(c for c in CLAIMS if c.experiment == "01_io_concurrency")
    assert verdict(loop, 0.07, 0.07) == (
        "cannot tell: 7 % of the samples against the reference's 7 %, but py-spy sees no frame "
        "inside uvloop's or httptools' C code, so the Python share is not comparable with Go's"
    )
    assert verdict(loop, 0.35, 0.07) == "supports it"


def test_a_share_above_its_reference_by_less_than_sampling_gives_supports_nothing() -> None:
    """Notebook 03: 10 % against 6 % of about 300 samples each is 1.8 standard errors
    apart, within what sampling alone gives; with ten times the samples it is not."""
    from benchbook.analyse.claims.profile_claims import CLAIMS
    from benchbook.analyse.words.time_spent import verdict

    fan_out = next(c for c in CLAIMS if c.experiment == "03_goroutine_fanout")
    assert verdict(fan_out, 0.10, 0.06, (305, 305)) == (
        "cannot tell: 10 % of the samples against the reference's 6 %, a gap within what "
        "sampling alone gives (95 %)"
    )
    assert verdict(fan_out, 0.10, 0.06, (3050, 3050)) == "partly supports it"


def test_go_pprof_raw_output_becomes_folded_stacks() -> None:
    from benchbook.measure.profilers.go import pprof_raw_to_folded

    raw = """PeriodType: cpu nanoseconds
Samples:
samples/count cpu/nanoseconds
          1   10000000: 1 2
         39  390000000: 3 2
Locations
     1: 0x4cee87 M=1 syscall.Write /usr/local/go/src/syscall/syscall_unix.go:211:0 s=201
             internal/poll.(*FD).Write /usr/local/go/src/internal/poll/fd_unix.go:374:0 s=360
     2: 0x544f64 M=1 net/http.(*conn).serve /usr/local/go/src/net/http/server.go:2100:0 s=1990
     3: 0x4a0000 M=1 main.hello /work/main/servers/go/cmd/hello/main.go:25:0 s=24
Mappings
1: 0x400000/0x600000/0x0 /build/bin/hello  [FN]
"""
    folded = pprof_raw_to_folded(raw, ["/usr/local/go/src/", "/work/main/servers/go/"])
    assert folded.splitlines() == [
        "net/http.(*conn).serve (net/http/server.go);internal/poll.(*FD).Write "
        "(internal/poll/fd_unix.go);syscall.Write (syscall/syscall_unix.go) 1",
        "net/http.(*conn).serve (net/http/server.go);main.hello (cmd/hello/main.go) 39",
    ]


def test_perf_script_output_becomes_folded_stacks() -> None:
    import gzip

    from benchbook.analyse.display import profiles
    from benchbook.measure.profilers.perf import perf_script_to_folded

    # twelve samples perf took of the Rust hello server under wrk (`perf script --no-inline`)
    sample = SAMPLES.parent / "perf" / "rust-hello.script.gz"
    script = gzip.decompress(sample.read_bytes()).decode()
    folded = perf_script_to_folded(script)
    stacks = [(line.rpartition(" ")[0].split(";"), int(line.rpartition(" ")[2]))
              for line in folded.splitlines()]  # fmt: skip
    assert sum(count for _, count in stacks) == script.count(" cpu-clock")
    for frames, _ in stacks:
        # root first: the program's main, then the serving loop it calls
        assert frames.index("hello::main (hello)") < frames.index(
            "benchbook_servers::serve (hello)"
        )
        assert not any("+0x" in frame for frame in frames)  # functions, not addresses
        assert "[unknown]" not in ";".join(frames)
    # the kernel's frames on the server's behalf are its socket work
    shares = profiles.shares(stacks)
    assert shares.idxmax() == "network syscalls"


def test_where_perf_cannot_run_the_reason_is_what_the_row_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from benchbook.measure.profilers import perf

    monkeypatch.setenv("PATH", str(tmp_path))  # no perf on it
    perf.cannot_record.cache_clear()  # tried once per process: try again without it
    try:
        assert perf.PerfRecord().unavailable() == (
            "perf is not installed (Debian: apt-get install linux-perf)"
        )
    finally:
        perf.cannot_record.cache_clear()


def stored_profile(run_dir: Path, target: str, svg: Path | None) -> None:
    """A run folder's profiled phase as profiling.profile stores it, for one target."""
    from benchbook.measure import profiling

    profiling.write_rows(run_dir / profiling.PROFILED_CSV, [{
        "target": target, "profiler": "py-spy", "rps_while_profiled": 900.0, "window_s": 1.0,
        "samples": 100, "profiler_errors": 0, "folded": f"profiles/{target}.folded",
        "svg": f"profiles/{svg.name}" if svg else "",
    }])  # fmt: skip


def folded_sample(run_dir: Path, target: str) -> Path:
    """A real profile's folded stacks (tests/samples/profiles/), where a run keeps them."""
    import gzip

    folded = run_dir / "profiles" / f"{target}.folded"
    folded.parent.mkdir(parents=True)
    folded.write_bytes(gzip.decompress((SAMPLES / f"{target}.folded.gz").read_bytes()))
    return folded


def test_without_the_renderer_a_profile_has_no_flame_graph_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    from benchbook.analyse.display import profiles
    from benchbook.measure import profiling

    monkeypatch.setattr(profiling, "FLAMEGRAPH", tmp_path / "no-inferno-flamegraph")
    folded = folded_sample(tmp_path, "python-hello")
    assert profiling.flame_graph(folded, "python-hello under load", "python") is None
    assert profiling.renderer_version().startswith("none (inferno-flamegraph not built")
    stored_profile(tmp_path, "python-hello", None)
    measured = pd.DataFrame({"target": ["python-hello"], "rps": [1000.0]})
    shown = profiles.details(tmp_path, measured)
    assert [type(item).__name__ for item in shown].count("SVG") == 0
    assert "No flame graphs: inferno-flamegraph was not built" in shown[-1].data


def test_a_target_whose_language_declares_no_profiler_is_named_with_why(tmp_path: Path) -> None:
    import pandas as pd

    from benchbook.analyse.display import profiles
    from benchbook.measure import profiling

    folded_sample(tmp_path, "python-hello")
    why = "no profiler reads its stacks here"
    profiling.write_rows(tmp_path / profiling.PROFILED_CSV, [
        {"target": "python-hello", "server": "python-hello", "profiler": "py-spy",
         "rps_while_profiled": 900.0, "window_s": 1.0, "samples": 100, "profiler_errors": 0,
         "folded": "profiles/python-hello.folded", "svg": ""},
        # as profiling.profile_one stores a target whose language declares none
        {"target": "zig-hello", "server": "zig-hello", "profiler": "", "unprofiled_because": why,
         "window_s": 1.0, "samples": 0, "folded": "", "svg": ""},
    ])  # fmt: skip
    shown = profiles.section(tmp_path, "02_hello_world_locust")
    assert [type(item).__name__ for item in shown][:2] == ["Markdown", "Styler"]
    # its shares only, under the name a reader knows (share_table itself keeps the target)
    assert shown[1].data.columns.tolist() == ["FastAPI (uvicorn's defaults)"]
    assert shown[-1].data == f"zig-hello was not profiled: {why}."
    measured = pd.DataFrame({"target": ["python-hello", "zig-hello"], "rps": [1000.0, 2000.0]})
    overhead = profiles.details(tmp_path, measured)[1].data
    assert overhead.index.tolist() == ["FastAPI (uvicorn's defaults)"]  # by its name
    assert profiles.answer_sentence(tmp_path).startswith("Under load (profiled phase), FastAPI")


@pytest.mark.skipif(
    not FLAMEGRAPH.exists(),
    reason="inferno-flamegraph is not built here: `make flamegraph` builds it (`make report` "
    "runs it; `make test` does not, it takes minutes)",
)
def test_a_flame_graph_is_drawn_from_real_stacks(tmp_path: Path) -> None:
    import pandas as pd

    from benchbook.analyse.display import profiles
    from benchbook.measure import profiling

    folded = folded_sample(tmp_path, "python-hello")
    svg = profiling.flame_graph(folded, "python-hello under load (py-spy)", "python")
    assert svg == folded.with_suffix(".svg")
    drawn = svg.read_text()
    assert drawn.lstrip().startswith("<?xml") and "<svg" in drawn
    assert "python-hello under load (py-spy)" in drawn
    # The load's frames are drawn; start-up (imports) is left out, as in the shares.
    assert "uvicorn" in drawn and "frozen importlib._bootstrap" not in drawn
    assert profiling.STARTUP_FRAME in folded.read_text()
    stored_profile(tmp_path, "python-hello", svg)
    measured = pd.DataFrame({"target": ["python-hello"], "rps": [1000.0]})
    shown = profiles.details(tmp_path, measured)
    assert [type(item).__name__ for item in shown][-2:] == ["SVG", "Markdown"]
    assert "Flame graph of python-hello under load" in shown[-1].data


@pytest.mark.slow
def test_a_real_profiled_phase_on_a_python_and_a_go_server(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import descendants

    from benchbook import measure
    from benchbook.analyse.display import profiles
    from benchbook.measure import profiling

    monkeypatch.setenv(profiling.SWITCH, "1")  # off for the rest of the suite (conftest)
    # Without the flame-graph renderer, whether or not this machine built it: `make test`
    # does not, and the same branch is checked everywhere (the renderer has a test of its
    # own, test_a_flame_graph_is_drawn_from_real_stacks).
    monkeypatch.setattr(profiling, "FLAMEGRAPH", runs_dir / "no-inferno-flamegraph")

    run = measure.run(measure.Experiment("profiled", ["go-hello", "python-hello"],
                      measure.tool("wrk", connections=10, threads=1, duration="1s"),
                      warmup="0s", repetitions=1, control="go-hello",
                      profiled=True))  # fmt: skip
    rows = profiling.profile(run, window="1s")
    assert [r["target"] for r in rows] == ["go-hello", "python-hello"]  # no A/A copy
    assert descendants() == [], "a profiler or server outlived the profiled phase"
    for row in rows:
        assert row["samples"] > 0 and row["rps_while_profiled"] > 0, row
        assert (runs_dir / run.run_id / "profiles" / f"{row['target']}.folded").exists()
        assert row["svg"] == ""
    manifest = json.loads((run.path / "manifest.json").read_text())["profiled_phase"]
    assert manifest["profilers"]["python"].startswith("py-spy 0.4")
    assert manifest["profilers"]["go"].startswith("runtime/pprof")
    assert manifest["flame_graphs"].startswith("none (inferno-flamegraph not built")
    results = run.results()
    assert "profiled" not in " ".join(results.columns)  # the rounds' rows are untouched
    assert len(results) == 3
    # Stored: read back, not measured again; and analysed.
    assert [r["target"] for r in profiling.profile(run)] == ["go-hello", "python-hello"]
    table = profiles.share_table(profiles.profiled_rows(run))
    assert list(table.columns) == ["go-hello", "python-hello"]
    overhead = profiles.overhead_table(profiles.profiled_rows(run), results)
    assert overhead["req/s measured (median)"].notna().all()
    shown = profiles.section(run, "02_hello_world_locust")  # what notebooks display
    assert [type(item).__name__ for item in shown][:3] == ["Markdown", "Styler", "Markdown"]
    details = profiles.details(run, results)  # the appendix's
    assert [type(item).__name__ for item in details].count("SVG") == 0
    assert "No flame graphs: inferno-flamegraph was not built" in details[-1].data
    # Servers are named by their titles; a short profile adds its count before "spent".
    answer = profiles.answer_sentence(run)
    assert "FastAPI (uvicorn's defaults)" in answer and "python-hello" not in answer, answer


@pytest.mark.slow
# py-spy, the profiler with a process of its own (a Go server profiles itself: stopping
# it is stopping any server, which tests/test_interrupts.py covers).
@pytest.mark.parametrize(("server", "profiling"), [("python-hello", "py-spy")])
def test_ctrl_c_in_a_profiled_phase_leaves_no_profiler_or_server(
    tmp_path: Path, server: str, profiling: str
) -> None:
    import psutil
    import test_interrupts as ti

    token = secrets.token_hex(8)
    with open(tmp_path / "out", "wb") as out, open(tmp_path / "err", "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, __file__, "runner", str(tmp_path), server],
            env={**os.environ, ti.TOKEN: token, "BENCHBOOK_PROFILED_PHASE": "1"},
            stdout=out, stderr=err,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "err").read_text()[-3000:]
            argvs = [ti._cmdline(p) for p in psutil.Process(proc.pid).children(True)]
            names = {Path(argv[0]).name for argv in argvs if argv}
            # The profiled phase: the server under its profiler (py-spy its parent, or Go's
            # -pprof side port), loaded by wrk.
            if "wrk" in names and any(profiling in (Path(a).name for a in argv) for argv in argvs):
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"{server} never ran under {profiling} with wrk")
        time.sleep(0.5)
        started = ti.marked(token)
        (reaper,) = [p for p in started if ti.is_reaper(p)]
        reaper.suspend()  # only the runner's own cleanup may stop them
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGINT, (tmp_path / "err").read_text()[-3000:]
        left = [p for p in started if ti._running(p) and p.pid != reaper.pid]
        assert left == [], [ti._cmdline(p) for p in left]
        reaper.resume()
        assert ti.gone_within(token, 15) == []
    finally:
        proc.kill()
        proc.wait()
        for left in ti.marked(token):
            left.kill()


def _runner(out: Path, server: str) -> None:
    """A measured round, then a profiled phase that would load ``server`` for a minute."""
    from benchbook import measure
    from benchbook.measure import profiling

    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ["BENCHBOOK_RUNS_DIR"] = str(out / "runs")
    os.environ["BENCHBOOK_SPEED_REFERENCE"] = "0"
    run = measure.run(measure.Experiment("profiled_interrupt", [server],
                      measure.tool("wrk", connections=10, threads=1, duration="1s"),
                      warmup="0s", repetitions=1, profiled=True))  # fmt: skip
    profiling.profile(run, window="60s")
    print("the profiled phase ended without an interrupt", flush=True)


if __name__ == "__main__" and sys.argv[1:2] == ["runner"]:
    _runner(Path(sys.argv[2]), sys.argv[3])


def test_a_flame_graph_is_shown_without_the_controls_an_image_cannot_use() -> None:
    from benchbook.analyse.display.flame_graph import static as static_flame_graph

    svg = (
        b'<svg onload="init(evt)"><script type="text/ecmascript"><![CDATA[var a = 1;]]>'
        b'</script><text id="title">t</text><text id="search" x="1190">Search</text>'
        b'<text id="unzoom" class="hide">Reset Zoom</text><text id="matched"> </text>'
        b"<g><title>main.main (3 samples)</title><text>mai..</text></g></svg>"
    )
    assert static_flame_graph(svg) == (
        b'<svg><text id="title">t</text><g><title>main.main (3 samples)</title>'
        b"<text>mai..</text></g></svg>"
    )


def test_a_flame_graphs_title_names_the_server_as_the_tables_do() -> None:
    from benchbook.analyse.display.flame_graph import static

    svg = b'<svg><text id="title" x="50%">go-hello under load (runtime/pprof)</text></svg>'
    assert static(svg, "Go net/http & co") == (
        b'<svg><text id="title" x="50%">Go net/http &amp; co under load (runtime/pprof)</text>'
        b"</svg>"
    )
