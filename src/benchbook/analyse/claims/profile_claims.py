"""Each article's claim about a cause (coroutine switching, the access log, fsync per
write, JSON vs protobuf, goroutine overhead), held against the profiles' category shares
(analyse.display.profiles): whether the profile supports each (words.time_spent says it)."""

from dataclasses import dataclass
from enum import Enum

import pandas as pd

SUPPORT_SHARE = 0.20  # a cause holding a fifth of the samples "supports" a claim
PARTLY_SHARE = 0.10


@dataclass(frozen=True)
class Claim:
    """An article's claim about a cause: ``category`` holds a large share of the
    samples of the targets whose label contains ``subject`` (more than in ``reference``'s,
    when given). ``off_cpu``: a cause that is waiting, which a CPU profile cannot see."""

    experiment: str
    claim: str
    category: str
    subject: str
    reference: str = ""
    off_cpu: bool = False
    # What the profiler cannot see that the cause may hide in ('' where it sees it all): a
    # Python profile charges C code (uvloop, httptools, the encoders) to the Python frame
    # that called it, so a share there that does not support the claim cannot refute it.
    blind: str = ""


CLAIMS = (
    Claim("01_io_concurrency", "the article: Python is slower as its one event loop switches "
          "between coroutines", "event loop/scheduler", "python", "go",
          blind="py-spy sees no frame inside uvloop's or httptools' C code, so the Python "
          "share is not comparable with Go's"),
    Claim("02_hello_world_locust", "the article: FastAPI's access log costs it throughput",
          "logging", "python-hello"),
    Claim("03_goroutine_fanout", "the article: starting goroutines costs more than fan-out saves",
          "event loop/scheduler", "/cc/", "/sc/"),
    Claim("04_url_shortener", "the article: bbolt's fsync on every write limits writes",
          "disk sync (fsync)", "bolt", off_cpu=True),
    Claim("05_grpc_vs_http", "the article: JSON encoding makes HTTP slower than gRPC's protobuf",
          "JSON/protobuf encoding", "http", "grpc",
          blind="py-spy sees no frame inside the C encoders or grpc's C core, where a Python "
          "server's encoding may run"),
)  # fmt: skip


def _samples(table: pd.DataFrame, part: str) -> float | None:
    """The samples behind the shares of the targets whose label holds ``part``."""
    columns = [c for c in table.columns if part in c]
    if not columns or "samples" not in table.index:
        return None
    return float(table.loc["samples", columns].sum())


def _mean_share(table: pd.DataFrame, category: str, part: str) -> float | None:
    columns = [c for c in table.columns if part in c]
    if not columns or category not in table.index:
        return 0.0 if columns else None
    return float(table.loc[category, columns].mean())


def _beyond_noise(
    share: float, reference: float, samples: tuple[float | None, float | None]
) -> bool:
    """The share lies above the reference's by more than 1.96 standard errors of their
    difference (two sampled proportions); True where the sample counts are not known."""
    n, m = samples
    if not n or not m:
        return True
    spread = (share * (1 - share) / n + reference * (1 - reference) / m) ** 0.5
    return share - reference > 1.96 * spread


class Support(Enum):
    """What a profile says of a claim (``support``'s rules, in their order)."""

    NOT_PROFILED = "no target holds the claim's subject"
    WITHIN_NOISE = "above the reference by no more than sampling gives"
    SUPPORTS = "at SUPPORT_SHARE or more, above the reference"
    PARTLY = "at PARTLY_SHARE or more, above the reference"
    BLIND = "too small, where the profiler cannot see all the cause may hide in"
    OFF_CPU = "too small, for a cause that waits off the CPU"
    NOT_ABOVE = "no more than the reference's"
    SMALL = "too small"


@dataclass(frozen=True)
class ClaimShares:
    """A claim held against a profile: the cause's share in the targets whose label holds
    the claim's subject (their mean), in the reference's, and what that says."""

    claim: Claim
    share: float | None
    reference: float | None
    support: Support


def support(
    claim: Claim,
    share: float | None,
    reference: float | None,
    samples: tuple[float | None, float | None] = (None, None),
) -> Support:
    """SUPPORTS at SUPPORT_SHARE or more (and above the reference, when the claim has one,
    by more than the two shares' sampling noise: ``samples`` behind each), PARTLY at
    PARTLY_SHARE or more, otherwise why not."""
    if share is None:
        return Support.NOT_PROFILED
    above = reference is None or share > reference
    if above and reference is not None and not _beyond_noise(share, reference, samples):
        if share >= PARTLY_SHARE:
            return Support.WITHIN_NOISE
        above = False
    if share >= SUPPORT_SHARE and above:
        return Support.SUPPORTS
    if share >= PARTLY_SHARE and above:
        return Support.PARTLY
    if claim.blind:
        return Support.BLIND
    if claim.off_cpu:
        return Support.OFF_CPU
    # A small share says where the time did not go, not that the cause is wrong: a
    # profile shows where CPU samples fall, and some causes (one thread doing all the work)
    # leave no category of their own.
    return Support.SMALL if above else Support.NOT_ABOVE


def claim_shares(experiment: str, table: pd.DataFrame) -> list[ClaimShares]:
    """Each claim of ``experiment`` held against the profiles' category shares (a column
    per target, a row per category and 'samples')."""
    found = []
    for claim in (c for c in CLAIMS if c.experiment == experiment):
        share = _mean_share(table, claim.category, claim.subject)
        reference = _mean_share(table, claim.category, claim.reference) if claim.reference else None
        samples = (_samples(table, claim.subject),
                   _samples(table, claim.reference) if claim.reference else None)  # fmt: skip
        found.append(
            ClaimShares(claim, share, reference, support(claim, share, reference, samples))
        )
    return found
