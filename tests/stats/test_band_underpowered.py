"""Bands (D-2) and the underpowered test with its draw count (D-5), against hand-worked values."""

from __future__ import annotations

import math

import pytest
from stats_helpers import load_vectors

from driftproof.stats import Band, band_of_scores, draws_needed, resolution, se_diff
from driftproof.stats.band import mean_sd

OC = load_vectors().get("operating_characteristics_beyond_rule", {})


def test_band_is_mean_plus_minus_sample_sd() -> None:
    # .60 .62 .61: mean 1.83/3 = .61; SS = .0001+.0001+0 = .0002; var = .0002/2 = .0001; sd = .01
    b = band_of_scores([0.60, 0.62, 0.61])
    assert b.mean == pytest.approx(0.61, abs=1e-12)
    assert b.sd == pytest.approx(0.01, abs=1e-12)
    assert (b.low, b.high) == pytest.approx((0.60, 0.62), abs=1e-12)
    assert (b.n, b.drawn, b.lost, b.source) == (3, 3, 0, "generation")


def test_lost_draws_are_left_out_and_counted() -> None:
    # .74 .75 and one lost: mean .745, sd = sqrt(2·.005²/1) = .0070711 (D-9: lost left out)
    b = band_of_scores([0.74, None, 0.75], lost_reasons=["timeout"])
    assert b.mean == pytest.approx(0.745)
    assert b.sd == pytest.approx(math.sqrt(2 * 0.005**2))
    assert (b.n, b.drawn, b.lost, b.lost_reasons) == (2, 3, 1, ("timeout",))


def test_one_draw_has_no_spread_and_none_has_no_mean() -> None:
    one = band_of_scores([0.8])
    assert (one.mean, one.sd, one.low, one.high) == (0.8, None, None, None)
    none = band_of_scores([None, None])
    assert (none.mean, none.sd, none.n, none.lost) == (None, None, 0, 2)
    assert mean_sd([]) == (None, None)


def test_bad_scores_are_refused() -> None:
    with pytest.raises(ValueError):
        band_of_scores([0.5, math.nan])
    with pytest.raises(ValueError):
        band_of_scores([0.5, None], lost_reasons=["a", "b"])


def test_band_is_frozen() -> None:
    b = Band(0.5, 0.1, 3, 3, 0, (), "generation")
    with pytest.raises(AttributeError):
        b.mean = 0.6  # type: ignore[misc]


def test_resolution_c5_by_hand() -> None:
    # C5: sd .015275 each, n 3: SE = sqrt(2·.015275²/3) = .012472;
    # metric = .030551 + .024944 = .055495
    s = math.sqrt(0.0004667 / 2)
    assert se_diff(s, 3, s, 3) == pytest.approx(math.sqrt(2 * s * s / 3))
    assert resolution(s, 3, s, 3) == pytest.approx(2 * s + 2 * math.sqrt(2 * s * s / 3))
    with pytest.raises(ValueError):
        se_diff(0.1, 0, 0.1, 3)


@pytest.mark.parametrize(
    ("sd", "expected"),
    [
        (0.005, 2),
        (0.010, 2),
        (0.0125, 3),
        (0.015, 5),
        (0.0175, 11),
        (0.020, 33),
        (0.0225, 163),
        (0.024, 1153),
        (0.025, None),
        (0.030, None),
    ],
)
def test_draws_needed_equal_spreads(sd: float, expected: int | None) -> None:
    """STATISTICS-NOTES 6.3: n = max(2, ⌊4·2sd²/(0.05 − 2sd)²⌋ + 1); 0.0125 gives X = 2 exactly,
    and since the rule is strict (< 0.05) 2 draws are not enough: 3."""
    n, none = draws_needed(sd, sd)
    assert n == expected
    assert none == (expected is None)


@pytest.mark.skipif(not OC, reason="../shared/cases/verdicts.json is not laid beside this checkout")
def test_draws_needed_matches_the_published_table() -> None:
    for row in OC["draws_needed_equal_sd"]:
        assert draws_needed(row["sd_each_arm"], row["sd_each_arm"])[0] == row["draws_needed"]


def test_draws_needed_is_the_smallest_count() -> None:
    # C5's spreads: X = 4.935, so 5 draws (.04987 < .05) and not 4 (.05215)
    s = math.sqrt(0.0004667 / 2)
    n, _ = draws_needed(s, s)
    assert n == 5
    assert 2 * s + 2 * math.sqrt(2 * s * s / 5) < 0.05 <= 2 * s + 2 * math.sqrt(2 * s * s / 4)


def test_zero_spread_needs_two_draws() -> None:
    assert draws_needed(0.0, 0.0) == (2, False)


def test_spreads_at_the_floor_reach_no_count() -> None:
    # sd_A + sd_B = .05 computed in floats (.02 + .03) is at the floor: no count (D-3, D-5)
    assert draws_needed(0.02, 0.03) == (None, True)
    assert draws_needed(0.06, 0.0) == (None, True)
