"""The exact paired test over cases (issue 37, item 3): hand-computed values, and the interval
checked against the sign-flip test's own definition by brute force."""

from __future__ import annotations

import itertools

import pytest

from driftproof.stats.paired import (
    ALPHA,
    MC_FLIPS,
    MIN_CASES,
    paired_test,
    sign_flip_interval,
    sign_test_p,
)


def test_sign_test_by_hand() -> None:
    # 7 up, 1 down: P(X ≤ 1) = (C(8,0) + C(8,1)) / 2⁸ = 9/256; two-sided 18/256
    assert sign_test_p(7, 1) == pytest.approx(18 / 256)
    # 6 up, 0 down: 2 · 1/64
    assert sign_test_p(6, 0) == pytest.approx(2 / 64)
    # 4 up, 4 down: 2 · (1+8+28+56+70)/256 = 326/256 → capped at 1
    assert sign_test_p(4, 4) == 1.0
    assert sign_test_p(0, 0) == 1.0


def test_six_cases_interval_is_min_to_max() -> None:
    # n = 6: k = ⌊64 · 0.025⌋ = 1, so the interval runs from the smallest subset mean (the
    # smallest value) to the largest; coverage 1 − 2/64 = 0.96875.
    t = paired_test([0.01, 0.02, 0.03, 0.04, 0.05, 0.06])
    assert (t.up, t.down, t.ties) == (6, 0, 0)
    assert t.sign_p == pytest.approx(0.03125)
    assert t.mean == pytest.approx(0.035)
    assert (t.low, t.high) == pytest.approx((0.01, 0.06))
    assert t.coverage == pytest.approx(0.96875)
    assert t.method == "exact"


def test_seven_cases_by_hand() -> None:
    # n = 7: k = ⌊128 · 0.025⌋ = 3. Smallest subset means: {−.02} −.02, {−.02,.01} −.005,
    # {−.02,.03} .005, then {−.02,.01,.03} .00667. Largest: {.10} .10, {.07,.10} .085,
    # {.05,.10} .075, then {.05,.07,.10} .07333. Coverage 1 − 6/128 = 0.953125.
    # Signs: 6 up, 1 down → 2·(1 + 7)/128 = 0.125.
    t = paired_test([-0.02, 0.01, 0.03, 0.04, 0.05, 0.07, 0.10])
    assert (t.low, t.high) == pytest.approx((0.005, 0.075))
    assert t.coverage == pytest.approx(0.953125)
    assert t.sign_p == pytest.approx(0.125)
    assert t.mean == pytest.approx(0.04)


def test_ties_are_left_out_of_the_sign_test_only() -> None:
    t = paired_test([0.0, 0.0, 0.03, 0.04, -0.01, 0.02])
    assert (t.up, t.down, t.ties) == (3, 1, 2)
    assert t.sign_p == pytest.approx(2 * 5 / 16)  # n = 4: 2·(1 + 4)/16
    assert t.low == pytest.approx(-0.01) and t.high == pytest.approx(0.04)


def test_below_the_minimum_nothing_is_computed() -> None:
    t = paired_test([0.1] * (MIN_CASES - 1))
    assert t.sign_p is None and t.low is None and t.high is None
    assert t.up == MIN_CASES - 1
    assert t.reason is not None and "below 6 cases" in t.reason
    with pytest.raises(ValueError, match="at least 6 cases"):
        sign_flip_interval([0.1] * 5)


def _upper_p(values: list[float], mu: float) -> float:
    """One-sided sign-flip p-value by its definition: the share of the 2ⁿ sign vectors whose
    flipped sum of (d − μ) is at least the observed sum."""
    centred = [v - mu for v in values]
    observed = sum(centred)
    hits = sum(
        1
        for signs in itertools.product((1, -1), repeat=len(values))
        if sum(s * c for s, c in zip(signs, centred, strict=True)) >= observed - 1e-12
    )
    return hits / 2 ** len(values)


@pytest.mark.parametrize(
    "values",
    [
        [0.12, -0.05, 0.30, 0.02, 0.07, -0.01, 0.04],
        [-0.2, 0.1, 0.05, 0.15, 0.0, 0.33, -0.04, 0.09],
    ],
)
def test_lower_end_is_where_the_sign_flip_test_stops_rejecting(values: list[float]) -> None:
    low, high, _, _ = sign_flip_interval(values)
    assert _upper_p(values, low - 1e-9) <= ALPHA / 2 < _upper_p(values, low)
    # the upper end mirrors it on the negated values
    neg = [-v for v in values]
    assert _upper_p(neg, -high - 1e-9) <= ALPHA / 2 < _upper_p(neg, -high)


