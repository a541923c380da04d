"""Where things live in the repository, so no module guesses paths on its own."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
REGISTRY_PATH = REPO_ROOT / "servers" / "servers.toml"
RUNS_DIR = REPO_ROOT / "data" / "runs"
PUBLISHED_DIR = REPO_ROOT / "data" / "published"
BUILD_DIR = REPO_ROOT / "build"


def repo_relative(path: Path) -> str:
    """A path as stored in rows and manifests: relative to the repository when inside it."""
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path.resolve())
