"""The one mean and variance helper (issue 18, item 2), with values worked out by hand."""

from __future__ import annotations

import math
import statistics

import pytest

from driftproof.stats import band_of_scores, mean_delta, mean_of, mean_sd, mean_var


def test_mean_and_sample_variance_by_hand() -> None:
    # [1, 2, 4]: mean 7/3; squared deviations 16/9 + 1/9 + 25/9 = 42/9, over n − 1 = 2: 7/3
    mean, var = mean_var([1.0, 2.0, 4.0])
    assert mean == pytest.approx(7 / 3, abs=1e-15) and var == pytest.approx(7 / 3, abs=1e-15)
    assert mean_sd([1.0, 2.0, 4.0])[1] == pytest.approx(math.sqrt(7 / 3), abs=1e-15)


def test_undefined_moments_are_none() -> None:
    assert mean_of([]) is None and mean_var([]) == (None, None) and mean_sd([]) == (None, None)
    assert mean_var([0.4]) == (0.4, None) and mean_sd([0.4]) == (0.4, None)


def test_the_helper_agrees_with_exact_fractions_on_judge_scores() -> None:
    # statistics.variance works in exact fractions: the helper matches it to a few ulps
    scores = [0.85, 0.9, 0.8, 0.95, 0.85, 0.75, 0.9]
    assert mean_var(scores)[1] == pytest.approx(statistics.variance(scores), rel=1e-14)
    assert mean_sd(scores)[1] == pytest.approx(statistics.stdev(scores), rel=1e-14)


def test_values_near_the_float_range_are_scaled_not_lost() -> None:
    # [0, 2^1023]: mean 2^1022; sd = 2^1023 / √2 (finite); variance 2^2045 is past the range
    x = 2.0**1023
    mean, sd = mean_sd([0.0, x])
    assert mean == 2.0**1022 and sd == pytest.approx(x / math.sqrt(2), rel=1e-15)
    assert mean_var([0.0, x]) == (2.0**1022, math.inf)


def test_mean_delta_is_b_minus_a_or_none() -> None:
    a, b = band_of_scores([0.5, 0.6]), band_of_scores([0.8, 0.9])
    assert mean_delta(a, b) == pytest.approx(0.3, abs=1e-15)
    assert mean_delta(band_of_scores([None], lost_reasons=["timeout"]), b) is None