def test_above_sixteen_cases_a_seeded_monte_carlo_says_so() -> None:
    # every value equal: every flipped subset has the same mean, so the interval is that value
    t = paired_test([0.03] * 17)
    assert t.method == "monte carlo" and t.coverage == pytest.approx(1 - ALPHA)
    assert (t.low, t.high) == pytest.approx((0.03, 0.03))
    values = [0.01 * ((i * 7) % 11) - 0.03 for i in range(20)]
    assert paired_test(values) == paired_test(values)  # seeded: the same every time
    assert MC_FLIPS == 19_999


def test_monte_carlo_flips_follow_the_documented_draw() -> None:
    # The method as the module documents it, written out on the whole (flips × n) matrix at
    # once: flip j flips case i when U[j, i] < 1/2, U = default_rng(37).random((19,999, n));
    # the interval is the k-th smallest and k-th largest flipped-set mean, k = ⌊20,000 · 0.025⌋
    # = 500. n = 100 needs two chunks of the product's draw, which must not change the stream.
    import numpy as np

    values = [0.01 * ((i * 37) % 23) - 0.08 for i in range(100)]
    flips = np.random.default_rng(37).random((19_999, 100)) < 0.5
    sizes = flips.sum(axis=1)
    means = sorted((flips[sizes > 0].astype(float) @ np.array(values)) / sizes[sizes > 0])
    assert len(means) == 19_999  # no empty flip at n = 100
    t = paired_test(values)
    assert (t.low, t.high) == pytest.approx((means[499], means[-500]), abs=1e-12)


@pytest.mark.parametrize("n", [17, 50])
def test_monte_carlo_ends_are_the_500th_smallest_and_largest_without_ties(n: int) -> None:
    # Values with no ties among their subset means (square roots of distinct primes, scaled),
    # so that neighbouring order statistics differ and an end one place off fails. The
    # reference sorts the flipped-set means of the documented draw, each summed as numpy sums
    # a row of the flip matrix.
    import numpy as np

    primes = [p for p in range(2, 400) if all(p % d for d in range(2, int(p**0.5) + 1))]
    values = [(p**0.5 % 1) - 0.4 for p in primes[:n]]
    flips = np.random.default_rng(37).random((19_999, n)) < 0.5
    sizes = flips.sum(axis=1)
    sums = np.where(flips, np.array(values), 0.0).sum(axis=1)
    means = sorted((sums[sizes > 0] / sizes[sizes > 0]).tolist())
    assert len(means) == 19_999 and means[498] < means[499] < means[500]
    assert means[-501] < means[-500] < means[-499]
    t = paired_test(values)
    assert (t.low, t.high) == (means[499], means[-500])


def test_monte_carlo_interval_lies_within_its_error_of_the_exact_one() -> None:
    # n = 17, just above the enumerated sizes: the exact interval's ends are the 3,276th
    # smallest and largest of the 131,071 subset means (k = ⌊2¹⁷ · 0.025⌋). The Monte Carlo
    # ends estimate the same 2.5% quantiles from 20,000 flips: their rank among the exact means
    # has sd √(0.025 · 0.975 / 20,000) ≈ 0.0011 in share, so they sit between the 2.0% and 3.0%
    # points (4.5 sd either side).
    values = [0.12, -0.05, 0.30, 0.02, 0.07, -0.01, 0.04, 0.2, -0.1, 0.0, 0.15]
    values += [0.05, 0.08, -0.03, 0.11, 0.01, 0.09]
    sums, sizes = [0.0], [0]
    for v in values:
        sums += [s + v for s in sums]
        sizes += [k + 1 for k in sizes]
    exact = sorted(s / k for s, k in zip(sums[1:], sizes[1:], strict=True))
    m = len(exact)
    t = paired_test(values)
    assert t.method == "monte carlo"
    assert exact[int(0.020 * m)] <= t.low <= exact[int(0.030 * m)]
    assert exact[-int(0.030 * m)] <= t.high <= exact[-int(0.020 * m)]
