"""Lost draws in the receipt-wide band (D-8, D-9), worked by hand.

Every arm here measures two draws at .50 (mean .50, sd 0), so the spread across cases is 0 and
only the widening for lost draws moves the band. One lost draw of three moves its arm's mean by
at most 1/3 · max(.50 − 0, 1 − .50) = 1/6 on the judge scale 0 to 1.
"""

from __future__ import annotations

import math

import pytest

from driftproof.stats import band_of_scores, receipt_band_of
from driftproof.wording import NOT_ENOUGH_DRAWS

FLAT = [0.50, 0.50]
LOST = [0.50, 0.50, None]


def test_two_lost_cases_widen_by_the_root_of_their_summed_squares() -> None:
    # N = 3 cases; with-skill moves 1/6, 1/6, 0: widening sqrt((1/6)² + (1/6)²) / sqrt(3 − 1)
    # = (1/6)·sqrt(2)/sqrt(2) = 1/6; band sqrt((0 + 1/6)² + 0²) = 1/6 ≥ .05 → UNDERPOWERED,
    # and lost draws force "Not enough draws …".
    pairs = [
        (band_of_scores(LOST), band_of_scores(FLAT)),
        (band_of_scores(LOST), band_of_scores(FLAT)),
        (band_of_scores(FLAT), band_of_scores(FLAT)),
    ]
    rb = receipt_band_of(pairs)
    assert rb is not None
    assert rb.widening_with == pytest.approx(1 / 6)
    assert rb.widening_baseline == 0.0
    assert rb.band == pytest.approx(1 / 6)
    assert rb.underpowered and rb.sentence == NOT_ENOUGH_DRAWS


def test_lost_draws_on_an_unrecorded_scale_could_move_a_mean_any_distance() -> None:
    # No judge scale: a lost draw bounds nothing, so the mean could move without limit and the
    # band cannot be under the floor; its sentence is forced to "Not enough draws …".
    pairs = [
        (band_of_scores(LOST), band_of_scores(FLAT)),
        (band_of_scores(FLAT), band_of_scores(FLAT)),
    ]
    rb = receipt_band_of(pairs, scale=None)
    assert rb is not None
    assert math.isinf(rb.band)
    assert rb.underpowered and rb.sentence == NOT_ENOUGH_DRAWS
