"""Edges of the verdict rule and of the draws needed, worked by hand from D-3 to D-5.

Each case pins one comparison a careless edit could move: the 1e-9 tolerance at its exact edge,
the floor reached within the tolerance, unequal spreads in the draws needed, and a separated
case that stays off the underpowered list. Bands of two equal scores have sd 0 and a mean equal
to that score exactly (2·x/2 is exact in floats).
"""

from __future__ import annotations

import math

from driftproof.stats import band_of_scores, case_verdict, draws_needed
from driftproof.stats.codes import VerdictCode


def test_a_gap_of_exactly_the_tolerance_still_touches() -> None:
    # D-3: bands that touch overlap, compared within 1e-9. A = .0 ± 0, B = 1e-9 ± 0:
    # |Δ| − sd_A − sd_B = 1e-9, within the tolerance → not separated; resolution 0 < .05 →
    # no separation (D-5), not "below effect floor".
    v = case_verdict(band_of_scores([0.0, 0.0]), band_of_scores([1e-9, 1e-9]))
    assert v.delta == 1e-9
    assert not v.separated
    assert v.verdict == VerdictCode.NO_SEPARATION


def test_a_lift_at_the_floor_less_the_tolerance_meets_the_floor() -> None:
    # D-3: |Δ| ≥ .05 within 1e-9. A = .0 ± 0, B = (.05 − 1e-9) ± 0: separated (Δ > 1e-9), and
    # |Δ| is within 1e-9 of the floor → improved.
    edge = 0.05 - 1e-9
    v = case_verdict(band_of_scores([0.0, 0.0]), band_of_scores([edge, edge]))
    assert v.delta == edge
    assert v.verdict == VerdictCode.IMPROVED


def test_spreads_at_the_floor_less_the_tolerance_reach_it() -> None:
    # D-5 with D-3: sd_A + sd_B = .05 − 1e-9 is within 1e-9 of the floor → no draw count.
    assert draws_needed(0.05 - 1e-9, 0.0) == (None, True)
    assert draws_needed(0.0, 0.05 - 1e-9) == (None, True)


def test_draws_needed_with_unequal_spreads() -> None:
    # D-5: smallest n ≥ 2 with sd_A + sd_B + 2·sqrt((sd_A² + sd_B²)/n) < .05.
    # sd .02 and .005: sum .025, sd_A² + sd_B² = .0004 + .000025 = .000425.
    # n = 2: .025 + 2·sqrt(.0002125) = .025 + 2·.014577 = .054155 ≥ .05;
    # n = 3: .025 + 2·sqrt(.00014167) = .025 + 2·.011902 = .048805 < .05 → 3, either order.
    assert draws_needed(0.02, 0.005) == (3, False)
    assert draws_needed(0.005, 0.02) == (3, False)
    assert 0.025 + 2 * math.sqrt(0.000425 / 3) < 0.05 <= 0.025 + 2 * math.sqrt(0.000425 / 2)


def test_a_separated_case_is_never_underpowered() -> None:
    # D-4/D-5: the underpowered test qualifies only unseparated cases (example C2).
    # A .50 .60 (mean .55, sd .070711), B .90 1.0 (mean .95, sd .070711): Δ = .40 > .141421 →
    # separated, ≥ .05 → improved, though resolution .141421 + 2·sqrt(.005/2 + .005/2)
    # = .141421 + .141421 = .282843 ≥ .05.
    v = case_verdict(band_of_scores([0.50, 0.60]), band_of_scores([0.90, 1.0]))
    assert v.verdict == VerdictCode.IMPROVED
    assert v.resolution is not None and math.isclose(
        v.resolution, 2 * math.sqrt(0.02), rel_tol=1e-9
    )
    assert v.separated and not v.underpowered
