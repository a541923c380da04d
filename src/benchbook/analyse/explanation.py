"""An article's figure explained by something else it measured, and when that holds."""

from dataclasses import dataclass

# An explanation holds when its reproduction lands within this factor of the article's
# figure: machines of one kind differ by 20–30 % between CPU generations, so a figure
# reproduced on another machine cannot be asked to land closer than that.
EXPLAINS_WITHIN = 1.3


@dataclass(frozen=True)
class Explanation:
    """What the article measured instead (``why``, a clause) and the ratio that
    reproducing it gives here (``reproduced``)."""

    why: str
    reproduced: float

    def explains(self, article_ratio: float) -> bool:
        """The reproduction lands near the article's figure (within EXPLAINS_WITHIN)."""
        ratio = self.reproduced / article_ratio
        return 1 / EXPLAINS_WITHIN <= ratio <= EXPLAINS_WITHIN
