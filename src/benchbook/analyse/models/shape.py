"""What a sweep's throughput does over concurrency, said by the model that describes it:
the USL when its fit keeps the rule of usl_checks (then its N* may be stated), else a
ceiling when the rounds show one (ceiling), else neither, and no model's figure."""

from dataclasses import dataclass

from benchbook.analyse.models import ceiling
from benchbook.analyse.models.usl import UslFit
from benchbook.analyse.models.usl_checks import rule_broken


@dataclass(frozen=True)
class SweepShape:
    """One target's USL fit, why it may not be summarised (empty: it may), and the ceiling
    that describes the rounds instead, if one does."""

    fit: UslFit
    broken: list[str]
    ceiling: ceiling.Ceiling | None

    @property
    def usl_holds(self) -> bool:
        return not self.broken

    @property
    def kind(self) -> str:
        """'USL', 'ceiling' or 'none': which model the report states."""
        return "USL" if self.usl_holds else "ceiling" if self.ceiling else "none"


def shape_of(fit: UslFit) -> SweepShape:
    """The USL if it keeps the rule, else the ceiling the rounds show, if any."""
    broken = rule_broken(fit)
    return SweepShape(fit, broken, ceiling.find(fit.points) if broken else None)
