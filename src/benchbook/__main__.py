"""Command line: ``python -m benchbook build`` builds every server in the registry."""

import argparse

from benchbook.measure.languages import missing_toolchains
from benchbook.measure.registry import Registry
from benchbook.measure.servers import build_server


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchbook")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="build every server in servers/servers.toml")
    args = parser.parse_args()
    if args.command == "build":
        servers = Registry.load().servers.values()
        # Every missing toolchain named at once, before any build starts.
        missing = missing_toolchains((s.name, s.toolchain) for s in servers if s.build)
        if missing:
            raise SystemExit("missing: " + "; ".join(missing))
        for spec in servers:
            build_server(spec)
            print(f"built {spec.name}" if spec.build else f"{spec.name}: nothing to build")


if __name__ == "__main__":
    main()
