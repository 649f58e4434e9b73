"""Planning from a pilot (issue 37, item 1), by hand.

χ² quantiles against printed tables, the spread bounds, the three outcomes of sizing a case and the
simulated chance of a verdict, by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from driftproof.stats._chi2 import chi2_quantile
from driftproof.stats.planning import (
    arm_levels,
    bartlett,
    equal_spreads_no_count_chance,
    p_verdict,
    pool_arm,
    size_case,
)


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [
        (0.95, 4, 9.487729),  # NIST/SEMATECH e-Handbook, upper-tail critical values of χ²
        (0.05, 8, 2.732637),
        (0.975, 1000, 1089.531),
        (0.20, 6, 3.070),
        (0.80, 5, 7.289),
    ],
)
def test_chi2_quantile_matches_tables(p: float, df: int, table: float) -> None:
    """Chi2 quantile matches tables."""
    assert chi2_quantile(p, df) == pytest.approx(table, rel=2e-4)


def test_chi2_quantile_two_degrees_is_closed_form() -> None:
    """Chi2 quantile two degrees is closed form."""
    # χ² with 2 degrees of freedom is exponential with mean 2: the p quantile is −2·ln(1 − p)
    assert chi2_quantile(0.2, 2) == pytest.approx(-2 * math.log(0.8), rel=1e-10)


def test_no_count_only_when_even_the_lower_bounds_reach_the_floor() -> None:
    """No count only when even the lower bounds reach the floor."""
    # sd .10 over 3 draws: lower 80% bound .10·√(2/χ²₀.₈(2)) = .10·√(2/3.21888) = .0788 per arm,
    # .158 together ≥ .05
    z = size_case(0.10, 3, 0.10, 3)
    assert z.no_draw_count and z.draws is None and not z.undecided


def test_a_pilot_that_cannot_tell_is_asked_to_grow() -> None:
    """A pilot that cannot tell is asked to grow."""
    # sd .0175 over 3 draws: lower bounds .0138 each (.0276 < .05), upper .0370 each (.0741 ≥
    # .05). Held sum .035: upper bound at 6 draws .035/√(χ²₀.₂(5)/5) = .035/√(2.3425/5) = .0511,
    # at 7 draws .035/√(3.0701/6) = .0489 < .05 → grow to 7
    z = size_case(0.0175, 3, 0.0175, 3)
    assert z.undecided and z.draws is None and z.pilot_draws == 7


def test_count_from_a_large_pilot() -> None:
    """Count from a large pilot.

    sd .01 over 50 draws per arm. Upper 80% bound: .01/√(χ²₀.₂(49)/49) with χ²₀.₂(49) =
    40.54 (Wilson-Hilferty), i.e. .010994. Each arm's run spread at its 95% point over n draws:
    .010994·√(χ²₀.₉₅(n−1)/(n−1)). n = 6: √(11.0705/5) = 1.48799 → .016359; resolution .032718 +
    2·√(2·.016359²/6) = .051609 ≥ .05. n = 7: √(12.5916/6) = 1.44866 → .015927; .031854 +
    2·√(2·.015927²/7) = .048880 < .05. So 7 draws per arm keep a run with no effect from reading
    underpowered at least 90% of the time. At a lift of .075, 3 draws already suffice: 97.5%
    points √(7.3778/2)·.010994 = .021116 per arm, lift lower point .075 − 1.645·√(2·.010994²/3)
    = .060234 > .042232 and ≥ .05. The spreads held (.01) give 6 by the same test (n = 5:
    .050283, n = 6: .046942), and 7 is not over 4 × 6, so the count stands: 7.
    """
    z = size_case(0.01, 50, 0.01, 50)
    assert z.bounds[0] == pytest.approx(0.010994, rel=2e-4)
    assert z.draws == 7 and not z.undecided and not z.no_draw_count and z.effect_draws is not None


def test_a_count_set_by_a_loose_pilot_stands_with_advice() -> None:
    """A count set by a loose pilot stands with advice.

    sd .01 over 3 draws: bounds .0211693 each. Each arm's 95% point over n draws q =
    .0211693·√(χ²₀.₉₅(n−1)/(n−1)), resolution 2q(1 + √(2/n)). n = 220: χ²₀.₉₅(219) = 254.53
    (Wilson-Hilferty), q = .022822, .045644 × 1.095346 = .049996 < .05; n = 219: χ²₀.₉₅(218) =
    253.44, q = .022826, .045651 × 1.095563 = .050014 ≥ .05 → 220. The spreads held give 6, and
    220 > 4 × 6: the count still stands (issue 37: the count is the answer), with the advice that
    a pilot of twice the draws (6) would likely cut it. Before, the pilot was asked to grow and
    no count was given.
    """
    z = size_case(0.01, 3, 0.01, 3)
    assert z.draws == 220 and not z.undecided and z.pilot_draws is None
    assert z.larger_pilot == 6 and z.levels == (0.8, 0.8)


def test_level_depends_on_the_pooled_degrees_of_freedom() -> None:
    """Level depends on the pooled degrees of freedom."""
    assert arm_levels(19, True)[0] == 0.80 and arm_levels(20, True)[0] == 0.60
    assert arm_levels(49, None)[0] == 0.80  # one case's own spread keeps 80%


def test_ten_pooled_cases_are_planned_at_the_sixty_percent_bound() -> None:
    """Ten pooled cases are planned at the sixty percent bound.

    Ten cases, sd .019 in both arms over 3 draws each: pooled over 20 degrees of freedom, upper
    60% bound .019·√(20/χ²₀.₄(20)) = .019·√(20/17.8088) = .020135. Each arm's 95% point q =
    .020135·√(χ²₀.₉₅(n−1)/(n−1)), resolution 2q(1 + √(2/n)): n = 127: √(153.198/126) = 1.10266,
    q = .022202, .044404 × 1.125491 = .049976 < .05; n = 126: √(152.094/125) = 1.10306, q =
    .022210, .044420 × 1.125988 = .050016 ≥ .05 → 127 (the spreads held give 77, and 127 is
    not over 4 × 77: no advice). At the 80% level the upper bounds .019·√(20/14.5784) = .022254
    give a count over 4 × 77, and the old plan asked the pilot to grow to 6 instead.
    """
    q = pool_arm([(0.019, 3)] * 10)
    assert q is not None and q.pooled and q.df == 20
    z = size_case(0.019, 3, 0.019, 3, pools=(q, q))
    assert z.bounds[0] == pytest.approx(0.020135, rel=1e-4) and z.levels == (0.6, 0.6)
    assert z.draws == 127 and not z.undecided and z.larger_pilot is None
    z80 = size_case(0.019, 3, 0.019, 3, 0.075, 0.05, 0.8, pools=(q, q))
    assert z80.bounds[0] == pytest.approx(0.022254, rel=1e-4) and z80.larger_pilot == 6


@pytest.mark.parametrize("t", [1.0, 2.0])
def test_existence_error_rate_two_degrees_closed_form(t: float) -> None:
    """Existence error rate two degrees closed form.

    Over 2 degrees of freedom a sample sd is σ·√E with E ~ Exp(1), and P(√E₁ + √E₂ ≥ t) =
    e^(−t²) + t·√(π/2)·e^(−t²/2)·erf(t/√2) (integrate over √E₁ = u: ∫₀ᵗ 2u·e^(−u²−(t−u)²) du
    + e^(−t²)). t = 1: .367879 + 1.253314 × .606531 × .682689 = .886842; t = 2: .018316 +
    2.506628 × .135335 × .954500 = .342116. The lower 80% bound divides s by √(χ²₀.₈(2)/2), so
    a true sum S is named unresolvable when √E₁ + √E₂ ≥ 2·.05·√(χ²₀.₈(2)/2)/S = t.
    """
    total = 2 * 0.05 * math.sqrt(chi2_quantile(0.8, 2) / 2) / t
    want = {1.0: 0.886842, 2.0: 0.342116}[t]
    assert equal_spreads_no_count_chance(total, 2, 0.8) == pytest.approx(want, abs=2e-6)


def test_existence_error_rates_against_simulation() -> None:
    """Existence error rates against simulation.

    At 20 degrees of freedom per arm, the quadrature matches 400,000 simulated pairs of
    sample sds (standard error about .0004): a count at a sum of .040 (upper 60% bounds under
    the floor), none at .0625 and at .040 (lower 50% bounds at or over it).
    """
    rng = np.random.default_rng(7)
    sds = np.sqrt(rng.chisquare(20, size=(2, 400_000)) / 20)
    for total, upper, lv in ((0.04, True, 0.6), (0.0625, False, 0.5), (0.04, False, 0.5)):
        s = (total / 2) * sds
        p = 1 - lv if upper else lv
        f = math.sqrt(chi2_quantile(p, 20) / 20)
        bounds = (s[0] + s[1]) / f
        sim = float(np.mean(bounds < 0.05)) if upper else float(np.mean(bounds >= 0.05))
        got = equal_spreads_no_count_chance(total, 20, lv, upper=upper)
        assert got == pytest.approx(sim, abs=0.002)


def test_p_verdict_against_a_closed_form() -> None:
    """P verdict against a closed form."""
    # no lift, 2 draws per arm, spread 10 (the floor immaterial): "improved" is Z0 > |Z_A| +
    # |Z_B| for three independent standard normals, whose chance is atan(1/(2√2))/π = 0.108173
    # (tests/stats/test_false_alarms.py); Monte Carlo sd at 20,000 runs 0.0022
    p = p_verdict(0.5, 10.0, 10.0, 2, 0.0, trials=20_000)
    assert p == pytest.approx(math.atan(1 / (2 * math.sqrt(2))) / math.pi, abs=0.0066)


def test_p_verdict_with_no_spread() -> None:
    """P verdict with no spread."""
    # spread 0: every draw at its mean; a lift of .075 separates and clears the floor every time,
    # a lift of .03 separates but stays below the floor, so never "improved"
    assert p_verdict(0.5, 0.0, 0.0, 3, 0.075) == 1.0
    assert p_verdict(0.5, 0.0, 0.0, 3, 0.03) == 0.0


def test_p_verdict_is_deterministic() -> None:
    """P verdict is deterministic."""
    args = (0.6, 0.02, 0.02, 5, 0.075)
    assert p_verdict(*args) == p_verdict(*args)


def test_bartlett_two_samples_by_hand() -> None:
    """Bartlett two samples by hand.

    Variances .0001 and .0004, 2 degrees of freedom each: ν = 4, pooled S² = (2·.0001 +
    2·.0004)/4 = .00025. ν·ln S² − Σν_i·ln s_i² = 2·ln(.00025²/(.0001·.0004)) = 2·ln 1.5625 =
    .892574. Correction C = 1 + (1/2 + 1/2 − 1/4)/(3·1) = 1.25, so T = .714059. With one
    degree of freedom P(χ²₁ ≥ T) = erfc(√(T/2)) = erfc(.597519) = .39806.
    """
    t, p = bartlett([0.0001, 0.0004], [2, 2])
    assert t == pytest.approx(0.714059, rel=1e-5)
    assert p == pytest.approx(math.erfc(math.sqrt(0.714059 / 2)), rel=1e-5)
    assert p == pytest.approx(0.39806, abs=1e-4)


def test_bartlett_unequal_degrees_of_freedom_by_hand() -> None:
    """Bartlett unequal degrees of freedom by hand.

    Variances 1 and 4 with 1 and 3 degrees of freedom: ν = 4, S² = (1 + 12)/4 = 3.25.
    4·ln 3.25 − 1·ln 1 − 3·ln 4 = 4.714620 − 4.158883 = .555737; C = 1 + (1 + 1/3 − 1/4)/3 =
    1.361111; T = .408297, and P(χ²₁ ≥ T) = erfc(√(T/2)) = .52284.
    """
    t, p = bartlett([1.0, 4.0], [1, 3])
    assert t == pytest.approx(0.408297, rel=1e-5)
    assert p == pytest.approx(0.52284, abs=1e-4)


def test_bartlett_refuses_a_zero_variance() -> None:
    """Bartlett refuses a zero variance."""
    with pytest.raises(ValueError):
        bartlett([0.0, 1.0], [2, 2])


def test_pooled_bound_by_hand() -> None:
    """Pooled bound by hand.

    Spreads .01, .02, .02 over 3, 3, 5 draws: df 2, 2, 4 (ν = 8); pooled variance (2·.0001 +
    2·.0004 + 4·.0004)/8 = .000325, sd .0180278. Upper 80% bound .0180278·√(8/χ²₀.₂(8)) with
    χ²₀.₂(8) = 4.5936 (check: 1 − e^(−2.2968)·(1 + 2.2968 + 2.2968²/2 + 2.2968³/6) = .2000):
    .0180278·1.319666 = .023791. Bartlett: T = (8·ln .000325 − 2·ln .0001 − 6·ln .0004)/(1 +
    (1/2 + 1/2 + 1/4 − 1/8)/6) = (−64.25348 + 18.42068 + 46.94428)/1.1875 = 1.11148/1.1875 =
    .935983; two degrees of freedom: P = e^(−T/2) = .62626 ≥ .05, so the spreads are pooled.
    """
    q = pool_arm([(0.01, 3), (0.02, 3), (0.02, 5)])
    assert q is not None and q.pooled and q.df == 8 and q.cases == 3
    assert q.sd == pytest.approx(0.0180278, rel=1e-5)
    assert q.bound(0.8) == pytest.approx(0.023791, rel=2e-4)
    assert q.statistic == pytest.approx(0.935983, rel=1e-4)
    assert q.p == pytest.approx(0.62626, rel=1e-4)


def test_spreads_that_disagree_are_not_pooled() -> None:
    """Spreads that disagree are not pooled.

    Spreads .01 and .10 over 3 draws each: variances .0001 and .01, S² = .00505; T =
    2·ln(.00505²/(.0001·.01))/1.25 = 2·3.238776/1.25 = 5.18204; P(χ²₁ ≥ T) = erfc(√2.59102) =
    .02282 < .05.
    """
    q = pool_arm([(0.01, 3), (0.10, 3)])
    assert q is not None and not q.pooled
    assert q.p == pytest.approx(math.erfc(math.sqrt(5.18204 / 2)), rel=1e-4)
    assert q.p == pytest.approx(0.02282, abs=1e-4)


def test_a_zero_spread_enters_the_test_at_the_grid_rounding() -> None:
    """A zero spread enters the test at the grid rounding."""
    # one case's draws all equal: with the grid unknown the test cannot be taken (not pooled);
    # with a step of .01 it enters at .01²/12 = 8.33e-6 against .0001: T = 2·ln(S²²/(v₁v₂))/1.25
    # with S² = 5.41667e-5: 2·ln(2.93403e-9/8.33333e-10)/1.25 = 2·1.25874/1.25 = 2.01398,
    # P = erfc(√1.00699) = .15585 ≥ .05: pooled, from the raw variances (sd √.00005 = .0070711)
    assert pool_arm([(0.0, 3), (0.01, 3)]) is not None
    assert not pool_arm([(0.0, 3), (0.01, 3)]).pooled  # type: ignore[union-attr]
    q = pool_arm([(0.0, 3), (0.01, 3)], step=0.01)
    assert q is not None and q.pooled
    assert q.statistic == pytest.approx(2.01398, rel=1e-4)
    assert q.sd == pytest.approx(0.0070711, rel=1e-5)


def test_one_case_is_not_pooled() -> None:
    """One case is not pooled."""
    assert pool_arm([(0.01, 3)]) is None


def test_a_homogeneous_four_case_pilot_is_planned_from_the_pooled_spread() -> None:
    """A homogeneous four case pilot is planned from the pooled spread.

    Four cases, sd .01 in both arms over 3 draws each. Alone, a case asks the pilot to grow
    (test_a_count_set_by_a_loose_pilot_is_not_planned). Pooled: T = 0, p = 1; sd .01 over 8
    degrees of freedom; upper 80% bound .01·√(8/4.5936) = .0131967 per arm. Each arm's 95% point
    over n draws q = .0131967·√(χ²₀.₉₅(n−1)/(n−1)), resolution 2q(1 + √(2/n)):
    n = 11: √(18.307/10) = 1.35303, q = .017856, .050940 ≥ .05;
    n = 12: √(19.675/11) = 1.33740, q = .017649, .049710 < .05 → 12.
    At .075: n = 3 already (97.5% points .0131967·√(7.3778/2) = .025346 each, sum .050691;
    lift low .075 − 1.6449·.0131967·√(2/3) = .057276 > .050691 and ≥ .05). The spreads held
    give 6 and 12 ≤ 4 × 6, so every case gets 12.
    """
    q = pool_arm([(0.01, 3)] * 4)
    assert q is not None and q.pooled and q.df == 8
    z = size_case(0.01, 3, 0.01, 3, pools=(q, q))
    assert z.bounds[0] == pytest.approx(0.0131967, rel=2e-4)
    assert z.draws == 12 and not z.undecided and not z.no_draw_count and z.effect_draws is not None


def test_a_pool_that_disagrees_leaves_the_case_on_its_own_spread() -> None:
    """A pool that disagrees leaves the case on its own spread."""
    q = pool_arm([(0.01, 3), (0.10, 3)])
    assert q is not None and not q.pooled
    assert size_case(0.01, 3, 0.01, 3, pools=(q, q)) == size_case(0.01, 3, 0.01, 3)
