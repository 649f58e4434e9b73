"""Counts and shares the pages print, worked out by hand (D-9: lost draws kept out)."""

from __future__ import annotations

from driftproof.receipt import Draw
from driftproof.receipt._model_draw import Lost
from driftproof.stats.rates import fired_counts, percent_of, share


def _draw(fired: bool | None, lost: bool = False) -> Draw:
    return Draw.model_construct(skill_fired=fired, lost=Lost(reason="timeout") if lost else None)


def test_counts_keep_lost_and_unobserved_draws_out() -> None:
    draws = [_draw(True), _draw(False), _draw(None), _draw(True, lost=True), _draw(True)]
    # measured and observed: True, False, True -> 2 fired of 3
    assert fired_counts(draws) == (2, 3)
    # with the lost draw: True, False, True, True -> 3 of 4
    assert fired_counts(draws, lost_too=True) == (3, 4)
    assert fired_counts([]) == (0, 0)


def test_share_and_percent() -> None:
    assert share(1, 4) == 0.25
    assert percent_of(1, 4) == 25.0
    assert percent_of(2, 3) == 200 / 3
    assert share(0, 0) is None
    assert percent_of(0, 0) is None
