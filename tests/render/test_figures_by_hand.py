"""Chances, p-values and an arm's band as the plan and the run summary print them, worked out by
hand (surviving mutants)."""

from __future__ import annotations

from driftproof.render.plan import _p_text, _pct
from driftproof.render.run_summary import _arm
from driftproof.stats.band import band_of_scores


def test_a_chance_is_a_whole_percent_between_1_and_99_and_said_in_words_past_them() -> None:
    assert _pct(0.01) == "1%" and _pct(0.99) == "99%" and _pct(0.456) == "46%"
    assert _pct(0.995) == "over 99%" and _pct(0.005) == "under 1%"


def test_a_p_value_has_three_places_down_to_0_001() -> None:
    assert _p_text(0.001) == "p = 0.001" and _p_text(0.0456) == "p = 0.046"
    assert _p_text(0.0009) == "p under 0.001"


def test_an_arms_band_in_the_run_summary() -> None:
    # Draws 0.5, 0.7 and a lost one: mean 0.6, sd sqrt((0.01 + 0.01) / 1) = 0.1414.
    assert _arm(band_of_scores([0.5, 0.7, None])) == "0.600 \u00b1 0.141 (3 draws, 1 lost)"
    assert _arm(band_of_scores([0.25])) == "0.250 (1 draw)"
    assert _arm(band_of_scores([None])) == "n/a (1 draw, 1 lost)"
