"""A case's arm against its threshold: pass, fail or borderline from its band (method: "the
case outcome still comes from the mean and spread of its scores against the threshold … so a
mean exactly at the threshold reads borderline"). Every band below is three scores a, a + 0.05,
a + 0.10: mean a + 0.05, sample sd 0.05 (worked by hand: deviations ±0.05 and 0, sum of
squares 0.005, over n − 1 = 2, square root 0.05)."""

from __future__ import annotations

import pytest

from driftproof.stats.band import band_of_scores, threshold_outcome


def _band(mean: float) -> list[float]:
    return [mean - 0.05, mean, mean + 0.05]


@pytest.mark.parametrize(
    ("mean", "threshold", "outcome"),
    [
        (0.80, 0.70, "pass"),  # 0.75 to 0.85: wholly above
        (0.70, 0.70, "borderline"),  # the mean at the threshold
        (0.74, 0.70, "borderline"),  # 0.69 to 0.79: straddles
        (0.60, 0.70, "fail"),  # 0.55 to 0.65: wholly below
        (0.75, 0.70, "borderline"),  # lower edge 0.75 − 0.05 is the threshold: reaches it
        (0.65, 0.70, "borderline"),  # upper edge 0.65 + 0.05 is the threshold: reaches it
        # in floats these edges land 1e-16 past 0.75, within the 1e-9 tolerance: they reach it
        (0.80, 0.75, "borderline"),
        (0.70, 0.75, "borderline"),
        (0.76, 0.70, "pass"),  # lower edge 0.71
        (0.64, 0.70, "fail"),  # upper edge 0.69
    ],
)
def test_outcome_against_the_threshold(mean: float, threshold: float, outcome: str) -> None:
    band = band_of_scores(_band(mean))
    assert band.sd == pytest.approx(0.05)
    assert threshold_outcome(band, threshold) == outcome


def test_no_outcome_without_a_threshold_or_a_spread() -> None:
    assert threshold_outcome(band_of_scores(_band(0.80)), None) is None
    # one measured draw (the other lost) has no spread: no band to hold against the threshold
    assert threshold_outcome(band_of_scores([1.0, None]), 1.0) is None
    assert threshold_outcome(band_of_scores([None, None]), 0.5) is None


@pytest.mark.parametrize(
    ("scores", "threshold", "outcome"),
    [
        # 0.80 ± 0.05 measured, pass at 0.70; the lost draw at 0: .75 .80 .85 0, mean .60,
        # sd sqrt(.485 / 3) = .402, band .198 to 1.002: it reaches 0.70, so borderline
        ([0.75, 0.80, 0.85, None], 0.70, "borderline"),
        # .90 .95 1.0: at 0, mean .7125, sd sqrt(.681875 / 3) = .4768, low .2357; at 1, mean
        # .9625, sd .0479, low .9146: both above 0.20, pass; 0.30 is reached at 0: borderline
        ([0.90, 0.95, 1.00, None], 0.20, "pass"),
        ([0.90, 0.95, 1.00, None], 0.30, "borderline"),
        # 0 .05 .10: at 1, mean .2875, sd .4768, high .7643; at 0, high .0854: fail under 0.80
        ([0.00, 0.05, 0.10, None], 0.80, "fail"),
        ([0.00, 0.05, 0.10, None], 0.75, "borderline"),
    ],
)
def test_an_arm_that_lost_draws_keeps_pass_or_fail_only_at_every_score_they_could_have_had(
    scores: list[float | None], threshold: float, outcome: str
) -> None:
    # found: 0.800 ± 0.050 (n = 3, 1 lost) read "pass against threshold 0.700", where the lost
    # draw at the scale's worst score leaves a band that reaches it (as D-9 holds a verdict)
    band = band_of_scores(scores)
    assert threshold_outcome(band, threshold, (0.0, 1.0)) == outcome
    assert threshold_outcome(band, threshold) == "borderline"  # no scale: cannot be completed
