"""The sheet's variance split and control difference as printed, worked out by hand (surviving
mutants)."""

from __future__ import annotations

from factories import case, make_receipt

from driftproof.pages.sheet import _split_words, sheet
from driftproof.receipt import Receipt
from driftproof.stats.context import SpreadSplit


def test_a_variance_split_prints_five_places_and_whole_percent_shares() -> None:
    # 0.01 of 0.04 is the judge's: 25% judge, 75% draw to draw.
    s = SpreadSplit("c1", "with_skill", 3, 0.04, 0.01, 0.03, None)
    assert _split_words(s) == (
        "variance 0.04000: judge samples 0.01000, draw to draw 0.03000 (25% judge, 75% draw)"
    )
    # A judge part equal to the whole is all judge, not "more than the whole".
    s = SpreadSplit("c1", "with_skill", 3, 0.01, 0.01, 0.0, None)
    assert _split_words(s).endswith("draw to draw 0.00000 (100% judge, 0% draw)")


def test_a_judge_part_over_the_whole_is_called_noise() -> None:
    s = SpreadSplit("c1", "baseline", 3, 0.01, 0.02, 0.0, None)
    assert _split_words(s) == (
        "variance 0.01000: the judge samples' part, 0.02000, is more than the whole, so at "
        "3 draws this split is noise"
    )
    assert _split_words(SpreadSplit("c1", "baseline", 1, None, None, None, "one draw")) == (
        "unavailable: one draw"
    )


def test_a_receipt_with_no_control_arm_has_no_control_difference() -> None:
    r = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7], [0.4, 0.6])]))
    assert sheet(r).control_delta is None
