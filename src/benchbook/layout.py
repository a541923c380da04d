"""Where things live in the repository, so no module guesses paths on its own."""

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
REGISTRY_PATH = REPO_ROOT / "servers" / "servers.toml"
PUBLISHED_DIR = REPO_ROOT / "data" / "published"


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
