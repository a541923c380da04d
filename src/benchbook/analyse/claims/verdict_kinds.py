"""The verdicts against an article, as one type: each carries the label the findings store
and the report prints, its badge, the short word page 1's chart gives it, its colour and
what it means. The report's CSS class of a verdict comes from it by name, and its colour
rule from it too (render.report), so no list elsewhere has to stay in step with this one.
The rules that pick a verdict are claims.verdicts.judge's."""

from dataclasses import dataclass
from enum import Enum

from benchbook.analyse.claims.explanation import EXPLAINS_WITHIN, WIDENED_BECAUSE
from benchbook.analyse.numbers import formatting as fmt

GOOD, ERROR, WARN, MUTED = "#1a7f37", "#b42318", "#9a6700", "#656d76"


@dataclass(frozen=True)
class Kind:
    label: str  # as the findings store it and the report prints it
    badge: str
    word: str  # page 1's chart: a few letters beside the badge
    colour: str
    meaning: str
    self_explained: bool = False  # its reason adds nothing to the summary's row


class Verdict(Enum):
    REPRODUCED = Kind(
        "reproduced", "✓", "reproduced", GOOD,
        "the article's figure lies inside the interval the answer gives for the next session",
    )  # fmt: skip
    NOT_REPRODUCED = Kind(
        "not reproduced", "✗", "not reproduced", ERROR,
        "that interval holds 1 where the article found a difference, or the opposite "
        "direction came out",
    )  # fmt: skip
    SOMETHING_ELSE = Kind(
        "the article measured something else", "≠", "measured else", WARN,
        "reproducing what the article timed instead gives an interval that holds its "
        f"figure with each end moved {fmt.ratio(EXPLAINS_WITHIN)} outward ({WIDENED_BECAUSE}), "
        "or gives the side it timed instead (a failed call) within that factor of the "
        "article's time for it",
    )  # fmt: skip
    NO_ARTICLE = Kind(
        "no article figure", "–", "no article", MUTED,
        "the article gives no ratio of these two to compare", self_explained=True,
    )  # fmt: skip
    TOO_FEW_RUNS = Kind(
        "too few runs", "?", "too few runs", MUTED,
        "so few runs could not show any difference", self_explained=True,
    )  # fmt: skip
    SAME_DIRECTION = Kind(
        "same direction, different size", "≈", "same direction", WARN,
        "the same direction as the article, its figure outside that interval",
    )  # fmt: skip
    DIFFERENT_CONDITIONS = Kind(
        "different conditions: not comparable", "⚠", "not comparable", WARN,
        "a condition that sets the result differs from the article's (a link, or a rate "
        "something other than the servers set)",
    )  # fmt: skip
    NOT_RESOLVABLE = Kind(
        "not resolvable on this machine", "~", "not resolvable", MUTED,
        "the estimate lies within what an A/A control strays",
    )  # fmt: skip
    NO_VALID_RUNS = Kind(
        "no valid runs", "∅", "no valid runs", MUTED,
        "no run of one side counts", self_explained=True,
    )  # fmt: skip

    @property
    def label(self) -> str:
        return self.value.label

    @property
    def css_class(self) -> str:
        """'verdict-not-reproduced': the report's class for it, by its name."""
        return "verdict-" + self.name.lower().replace("_", "-")

    @classmethod
    def of(cls, label: str | None) -> "Verdict | None":
        """The verdict a stored label names (None: none, or a label of no verdict)."""
        return next((v for v in cls if v.label == label), None)


def verdict_css() -> str:
    """The colour of each verdict's class, for the report's style sheet."""
    return "\n".join(f".{v.css_class} {{ color: {v.value.colour}; }}" for v in Verdict)
