"""Where a server's time went under load, in words: each profiled target's largest
categories of CPU samples (display.profiles sorts the stacks into them), with the caveats
that change what a share means — few samples, or a loop whose share hides the C code
it runs."""

from collections.abc import Mapping

import pandas as pd

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
