"""The test across cases over both arms that guards the pooled levels (D-5 planning), by hand.

A suite whose cases sit at two spreads is pooled by each arm's own test from 3-draw pilots more
often than not, and its pooled spread fits neither half; the test across cases, on each case's
variance over both arms, has twice the degrees of freedom per case.
"""

from __future__ import annotations

import math

import pytest

from driftproof.stats.planning import (
    across_cases,
    arm_levels,
    pool_arm,
    pool_arms,
    size_case,
)


def _chi2_sf_9(x: float) -> float:
    """P(χ²₉ ≥ x) by Abramowitz & Stegun 26.4.4 (odd degrees of freedom), independent of ours.

    ``2·Q(√x) + 2·φ(√x)·(√x + x^(3/2)/3 + x^(5/2)/15 + x^(7/2)/105)``.
    """
    c = math.sqrt(x)
    phi = math.exp(-x / 2.0) / math.sqrt(2.0 * math.pi)
    return math.erfc(c / math.sqrt(2.0)) + 2.0 * phi * (c + c**3 / 3.0 + c**5 / 15.0 + c**7 / 105.0)


# five cases at sd .01 and five at .04, both arms, 3 draws each
MIXED = [(0.01, 3, 0.01, 3)] * 5 + [(0.04, 3, 0.04, 3)] * 5


def test_two_cases_across_both_arms_by_hand() -> None:
    """Two cases across both arms, by hand.

    Sds .01 and .02 in both arms over 3 draws. Each arm's pooled variance (2·.0001 + 2·.0004)/4
    = .00025; scaled variances over both arms (2·.0001/.00025 + 2·.0001/.00025)/4 = .4 and 1.6,
    4 degrees of freedom each. Bartlett: ν = 8, pooled 1.0; 8·ln 1 − 4·ln .4 − 4·ln 1.6 =
    −4·ln .64 = 1.785148; C = 1 + (1/4 + 1/4 − 1/8)/3 = 1.125; T = 1.586798; P(χ²₁ ≥ T) =
    erfc(√(T/2)) = .20778 (each arm alone: T = .714059, p = .398).
    """
    t, p = across_cases([(0.01, 3, 0.01, 3), (0.02, 3, 0.02, 3)])  # type: ignore[misc]
    assert t == pytest.approx(1.586798, rel=1e-5)
    assert p == pytest.approx(math.erfc(math.sqrt(1.586798 / 2)), rel=1e-5)
    assert p == pytest.approx(0.20778, abs=1e-4)


def test_a_mixed_pilot_is_not_pooled_by_hand() -> None:
    """A mixed pilot that each arm's own test pools is not pooled.

    Each arm: five variances .0001 and five .0016, 2 degrees of freedom each: ν = 20, S² =
    .00085; ν·ln S² − Σν_i·ln s_i² = 10·ln(.00085²/(.0001·.0016)) = 10·ln 4.515625 = 15.07543;
    C = 1 + (10/2 − 1/20)/27 = 1.183333; T = 12.7398, P(χ²₉ ≥ T) = .1747 ≥ .05: pooled alone.
    Across both arms each case's scaled variance is .0001/.00085 or .0016/.00085 on 4 degrees
    of freedom: T = 20·ln 4.515625/(1 + (10/4 − 1/40)/27) = 30.15086/1.091667 = 27.6191,
    P(χ²₉ ≥ T) = .0011 < .05: not pooled.
    """
    alone = pool_arm([(0.01, 3)] * 5 + [(0.04, 3)] * 5)
    assert alone is not None and alone.pooled
    assert alone.statistic == pytest.approx(12.7398, rel=1e-4)
    assert alone.p == pytest.approx(_chi2_sf_9(12.7398), rel=1e-3)
    t, p = across_cases(MIXED)  # type: ignore[misc]
    assert t == pytest.approx(27.6191, rel=1e-4)
    assert p == pytest.approx(_chi2_sf_9(27.6191), rel=1e-3)
    assert p == pytest.approx(0.0011, abs=1e-4)
    w, b = pool_arms(MIXED)
    assert w is not None and b is not None and not w.pooled and not b.pooled
    assert w.across == pytest.approx(p)


