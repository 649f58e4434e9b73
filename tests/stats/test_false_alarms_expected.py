"""The expected count of regressed cases from noise alone is printed to the place its simulation
supports: 2 or 1 decimals, the coarsest whose half a unit in the last place is under the 95%
half-width, 1.96 standard errors of the sum, sqrt(Σ p(1 − p) / trials) over the simulated cases,
and a range from a half-width of 0.5. Each suite below is chosen so that its standard error can
be worked out on paper."""

from __future__ import annotations

import math
import re
import statistics

import pytest
from factories import JUDGE, case, make_receipt

from driftproof.pages.comparison import compare_receipts
from driftproof.receipt import Receipt
from driftproof.stats.false_alarms import (
    FalseAlarms,
    count_words,
    expected_error,
    p_at_least,
    p_regressed,
)


def _said(ps: list[float], trials: int, simulated: list[bool] | None = None) -> str:
    """The expected count as the sentence prints it, for a suite with chances ``ps``."""
    mask = None if simulated is None else tuple(simulated)
    fa = FalseAlarms(sum(ps), 0, p_at_least(ps, 0), len(ps), trials, 0.05, tuple(ps), mask)
    m = re.search(
        r"receipts, (?:about )?(.*?) of (?:these \d+ cases|1 case) would read regressed",
        fa.sentence(),
    )
    assert m is not None, fa.sentence()
    return m.group(1)


def test_two_decimals_when_the_half_width_is_under_half_a_hundredth() -> None:
    # 4 cases, 5 of 2,000 pairs each: Σ p(1 − p) = 4 × .0025 × .9975 = .009975; / 2,000 =
    # 4.9875e-6, standard error .002233, half-width 1.96 × .002233 = .00438 ≤ .005
    ps = [5 / 2000] * 4
    assert expected_error(ps, 2000) == pytest.approx(0.0022333, abs=1e-7)
    assert _said(ps, 2000) == "0.01"


def test_two_decimals_while_the_half_width_is_under_half_a_tenth() -> None:
    # 40 cases, 50 of 2,000 each: Σ p(1 − p) = 40 × .025 × .975 = .975; / 2,000 = 4.875e-4,
    # standard error .02208, half-width .0433: over .005, under .05
    ps = [50 / 2000] * 40
    assert expected_error(ps, 2000) == pytest.approx(0.022079, abs=1e-6)
    assert _said(ps, 2000) == "1.00"


def test_the_edge_of_one_decimal() -> None:
    # at .025 a case, 53 cases: Σ p(1 − p) = 1.291875, standard error .025415, half-width
    # .04981 < .05: two decimals; 54 cases: 1.31625, .025654, .05028 ≥ .05: one
    assert re.fullmatch(r"1\.3\d", _said([0.025] * 53, 2000))
    assert re.fullmatch(r"1\.[34]", _said([0.025] * 54, 2000))


def test_one_decimal_at_300_cases_of_666_pairs() -> None:
    # 23 of 666 pairs in each of 300 cases: expected 300 × 23/666 = 10.36;
    # Σ p(1 − p) = 300 × (23/666)(643/666) = 10.0026; / 666 = .015019, standard error .12255,
    # half-width .2402: over .05, under .5
    ps = [23 / 666] * 300
    assert expected_error(ps, 666) == pytest.approx(0.12255, abs=1e-5)
    assert _said(ps, 666) == "10.4"


def test_a_wider_half_width_prints_the_range() -> None:
    # 2,000 cases at 100 pairs, 5 each: expected 100; Σ p(1 − p) = 2,000 × .05 × .95 = 95;
    # / 100 = .95, standard error .97468, half-width 1.9103: from 98.09 to 101.91, rounded out
    ps = [0.05] * 2000
    assert expected_error(ps, 100) == pytest.approx(0.97468, abs=1e-5)
    assert _said(ps, 100) == "100 (98 to 102 by simulation)"
    # the low end never goes under 0
    assert count_words(0.5, 1.0) == "0 (0 to 3 by simulation)"


def test_a_case_not_simulated_adds_no_error() -> None:
    # the 40 cases of one decimal, and 10 cases counted without simulation: still .02208
    ps = [50 / 2000] * 40 + [0.0] * 10
    mask = [True] * 40 + [False] * 10
    assert expected_error(ps, 2000, mask) == pytest.approx(0.022079, abs=1e-6)
    assert expected_error([0.5, 0.025], 2000, [False, True]) == pytest.approx(
        math.sqrt(0.025 * 0.975 / 2000)
    )
    assert _said(ps, 2000, mask) == "1.00"
    assert _said([0.0] * 3, 2000, [False] * 3) == "fewer than 0.01"


