"""The next-session interval's coverage, simulated on the report's own designs (6 paired
rounds; 4+4 runs; k = 1…10 sessions; between-session SD τ = 0…0.15): every cell must cover
the next session's estimate 93–97 %, so an interval that is too wide fails as surely as one
that is too narrow. 4000 replicates a cell: a true 95 % lands within ±0.7 % (2 SE)."""

import numpy as np
import pytest

from benchbook.analyse.sessions import interval_coverage as ic

LOW, HIGH = 0.93, 0.97


@pytest.fixture(scope="module")
def cells() -> tuple[ic.Cell, ...]:
    return ic.coverage()


def test_every_cell_is_simulated(cells: tuple[ic.Cell, ...]) -> None:
    assert len(cells) == len(ic.DESIGNS) * len(ic.TAUS) * len(ic.SESSIONS)


def test_the_next_session_interval_covers_nominally_in_every_cell(
    cells: tuple[ic.Cell, ...],
) -> None:
    outside = [(c.design, c.tau, c.sessions, c.moderated) for c in cells]
    assert all(LOW <= c[3] <= HIGH for c in outside), [
        c for c in outside if not LOW <= c[3] <= HIGH
    ]


def test_the_pooled_interval_covers_the_class_mean(cells: tuple[ic.Cell, ...]) -> None:
    assert all(LOW <= c.pooled <= HIGH for c in cells if c.sessions >= 2)


def test_the_old_rule_is_too_wide_at_few_sessions(cells: tuple[ic.Cell, ...]) -> None:
    """Why it was replaced: Higgins–Thompson–Spiegelhalter with t(k − 2) over-covers at k = 3."""
    assert all(c.hts > HIGH for c in cells if c.sessions == 3)
    assert all(np.isnan(c.hts) for c in cells if c.sessions <= 2)


@pytest.mark.parametrize("design", ic.DESIGNS)
def test_the_rounds_give_the_session_variance(design: str) -> None:
    """The variance from the rounds matches how the estimate really scatters within a
    session (τ = 0) within 15 %: the Hodges–Lehmann estimate is a little less efficient
    than the mean the variance formula assumes."""
    y, v = ic.session_estimates(design, 1, 0.0, 20000, np.random.default_rng(1))
    assert 0.85 <= float(v.mean() / y.var()) <= 1.0


@pytest.fixture(scope="module")
def per_headline() -> tuple[ic.HeadlineCell, ...]:
    return ic.per_headline()


def test_a_headline_of_its_kinds_typical_spread_is_covered_at_least_nominally(
    per_headline: tuple[ic.HeadlineCell, ...],
) -> None:
    """With spreads as unequal as the stored ones, the kind's prior is weak (small d₀): a
    typical headline is covered 93 % or more at every k, never much less."""
    assert all(c.moderated >= LOW for c in per_headline if c.factor == 1.0)


def test_a_headlines_own_sessions_cover_it_whatever_its_spread(
    per_headline: tuple[ic.HeadlineCell, ...],
) -> None:
    """The per-headline check is sound: t over its own sessions is exact for any spread."""
    own = [c.plain_t for c in per_headline if c.sessions >= 2]
    assert all(LOW <= c <= HIGH for c in own)
