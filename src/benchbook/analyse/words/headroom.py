"""The load tools' calibrated ceilings (notebook 00) in words: which settings are level
at the top, and how close a notebook's runs came to their tool's ceiling (for its
Validity section)."""

import pandas as pd

from benchbook.analyse.numbers import formatting as fmt
from benchbook.runs.calibration import Ceilings
from benchbook.runs.flags import NEAR_CEILING_HEADROOM

# Two settings' ceilings closer than this ratio are level: with three rounds a setting,
# one calibration run's CI of a median is wider than that.
LEVEL_WITH = 1.05


def fastest(ceilings: Ceilings) -> list[tuple[str, float]]:
    """The settings whose req/s lie within LEVEL_WITH of the highest, fastest first."""
    ranked = sorted(ceilings.by_setting.items(), key=lambda item: -item[1])
    return [(s, rps) for s, rps in ranked if ranked[0][1] / rps < LEVEL_WITH]


def headroom_note(results: pd.DataFrame) -> str:
    """How close the runs came to their load tool's calibrated ceiling."""
    headroom = results["headroom"].dropna()
    if headroom.empty:
        return (
            "No run has a load-tool headroom: this machine's calibration measured none of "
            "their tool settings at its own limit (notebook 00 says which settings it did)."
        )
    near = int((headroom >= NEAR_CEILING_HEADROOM).sum())
    above = int((headroom > 1).sum())
    # A run above its calibration shows the tool can produce more than the calibration
    # measured: a run the near-ceiling flag marks may still have had the tool with room.
    beyond = (
        f" {above} of them went past it, so this setting can produce more than notebook 00 "
        "measured, and a run flagged `near_tool_ceiling` may not have had the tool at its limit"
        if above
        else ""
    )
    return (
        f"Load-tool headroom: the runs reached a median {fmt.percent(headroom.median())} (at most "
        f"{fmt.percent(headroom.max())}) of the most their tool setting produced in notebook 00; "
        f"{near} of {len(headroom)} runs reached {fmt.percent(NEAR_CEILING_HEADROOM)} or more."
        + (f"{beyond}." if beyond else "")
        + _cpu_not_rate(results)
    )


def _cpu_not_rate(results: pd.DataFrame) -> str:
    """Why a run far below its tool's ceiling can still have had the tool at its limit
    (said only where one did): slower answers cost a tool more CPU per request than the
    calibration's."""
    flags = results["flags"].fillna("").astype(str)
    below = results["headroom"] < NEAR_CEILING_HEADROOM
    if not (flags.str.contains("client_bound") & below).any():
        return ""
    return (
        " A run far below its tool's ceiling can still have had the tool at its limit, as its "
        "own CPU (`client_bound`) shows here: the ceiling was measured with every answer back "
        "at once, and slower answers cost a tool more CPU per request."
    )
