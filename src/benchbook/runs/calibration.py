"""Load-tool ceilings as stored and read: the calibration experiment's name and what one
of its runs gives, the median req/s of each tool setting (benchbook.measure.calibration
picks the run and computes them; rows store ``headroom`` from them)."""

from dataclasses import dataclass, field

import pandas as pd

from benchbook.runs.limits import Limit

CALIBRATION_EXPERIMENT = "00_load_generators"


@dataclass(frozen=True)
class Ceilings:
    """Median req/s per tool setting in one calibration run (none: not calibrated)."""

    run_id: str | None = None
    by_setting: dict[str, float] = field(default_factory=dict)
    server: str = ""  # the target the ceilings were measured against
    # Settings whose ceiling was the tool's own (runs.limits: the load tool set most of its
    # runs); the others were held back by the server, so reaching them says nothing about
    # the tool.
    tool_bound: frozenset[str] = frozenset()
    # Newer calibration runs that were not used, each with the reason.
    skipped: tuple[str, ...] = ()

    def headroom(self, setting: str, rps: float) -> float | None:
        """rps ÷ the setting's ceiling — only where the ceiling was the tool's own: a
        ceiling the server held back is a lower bound, and a share of it means nothing
        (a run could reach 115 % of it)."""
        ceiling = self.by_setting.get(setting)
        return round(rps / ceiling, 3) if ceiling and setting in self.tool_bound else None


NOT_CALIBRATED = Ceilings()


def tool_set_share(results: pd.DataFrame) -> pd.Series:
    """Per tool setting, the share of its runs whose rate the load tool set (runs.limits)."""
    return results.groupby("tool_setting", sort=False)["limit"].agg(
        lambda limits: (limits == str(Limit.LOAD_TOOL)).mean()
    )