def test_diff_prints_the_count_of_a_300_case_suite_to_one_decimal() -> None:
    # 300 cases at spread .05 over 3 draws on the 0.01 grid: 666 pairs a case (200,000 / 300),
    # about 3.45% read regressed each (the statistics notes, section 6.2): 300 × .0345 = 10.35,
    # standard error √(300 × .0345 × .9655 / 666) = .1224, half-width .24: one decimal
    same = [case(f"c{i}", [0.70, 0.75, 0.80], [0.5, 0.55, 0.6]) for i in range(300)]
    judge = {**JUDGE, "scale": {"worst": 0.0, "best": 1.0, "step": 0.01}}
    r = Receipt.model_validate(make_receipt(same, judge=judge))
    fa = compare_receipts(r, r, false_alarms=True).false_alarms
    assert fa is not None and fa.trials == 666
    m = re.search(r"about (\d+\.\d) of these 300 cases would read regressed", fa.sentence())
    assert m is not None, fa.sentence()
    assert 9 <= float(m.group(1)) <= 12


def test_reruns_with_other_seeds_stay_within_the_places_printed() -> None:
    # 20 cases at spread .05 over 3 draws on the 0.01 grid, 2,000 pairs each, rerun from 60
    # sets of seeds. About 3.45% a case: standard error √(20 × .0345 × .9655 / 2,000) = .0182,
    # half-width .036, so two decimals are printed, the last the first the error moves. The
    # reruns' spread is that standard error; about 95% of them (at least 54 of 60) lie within
    # .05 of the reruns' mean, while within .005 only about a fifth do: the tenths hold, the
    # hundredths carry the error, and one decimal would round off more than the error.
    grid = (0.01, (0.0, 1.0))
    on_grid = {"mean": 0.75, "grid_a": grid, "grid_b": grid}
    sums = []
    for rerun in range(60):
        ps = [p_regressed(0.05, 3, 0.05, 3, **on_grid, seed=1000 * rerun + i) for i in range(20)]
        sums.append(sum(ps))
        if rerun == 0:
            assert re.fullmatch(r"\d\.\d\d", _said(ps, 2000))
            error = expected_error(ps, 2000)
    centre = statistics.fmean(sums)
    assert 0.7 <= statistics.stdev(sums) / error <= 1.3
    assert sum(abs(s - centre) <= 0.05 for s in sums) >= 54
    assert sum(abs(s - centre) <= 0.005 for s in sums) <= 24


def test_cases_that_saw_no_event_still_bound_the_sum() -> None:
    # Found: 400 simulated cases at 500 pairs each (a 400-case suite), none of which read
    # regressed in any pair, printed "about 0.00": p(1 − p) is 0 for each, so the standard error
    # was 0. Seeing no event in 400 × 500 pairs bounds the sum of their chances only by the exact
    # (Garwood) 97.5% upper bound of a count of none, −ln(.025) = 3.689 events, over 500 pairs a
    # case: .00738, over half a hundredth (.005), under half a tenth: two decimals, where
    # 0.00 rounds to nothing: the sum and its half-width are under .01, "fewer than 0.01".
    ps = [0.0] * 400
    assert expected_error(ps, 500) == pytest.approx(3.6889 / (1.96 * 500), rel=1e-4)
    assert _said(ps, 500) == "fewer than 0.01"
    # at 2,000 pairs a case the bound is 3.689 / 2,000 = .00184: two decimals hold
    assert _said(ps, 2000) == "fewer than 0.01"
    # with one case of 40 events in 500 pairs (.08): Σ p(1 − p) / 500 = .0736 / 500 = 1.472e-4;
    # the cases with none add (.00738 / 1.96)² = 1.418e-5: standard error √1.614e-4 = .01270
    assert expected_error([0.08] + ps, 500) == pytest.approx(0.012705, abs=1e-5)


def test_a_count_that_rounds_to_nothing_is_bounded_in_plain_words() -> None:
    # Found: a one-case diff of two receipts with no spread printed "about 0.00 of 1 case". No
    # event in 2,000 pairs: the sum is 0 and its 95% half-width 3.689 / 2,000 = .00184, under
    # half a hundredth, so the count is under .01; the sentence says so, with no "about"
    fa = FalseAlarms(0.0, 1, p_at_least([0.0], 1), 1, 2000, 0.05, (0.0,), (True,))
    assert fa.sentence().startswith(
        "Noise alone: if every case's true mean were the same in both receipts, fewer than "
        "0.01 of 1 case would read regressed at the compared receipts' spreads and draws; 1 case "
        "did."
    )
    # at the other places the bound is the sum and half-width rounded up: half-width .04 (two
    # decimals), .003 + .04 = .043, under .05; .4 (one), .03 + .4 = .43, under .5
    assert count_words(0.003, 0.04 / 1.96) == "fewer than 0.05"
    assert count_words(0.03, 0.4 / 1.96) == "fewer than 0.5"
    # a count that does not round to nothing is printed as before, "about" in the sentence
    assert count_words(0.006, 0.004 / 1.96) == "0.01"
