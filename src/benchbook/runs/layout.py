"""Where things live in the repository, so no module guesses paths on its own."""

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
REGISTRY_PATH = REPO_ROOT / "servers" / "servers.toml"
PUBLISHED_DIR = REPO_ROOT / "data" / "published"
GO_MODULE = REPO_ROOT / "servers" / "go"  # the Go servers and their client benchmarks
# Where `make setup` builds the Go servers and the Go-built load tools.
BUILD_BIN = REPO_ROOT / "build" / "bin"


def built_tool(name: str) -> Path:
    """A tool `make setup` builds into build/bin, or an error that says how to get it."""
    path = BUILD_BIN / name
    if not path.exists():
        raise FileNotFoundError(
            f"{name} is not built: run `make setup` (it builds the Go tools pinned in "
            f"servers/go/tools/go.mod into {BUILD_BIN})"
        )
    return path


def runs_dir() -> Path:
    """data/runs/, unless BENCHBOOK_RUNS_DIR points elsewhere (tests do, so that only
    real report runs land in the repository)."""
    return Path(os.environ.get("BENCHBOOK_RUNS_DIR", REPO_ROOT / "data" / "runs"))


def repo_relative(path: Path) -> str:
    """A path as stored in rows and manifests: relative to the repository when inside it."""
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path.resolve())
