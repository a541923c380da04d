"""What benchbook runs on a remote server host (hosts.remote), from that host's own clone:

    python -m benchbook.measure.hosts.agent run [--cwd D] [--env K=V]… [--mkdir D]… -- argv…
    python -m benchbook.measure.hosts.agent machine
    python -m benchbook.measure.hosts.agent free-port
    python -m benchbook.measure.hosts.agent echo

``run`` starts ``argv`` in a process group of its own and, every SAMPLE_INTERVAL_S, prints
that group's CPU seconds and RSS as ``@benchbook-agent <cpu_s> <rss_bytes>`` (the server
host's own sampling, read on the load host from the connection's output). When the
connection goes (ssh -tt: the hangup of its terminal), or on SIGTERM, it stops the group
(SIGTERM, then SIGKILL) and exits, so nothing outlives the run there either. It exits
with the command's code when the command ends. ``machine`` prints the host's fingerprint
(JSON), ``free-port`` a port free on every address, ``echo`` the link probe's echo
service (its port first).
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time

import psutil

SAMPLE_INTERVAL_S = 0.1
STOP_GRACE_S = 5.0
MARK = "@benchbook-agent"


def _group_usage(pgid: int) -> tuple[float, int]:
    cpu, rss = 0.0, 0
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) != pgid:
                continue
            with proc.oneshot():
                times = proc.cpu_times()
                cpu += times.user + times.system
                rss += proc.memory_info().rss
        except (psutil.Error, ProcessLookupError):
            pass
    return cpu, rss


def _stop(child: subprocess.Popen) -> None:
    """SIGTERM the child's group, SIGKILL it after STOP_GRACE_S; the child is reaped here
    (a zombie would keep its group alive), its descendants by init."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(child.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < deadline:
            child.poll()
            try:
                os.killpg(child.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)


def run(args: argparse.Namespace) -> int:
    for folder in args.mkdir:
        os.makedirs(folder, exist_ok=True)
    env = {**os.environ, **dict(pair.split("=", 1) for pair in args.env)}
    child = subprocess.Popen(args.argv, cwd=args.cwd, env=env, start_new_session=True,
                             stdin=subprocess.DEVNULL)  # fmt: skip

    def hang_up(signum: int, frame: object) -> None:
        _stop(child)
        sys.exit(128 + signum)

    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, hang_up)
    while child.poll() is None:
        cpu, rss = _group_usage(child.pid)
        try:
            print(f"{MARK} {cpu:.3f} {rss}", flush=True)
        except OSError:  # the connection is gone
            hang_up(signal.SIGHUP, None)
        time.sleep(SAMPLE_INTERVAL_S)
    _stop(child)  # anything the command left in its group
    return child.returncode


def echo() -> int:
    """One-byte answers to one-byte questions, and 32 MB to a "C" (hosts.link)."""
    from benchbook.measure.hosts.link import EchoService

    service = EchoService()
    print(service.port, flush=True)
    signal.sigwait({signal.SIGHUP, signal.SIGTERM, signal.SIGINT})
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchbook.measure.hosts.agent")
    commands = parser.add_subparsers(dest="command", required=True)
    started = commands.add_parser("run")
    started.add_argument("--cwd")
    started.add_argument("--env", action="append", default=[])
    started.add_argument("--mkdir", action="append", default=[])
    started.add_argument("argv", nargs="+")
    commands.add_parser("machine")
    commands.add_parser("free-port")
    commands.add_parser("echo")
    args = parser.parse_args(argv)
    if args.command == "run":
        return run(args)
    if args.command == "machine":
        from benchbook.measure.provenance import machine

        print(json.dumps(machine()))
        return 0
    if args.command == "free-port":
        with socket.socket() as sock:
            sock.bind(("0.0.0.0", 0))
            print(sock.getsockname()[1])
        return 0
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP, signal.SIGTERM, signal.SIGINT})
    return echo()


if __name__ == "__main__":
    sys.exit(main())
