"""``driftproof plan`` across the suite: what draws do per case, and what the receipt-wide
reading (method, "A wide band over several cases") will say and why, worked by hand."""

from __future__ import annotations

import math

import factories
import pytest
from factories import JUDGE, case

from driftproof.pages.plan import plan_receipt
from driftproof.receipt import Receipt
from driftproof.render.plan import plan_text
from driftproof.stats import receipt_reading
from driftproof.wording import MORE_CASES

# a 0.01 grid: its rounding spread .01/√12 = .0029 sits under every spread measured here
FINE_JUDGE = dict(JUDGE, scale={"worst": 0.0, "best": 1.0, "step": 0.01})


def make_receipt(cases: list[dict]) -> dict:
    """The factory's receipt, judged on a 0.01 grid."""
    return factories.make_receipt(cases, judge=FINE_JUDGE)


def test_cases_that_disagree_give_the_band_and_no_case_count() -> None:
    """Cases that disagree give the receipt-wide band, and no case count.

    Case means .52 and .82 with skill, .51 and .81 baseline (sd .01 within): s = stdev = .3/√2
    = .21213 per arm, band = √(2 × .21213²) = .30 ≥ .05, and the draw part is tiny → "More
    cases, …" (D-8). That band is the spread of the cases' mean scores, which neither more draws
    nor more cases of the same spread narrow, so no case count is given: the count the plan gave
    (37, from band ÷ √cases under the floor) is a quantity the receipt-wide rule never compares.
    """
    a = case("a", [0.51, 0.52, 0.53], [0.50, 0.51, 0.52])
    b = case("b", [0.81, 0.82, 0.83], [0.80, 0.81, 0.82])
    p = plan_receipt(Receipt.model_validate(make_receipt([a, b])))
    assert p.cases_disagree and p.sentence == MORE_CASES
    assert p.suite_band == pytest.approx(0.30, abs=1e-12)
    assert p.suite_spreads == pytest.approx((0.3 / math.sqrt(2), 0.3 / math.sqrt(2)), abs=1e-12)
    assert not hasattr(p, "cases_needed")
    # Each arm's two spreads are equal (sd .01 over 3 draws), so they are pooled: sd .01 over 4
    # degrees of freedom, upper 80% bound .01·√(4/χ²₀.₂(4)) = .01·√(4/1.6488) = .015576 (one
    # case alone, as TIGHT, would ask the pilot to grow). Resolution at each arm's 95% point
    # q = .015576·√(χ²₀.₉₅(n−1)/(n−1)): 2q(1 + √(2/n)) at n = 23: q = .019342, .050089 ≥ .05;
    # at n = 24: √(35.172/23) = 1.23662, q = .019262, .049645 < .05 → 24. At .075, n = 4
    # suffices (97.5% points .027495 each, lift low .075 − 1.645·.015576·√(2/4) = .056882 >
    # .05499). The spreads held give 6 (test_count_from_a_large_pilot), and 24 is not over
    # 4 × 6: the count stands at 24.
    assert p.undecided_cases == () and [c.draws_needed for c in p.cases] == [24, 24]


def _spread_cases(means: tuple[float, ...]) -> list[dict]:
    return [
        case(f"c{i}", [m - 0.01, m + 0.01] * 25, [m - 0.01, m + 0.01] * 25)
        for i, m in enumerate(means)
    ]


@pytest.mark.parametrize(
    ("means", "band", "spread"),
    [
        # s = stdev(.2, .4, .6, .8) = √(.2/3) = .2582 per arm; band √2 × .2582 = .3651
        ((0.2, 0.4, 0.6, 0.8), "0.365", "0.258"),
        # s = stdev(.50, .55, .60, .65) = √(.0125/3) = .06455; band .0913
        ((0.50, 0.55, 0.60, 0.65), "0.091", "0.065"),
    ],
)
def test_the_suite_line_says_what_the_receipt_will_read_and_why(
    means: tuple[float, ...], band: str, spread: str
) -> None:
    """The suite line says what the receipt-wide reading will say, and why: no case count.

    Four cases, the same means in both arms, sd .0101 over 50 draws each (draw part
    .0101²/50, negligible): no case separates and none is underpowered, so the receipt itself
    reads "More cases, …" on the same band the plan shows. The old line read "more cases, not
    more draws, are needed …: 54 cases in all (50 more) would bring the receipt-wide band's
    standard error (band ÷ √cases) under 0.05", a promise the rule (band itself under the
    floor) never keeps, and lowered the fixed sentence's first letter.
    """
    r = Receipt.model_validate(make_receipt(_spread_cases(means)))
    p = plan_receipt(r)
    reading = receipt_reading(r)
    assert reading.sentence == MORE_CASES and reading.receipt_band is not None
    assert p.suite_band == pytest.approx(reading.receipt_band.band, abs=1e-12)
    lines = plan_text(p).splitlines()
    head, suite = lines[0], lines[lines.index("Why this count:") + 1]
    assert head.startswith("Run ") and " draws per arm" in head and ". " not in head  # one step
    assert suite.startswith(
        "Draws work case by case: more draws pin down each case's mean (the spreads of its "
        "band stay as they are), which is what any "
        "draw count here is sized for. Across the suite, as context: should a run separate no "
        "case, with two or more reading no separation and none underpowered on its own, the "
        f'receipt as a whole reads "{MORE_CASES}" Its comparison band in this pilot, one '
        "spread: each arm's spread of its cases' mean scores "
        f"({spread} with skill, {spread} baseline) added in quadrature, is {band}, at or above "
        "the 0.05 floor: it measures how far apart the cases' mean scores sit in each arm, "
        "that is how hard each case is"
    )
    # the band is a spread of the case means, not their average's error: more cases of the same
    # spread leave it where it is, so "more cases" helps only when they sit closer together
    assert suite.endswith(
        "more draws do not narrow it, and more cases narrow it only when their mean scores sit "
        "closer together."
    )
    for old in ("√", "standard error", "cases in all", "would bring", "means disagree"):
        assert old not in plan_text(p)


def test_an_aa_pilot_sizes_a_comparison_which_reads_no_receipt_wide_sentence() -> None:
    """An A/A pilot's count sizes a gate: a comparison of two runs, read case by case, whose
    headline with no case separated is "no separation detected …"; the receipt-wide "More
    cases, …" is one receipt's reading (method, "A wide band over several cases"), so neither
    the paragraph nor the JSON's sentence gives it."""
    doc = make_receipt(_spread_cases((0.2, 0.4, 0.6, 0.8)))
    doc["run"]["aa"] = True
    p = plan_receipt(Receipt.model_validate(factories.seal_document(doc)))
    assert p.sentence is None and p.suite_band is not None
    text = plan_text(p)
    suite = text.splitlines()[text.splitlines().index("Why this count:") + 1]
    assert (
        "which is what any draw count here is sized for. A gate compares two runs case by case, "
        'as diff and the Action do: with no case separated its headline reads "no separation '
        'detected at this sample size", and the reading one receipt gets over its cases as a '
        "whole is not asked of a comparison. As context, the cases' own spread: each arm's "
        "spread of its cases' mean scores (0.258 first run, 0.258 second run) added in "
        "quadrature, is 0.365"
    ) in suite
    assert MORE_CASES not in text and "neither more draws" not in text
