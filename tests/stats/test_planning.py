"""Planning from a pilot (issue 37, item 1): χ² quantiles against printed tables, the spread
bounds, the three outcomes of sizing a case and the simulated chance of a verdict, by hand."""

from __future__ import annotations

import math

import pytest

from driftproof.stats.planning import (
    chi2_quantile,
    p_verdict,
    size_case,
    spread_bound,
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
    assert chi2_quantile(p, df) == pytest.approx(table, rel=2e-4)


def test_chi2_quantile_two_degrees_is_closed_form() -> None:
    # χ² with 2 degrees of freedom is exponential with mean 2: the p quantile is −2·ln(1 − p)
    assert chi2_quantile(0.2, 2) == pytest.approx(-2 * math.log(0.8), rel=1e-10)


def test_spread_bound_from_three_draws() -> None:
    # sd .01 over 3 draws, upper 80% bound: .01·√(2/χ²₀.₂(2)) = .01·√(2/0.446287) = .0211693
    assert spread_bound(0.01, 3, 0.8) == pytest.approx(0.0211693, rel=1e-5)


def test_no_count_only_when_even_the_lower_bounds_reach_the_floor() -> None:
    # sd .10 over 3 draws: lower 80% bound .10·√(2/χ²₀.₈(2)) = .10·√(2/3.21888) = .0788 per arm,
    # .158 together ≥ .05
    z = size_case(0.10, 3, 0.10, 3)
    assert z.no_draw_count and z.draws is None and not z.undecided


def test_a_pilot_that_cannot_tell_is_asked_to_grow() -> None:
    # sd .0175 over 3 draws: lower bounds .0138 each (.0276 < .05), upper .0370 each (.0741 ≥
    # .05). Held sum .035: upper bound at 6 draws .035/√(χ²₀.₂(5)/5) = .035/√(2.3425/5) = .0511,
    # at 7 draws .035/√(3.0701/6) = .0489 < .05 → grow to 7
    z = size_case(0.0175, 3, 0.0175, 3)
    assert z.undecided and z.draws is None and z.pilot_draws == 7


def test_count_from_a_large_pilot() -> None:
    """sd .01 over 50 draws per arm. Upper 80% bound: .01/√(χ²₀.₂(49)/49) with χ²₀.₂(49) =
    40.54 (Wilson-Hilferty), i.e. .010994. Each arm's run spread at its 95% point over n draws:
    .010994·√(χ²₀.₉₅(n−1)/(n−1)). n = 6: √(11.0705/5) = 1.48799 → .016359; resolution .032718 +
    2·√(2·.016359²/6) = .051609 ≥ .05. n = 7: √(12.5916/6) = 1.44866 → .015927; .031854 +
    2·√(2·.015927²/7) = .048880 < .05. So 7 draws per arm keep a run with no effect from reading
    underpowered at least 90% of the time. At a lift of .075, 3 draws already suffice: 97.5%
    points √(7.3778/2)·.010994 = .021116 per arm, lift lower point .075 − 1.645·√(2·.010994²/3)
    = .060234 > .042232 and ≥ .05. The spreads held (.01) give 6 by the same test (n = 5:
    .050283, n = 6: .046942), and 7 is not over 4 × 6, so the count stands: 7."""
    z = size_case(0.01, 50, 0.01, 50)
    assert z.bounds[0] == pytest.approx(0.010994, rel=2e-4)
    assert z.draws == 7 and not z.undecided and not z.no_draw_count and z.effect_sized


def test_a_count_set_by_a_loose_pilot_is_not_planned() -> None:
    # sd .01 over 3 draws: bounds .0212 each; the count from them is in the hundreds, against 6
    # from the spreads held: the pilot grows to twice its draws first
    z = size_case(0.01, 3, 0.01, 3)
    assert z.undecided and z.pilot_draws == 6 and z.draws is None


def test_p_verdict_against_a_closed_form() -> None:
    # no lift, 2 draws per arm, spread 10 (the floor immaterial): "improved" is Z0 > |Z_A| +
    # |Z_B| for three independent standard normals, whose chance is atan(1/(2√2))/π = 0.108173
    # (tests/stats/test_false_alarms.py); Monte Carlo sd at 20,000 runs 0.0022
    p = p_verdict(0.5, 10.0, 10.0, 2, 0.0, trials=20_000)
    assert p == pytest.approx(math.atan(1 / (2 * math.sqrt(2))) / math.pi, abs=0.0066)


def test_p_verdict_with_no_spread() -> None:
    # spread 0: every draw at its mean; a lift of .075 separates and clears the floor every time,
    # a lift of .03 separates but stays below the floor, so never "improved"
    assert p_verdict(0.5, 0.0, 0.0, 3, 0.075) == 1.0
    assert p_verdict(0.5, 0.0, 0.0, 3, 0.03) == 0.0


def test_p_verdict_is_deterministic() -> None:
    args = (0.6, 0.02, 0.02, 5, 0.075)
    assert p_verdict(*args) == p_verdict(*args)
