"""Where a server's time went under load, in words: each profiled target's largest
categories of CPU samples (display.profiles sorts the stacks into them), with the caveats
that change what a share means — few samples, or a loop whose share hides the C code
it runs."""

from collections.abc import Mapping

import pandas as pd

from benchbook.analyse.claims.profile_claims import Claim, Support, claim_shares, support
from benchbook.analyse.numbers import formatting as fmt

OTHER = "other"  # the category of stacks no rule names: never a reason
# Below this many samples a share's 95 % margin exceeds ±10 points (1.96 · 0.5 / √100).
FEW_SAMPLES = 100
# A loop's share this high in a Python profile is mostly the C code the loop calls, which
# py-spy cannot see into (a grpc.aio server's): the sentence says so.
LOOP = "event loop/scheduler"
OPAQUE_LOOP_SHARE = 0.9


def _top(column: pd.Series, n: int = 2) -> list[tuple[str, float]]:
    named = column.drop(["samples", OTHER], errors="ignore").sort_values(ascending=False)
    return [(category, share) for category, share in named.head(n).items() if share >= 0.01]


def why(table: pd.DataFrame, names: Mapping[str, str] | None = None) -> str:
    """One sentence from a share table: each target's two largest categories, the
    target called by ``names`` (target → the name a reader knows) where given; a target
    with few samples says how many, and a loop that took nearly all says what it hides."""
    if table.empty:
        return ""
    parts = []
    for target in table.columns:
        top = _top(table[target])
        if top:
            said = " and ".join(f"{fmt.percent(share)} in {category}" for category, share in top)
            if top[0][0] == LOOP and top[0][1] >= OPAQUE_LOOP_SHARE:
                said += " (with the C code the loop runs, which the profiler cannot see into)"
            name = (names or {}).get(target, target)
            samples = table[target].get("samples")
            if samples is not None and samples < FEW_SAMPLES:
                name += (
                    f" (only {fmt.count(samples)} samples: each share ±{_margin(samples)}, 95 %)"
                )
            parts.append(f"{name} spent {said}")
    if not parts:
        return ""
    return "Under load (profiled phase), " + "; ".join(parts) + "."


def _margin(samples: float) -> str:
    """The widest 95 % margin of a share of ``samples`` samples, in points (at 50 %)."""
    return f"{100 * 1.96 * 0.5 / samples**0.5:.0f} points"


# Profiled at less than this share of its measured rate, a server's shares describe a
# slower server than the one measured: the sentence says so.
SLOWED = 0.8


def slowed(ratios: Mapping[str, float], names: Mapping[str, str]) -> str:
    """' Profiling slowed aiohttp + Redis to 0.57× its measured rate: those shares are of a
    slower server, …' (names: target → the name a reader knows; '' when none was slowed)."""
    slow = {t: r for t, r in ratios.items() if r == r and r < SLOWED}
    if not slow:
        return ""
    # two decimals, as the appendix's overhead table prints the same ratio
    listed = " and ".join(f"{names.get(t, t)} to {r:.2f}×" for t, r in slow.items())
    return (
        f" Profiling slowed {listed} its measured rate: those shares are of a slower server, "
        "one where the profiler's own cost weighs more."
    )


def claim_rows(
    experiment: str, table: pd.DataFrame, names: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """One row per claim of ``experiment`` (claims.profile_claims): the cause's share in
    the targets whose label holds the claim's subject (their mean; and in the reference's),
    each target by the name a reader knows (``names``), and what the profile says of it."""

    def named(part: str) -> str:
        matched = [(names or {}).get(t, t) for t in table.columns if part in t]
        return ", ".join(matched) or "–"

    rows = []
    for found in claim_shares(experiment, table):
        claim, share, reference = found.claim, found.share, found.reference
        rows.append({
            "claim": claim.claim, "cause (category)": claim.category,
            "targets": named(claim.subject),
            "their share": fmt.percent(share) if share is not None else "–",
            "reference": named(claim.reference) if claim.reference else "–",
            "its share": fmt.percent(reference) if reference is not None else "–",
            "the profile": said(found.support, claim, share, reference),
        })  # fmt: skip
    return pd.DataFrame(rows)


def verdict(
    claim: Claim,
    share: float | None,
    reference: float | None,
    samples: tuple[float | None, float | None] = (None, None),
) -> str:
    """What the profile says of ``claim`` (claims.profile_claims.support), in words."""
    return said(support(claim, share, reference, samples), claim, share, reference)


def said(found: Support, claim: Claim, share: float | None, reference: float | None) -> str:
    """'supports it', 'partly supports it', or why not, with the shares."""
    if found is Support.NOT_PROFILED or share is None:
        return f"not profiled (no target named '{claim.subject}')"
    of_reference = f"the reference's {fmt.percent(reference)}" if reference is not None else ""
    if found is Support.WITHIN_NOISE:
        return (
            f"cannot tell: {fmt.percent(share)} of the samples against {of_reference}, a gap "
            "within what sampling alone gives (95 %)"
        )
    if found is Support.SUPPORTS:
        return "supports it"
    if found is Support.PARTLY:
        return "partly supports it"
    if found is Support.BLIND:
        against = f" against {of_reference}" if of_reference else ""
        return f"cannot tell: {fmt.percent(share)} of the samples{against}, but {claim.blind}"
    if found is Support.OFF_CPU:
        return (
            f"does not show it: {fmt.percent(share)} of CPU samples; time waiting on the disk "
            "is off the CPU, where a CPU profile cannot see (compare req/s with server CPU %)"
        )
    if found is Support.NOT_ABOVE:
        return f"does not show it: {fmt.percent(share)}, no more than {of_reference}"
    return f"does not show it: {fmt.percent(share)} of the samples"