def test_the_quiet_cases_of_a_mixed_pilot_keep_a_count() -> None:
    """The quiet cases of a mixed pilot keep a count.

    Pooled by each arm's own test, every case would be planned from sd .029155 (√.00085) over
    20 degrees of freedom: its median-unbiased value .029155/√(χ²₀.₅(20)/20) = .029155/√(19.3374
    /20) = .029650 per arm, .0593 together, reaches the floor, and the sd .01 cases would be
    named as having no count. Not pooled, an sd .01 case is planned from its own spreads (220
    draws per arm, tests/stats/test_planning.py), and an sd .04 case's lower 80% bounds
    .04·√(χ²₀.₈(2)/2)⁻¹ = .04/1.26864 = .03153 each, .0631 together, still reach the floor.
    """
    alone = pool_arm([(0.01, 3)] * 5 + [(0.04, 3)] * 5)
    assert size_case(0.01, 3, 0.01, 3, pools=(alone, alone)).no_draw_count
    pools = pool_arms(MIXED)
    quiet = size_case(0.01, 3, 0.01, 3, pools=pools)
    assert quiet.draws == 220 and not quiet.no_draw_count
    assert quiet == size_case(0.01, 3, 0.01, 3)
    assert size_case(0.04, 3, 0.04, 3, pools=pools).no_draw_count


def test_pooled_spreads_in_doubt_ask_for_a_larger_pilot() -> None:
    """Pooled spreads in doubt ask for a larger pilot.

    Five cases at sd .013 and five at .034, both arms, 3 draws. Each arm alone: variances
    .000169 and .001156, S² = .0006625 (sd .025739); T = 10·ln(.0006625²/(.000169·.001156))/
    1.183333 = 10·.809417/1.183333 = 6.8402, p = .654: pooled. Across both arms: T =
    16.18834/1.091667 = 14.8291, P(χ²₉ ≥ T) = .0957: between 5% and 15%, so in doubt. Agreed,
    the upper 60% bounds .025739·√(20/17.8088) = .027277 each and the median-unbiased values
    .025739/√(19.3374/20) = .026176 each (.0524 together) would name every case as having no
    count. In doubt: upper 80% bounds .025739·√(20/14.5784) = .030148 each (.0603 ≥ .05) and
    lower 70% bounds .025739/√(22.7745/20) = .024120 each (.0482 < .05): the pilot cannot tell.
    """
    spreads = [(0.013, 3, 0.013, 3)] * 5 + [(0.034, 3, 0.034, 3)] * 5
    t, p = across_cases(spreads)  # type: ignore[misc]
    assert t == pytest.approx(14.8291, rel=1e-4)
    assert p == pytest.approx(_chi2_sf_9(14.8291), rel=1e-3)
    w, b = pool_arms(spreads)
    assert w is not None and w.pooled and not w.agrees and w.level == 0.8
    assert w.p == pytest.approx(0.654, abs=1e-3)
    z = size_case(0.013, 3, 0.013, 3, pools=(w, b))
    assert z.bounds[0] == pytest.approx(0.030148, rel=1e-4)
    assert z.undecided and not z.no_draw_count and z.pilot_draws is not None
    alone = pool_arm([(0.013, 3)] * 5 + [(0.034, 3)] * 5)
    assert size_case(0.013, 3, 0.013, 3, pools=(alone, alone)).no_draw_count


def test_the_levels_of_an_arm() -> None:
    """The levels of an arm: own, pooled and agreeing, pooled in doubt, under 20 df, replaced."""
    assert arm_levels(2, None) == (0.8, 0.8)
    assert arm_levels(20, True) == (0.6, 0.5)
    assert arm_levels(20, False) == (0.8, 0.7)
    assert arm_levels(19, True) == (0.8, 0.8)
    assert arm_levels(20, True, 0.7) == (0.7, 0.7)


def test_from_five_draws_the_test_across_cases_only_puts_pools_in_doubt() -> None:
    """From 5 draws per arm the test across cases only puts the pooled spreads in doubt.

    Five cases at sd .01 and five at .023, both arms, 5 draws (4 degrees of freedom per case and
    arm). Variances .0001 and .000529, L = ln(((.0001 + .000529)/2)²/(.0001·.000529)) =
    ln 1.869787 = .625824. Each arm alone: T = 20·L/(1 + (10/4 − 1/40)/27) = 12.51648/1.091667
    = 11.4655, p = .245: pooled. Across both arms, 8 degrees of freedom per case: T = 40·L/(1 +
    (10/8 − 1/80)/27) = 25.03296/1.045833 = 23.9359, p = .0044 < .05: in doubt (bounded at 80%),
    not kept apart.
    """
    w, b = pool_arms([(0.01, 5, 0.01, 5)] * 5 + [(0.023, 5, 0.023, 5)] * 5)
    assert w is not None and b is not None and w.across is not None
    assert w.statistic == pytest.approx(11.4655, rel=1e-4)
    assert w.p == pytest.approx(_chi2_sf_9(11.4655), rel=1e-3)
    assert w.across == pytest.approx(_chi2_sf_9(23.9359), rel=1e-3)
    assert w.across == pytest.approx(0.0044, abs=1e-4)
    assert w.pooled and not w.agrees and w.level == 0.8 and b.pooled and not b.agrees
