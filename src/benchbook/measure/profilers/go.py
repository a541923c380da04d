"""The Go runtime's own CPU profiler: a Go server started with ``-pprof 127.0.0.1:<port>``
(servers/go/internal/profiling) serves net/http/pprof there; a CPU profile is fetched
over the load's window and turned into folded stacks from ``go tool pprof -raw``."""

import contextlib
import math
import re
import subprocess
import threading
import urllib.request
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from benchbook.measure.instances import Instance
from benchbook.measure.registry import ServerSpec
from benchbook.measure.servers import free_port
from benchbook.runs.layout import GO_MODULE
from benchbook.runs.sampling import RATE_HZ


class GoPprof:
    """The Go runtime's CPU profiler, served on a loopback side port (-pprof)."""

    name = "runtime/pprof"

    def wrap(self, spec: ServerSpec, prefix: Path) -> tuple[ServerSpec, dict]:
        return replace(spec, command=(*spec.command, "-pprof", "127.0.0.1:{pprof_port}")), {
            "pprof_port": free_port()
        }

    @contextlib.contextmanager
    def recording(self, instance: Instance, prefix: Path, window_s: float) -> Iterator[None]:
        """A CPU profile over the load's window and one second more (no samples while
        idle), fetched in the background while the load runs."""
        port = _pprof_port(instance)
        url = f"http://127.0.0.1:{port}/debug/pprof/profile?seconds={math.ceil(window_s) + 1}"
        errors: list[BaseException] = []

        def fetch() -> None:
            try:
                direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
                with direct.open(url, timeout=window_s + 30) as response:
                    Path(str(prefix) + ".pb.gz").write_bytes(response.read())
            except Exception as error:  # reported in the main thread
                errors.append(error)

        thread = threading.Thread(target=fetch, name="pprof", daemon=True)
        thread.start()
        yield
        thread.join(timeout=window_s + 30)
        if errors:
            raise RuntimeError(f"the CPU profile of {instance.target.label}: {errors[0]}")

    def finish(self, instance: Instance) -> None:
        pass

    def folded(self, prefix: Path) -> Path:
        folded = Path(str(prefix) + ".folded")
        raw = subprocess.run(["go", "tool", "pprof", "-raw", str(prefix) + ".pb.gz"],
                             cwd=GO_MODULE, capture_output=True, text=True, check=True)  # fmt: skip
        folded.write_text(pprof_raw_to_folded(raw.stdout, go_prefixes()))
        return folded

    def unavailable(self) -> str:
        return ""  # the Go toolchain that builds the server

    def errors(self, log: Path) -> int | None:
        return None  # the runtime's profiler reads its own stacks

    def version(self) -> str:
        done = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True)
        return f"runtime/pprof ({done.stdout.strip()}, {RATE_HZ} Hz)"


def _pprof_port(instance: Instance) -> int:
    argv = instance.server.process.argv
    return int(argv[argv.index("-pprof") + 1].rsplit(":", 1)[1])


_SAMPLE = re.compile(r"^\s*(\d+)\s+\d+:\s*([\d ]+?)\s*$")
_LOCATION = re.compile(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+\s*(.*)$")


def pprof_raw_to_folded(raw: str, prefixes: Sequence[str] = ()) -> str:
    """``go tool pprof -raw`` output as folded stacks: ``root;…;leaf count`` lines,
    frames as ``function (file)`` with the GOROOT, module-cache and repository prefixes
    in ``prefixes`` taken off the file, inlined calls as frames of their own."""
    section, samples, locations = "", [], {}
    current: list[str] = []
    for line in raw.splitlines():
        if line in ("Samples:", "Locations", "Mappings") or line.startswith("samples/"):
            section = line if not line.startswith("samples/") else section
            continue
        if section == "Samples:" and (m := _SAMPLE.match(line)):
            samples.append((int(m.group(1)), [int(x) for x in m.group(2).split()]))
        elif section == "Locations" and (m := _LOCATION.match(line)):
            current = locations[int(m.group(1))] = [_frame(m.group(2), prefixes)]
        elif section == "Locations" and line.strip() and current:
            current.append(_frame(line, prefixes))
    stacks: Counter[str] = Counter()
    for count, ids in samples:
        leaf_first = [frame for i in ids for frame in locations.get(i, [f"0x? ({i})"])]
        stacks[";".join(reversed(leaf_first))] += count
    return "".join(f"{stack} {n}\n" for stack, n in sorted(stacks.items()))


def _frame(text: str, prefixes: Sequence[str]) -> str:
    """'net/http.(*conn).serve /usr/local/go/src/net/http/server.go:2100:0 s=1990' →
    'net/http.(*conn).serve (net/http/server.go)'."""
    parts = text.split()
    if len(parts) < 2:
        return parts[0] if parts else "?"
    file = re.sub(r":\d+(:\d+)?$", "", parts[1])
    for prefix in prefixes:
        if prefix and file.startswith(prefix):
            file = file[len(prefix) :]
            break
    return f"{parts[0]} ({file})".replace(";", ",")


def go_prefixes() -> list[str]:
    done = subprocess.run(["go", "env", "GOROOT", "GOMODCACHE"], capture_output=True, text=True)
    goroot, modcache = (done.stdout.splitlines() + ["", ""])[:2]
    return [f"{goroot}/src/", f"{modcache}/", f"{GO_MODULE}/"]
