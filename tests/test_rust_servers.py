"""The Rust servers (servers/rust), a language added as a plug-in: built through the
registry as `make setup` builds every server, started on one pinned core, verified with
the requests servers.toml gives them — the routes and checks of their Go counterparts —
and profiled under load with perf, as their language declares."""

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from conftest import descendants

from benchbook import measure
from benchbook.analyse.display import profiles
from benchbook.measure import profiling
from benchbook.measure.registry import Target
from benchbook.measure.servers import build_server, start_server
from benchbook.measure.verification import verify
from benchbook.runs.layout import REPO_ROOT

pytestmark = pytest.mark.slow  # cargo builds them (minutes, once), then real servers


def get(url: str) -> tuple[int, float]:
    """A GET's status and how long it took, in seconds."""
    started = time.monotonic()
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with direct.open(url, timeout=10) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    return status, time.monotonic() - started


@pytest.mark.parametrize("name", ["rust-iodelay", "rust-hello"])
def test_a_rust_server_builds_starts_on_one_thread_and_passes_its_checks(
    registry, tmp_path: Path, name: str
) -> None:
    spec = registry.get(name)
    build_server(spec)
    binary = Path(spec.command[0].format(root=REPO_ROOT))
    assert binary.is_relative_to(REPO_ROOT / "build" / "rust")  # never under servers/
    assert not (REPO_ROOT / "servers" / "rust" / "target").exists()
    target = Target(name)
    params = spec.resolve_params({})
    with start_server(spec, target, params, tmp_path / "s.log", cpus=[0]) as server:
        verify(server.port, server.spec, target.label)
        process = psutil.Process(server.process.pid)
        assert process.num_threads() == 1  # tokio's current-thread runtime
        assert process.cpu_affinity() == [0]
        pid = server.process.pid
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert descendants() == []


def test_the_io_server_sleeps_its_delay_and_serves_only_get_slash(registry, tmp_path) -> None:
    spec = registry.get("rust-iodelay")
    build_server(spec)
    params = spec.resolve_params({"delay_ms": 200})
    with start_server(spec, Target("rust-iodelay"), params, tmp_path / "s.log") as server:
        status, took = get(f"{server.url}/")
        assert status == 200 and took >= 0.2
        assert get(f"{server.url}/other")[0] == 404  # as Go's "GET /{$}" pattern


def test_a_profiled_phase_profiles_a_rust_server_with_perf(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(profiling.SWITCH, "1")  # off for the rest of the suite (conftest)
    run = measure.run(measure.Experiment("profiled_rust", ["rust-hello"],
                      measure.tool("wrk", connections=10, threads=1, duration="1s"),
                      warmup="0s", repetitions=1, profiled=True))  # fmt: skip
    (row,) = profiling.profile(run, window="1s")
    assert descendants() == [], "perf or the server outlived the profiled phase"
    assert row["profiler"] == "perf" and row["samples"] > 0 and row["rps_while_profiled"] > 0
    stacks = profiles.read_folded(Path(row["folded"]))
    assert any("hello::main (hello)" in frames for frames, _ in stacks)  # its own code, named
    manifest = json.loads((run.path / "manifest.json").read_text())["profiled_phase"]
    assert manifest["profilers"]["rust"].startswith("perf version")
    table = profiles.share_table(profiles.profiled_rows(run))
    assert list(table.columns) == ["rust-hello"] and table.loc["samples", "rust-hello"] > 0
    # a short smoke profile may hold few samples: the sentence then says how many
    assert re.match(
        r"Under load \(profiled phase\), Rust hyper \(tokio, 1 thread\)"
        r"( \(only \d+ samples: each share ±\d+ points, 95 %\))? spent",
        profiles.answer_sentence(run),
    )
