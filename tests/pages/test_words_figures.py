"""Figures the pages print, worked out by hand: a lift's sign and rounding, a band from its draws
with its outcome against a threshold, and the exact paired test's line (surviving mutants)."""

from __future__ import annotations

import math

from factories import case, make_receipt

from driftproof.pages.words import (
    NOT_APPLICABLE,
    aa_line,
    band_text,
    fmt,
    format_lift,
    lift_cover_words,
    lift_coverage,
    mean_spread,
    output_tokens_text,
    own_lifts,
    paired_interval,
    paired_line,
)
from driftproof.receipt import CaseArm, Receipt, build_draw
from driftproof.stats.aa import AACase, AAReading
from driftproof.stats.band import band_of_scores
from driftproof.stats.context import LiftInterval
from driftproof.stats.lift import CommonLifts
from driftproof.stats.paired import PairedTest


def test_a_lift_rounding_to_zero_is_plus_zero_and_one_past_it_keeps_its_sign() -> None:
    # -0.0004 and 0.0004 round to zero at three places; -0.0006 rounds to -0.001.
    assert format_lift(-0.0004) == format_lift(0.0004) == format_lift(0.0) == "+0.000"
    assert format_lift(-0.0006) == "\u22120.001" and format_lift(0.0006) == "+0.001"
    assert format_lift(None) == format_lift(math.nan) == format_lift(math.inf) == NOT_APPLICABLE


def test_a_figure_keeps_its_places_and_drops_a_minus_on_zero() -> None:
    assert fmt(2 / 3) == "0.667" and fmt(2 / 3, 1) == "0.7" and fmt(-2 / 3) == "\u22120.667"
    assert fmt(2 / 3, signed=True) == "+0.667" and fmt(-0.04, 1) == "0.0"
    assert fmt(-0.0004, signed=True) == "0.000" and fmt(math.inf) == fmt(None) == "\u2013"


def test_a_band_from_three_draws_and_its_outcome_against_each_threshold() -> None:
    # Draws 0.6, 0.8, 1.0: mean 0.8, sd = sqrt((0.04 + 0 + 0.04) / 2) = 0.2; band 0.6 to 1.0.
    b = band_of_scores([0.6, 0.8, 1.0])
    assert band_text(b) == "0.800 \u00b1 0.200 (n = 3)"
    assert band_text(b, 0.5) == "0.800 \u00b1 0.200 (n = 3), pass against threshold 0.500"
    assert band_text(b, 0.9) == "0.800 \u00b1 0.200 (n = 3), borderline against threshold 0.900"
    assert band_text(b, 1.05) == "0.800 \u00b1 0.200 (n = 3), fail against threshold 1.050"
    # A threshold three places cannot hold is printed as recorded.
    assert band_text(b, 0.7004).endswith("borderline against threshold 0.7004")


def test_a_band_with_a_lost_draw_or_one_draw() -> None:
    lost = band_of_scores([0.6, 0.8, 1.0, None])
    assert band_text(lost, 0.5) == (
        "0.800 \u00b1 0.200 (n = 3, 1 lost), borderline against threshold 0.500"
    )
    # One measured draw has no spread: no outcome is guessed against the threshold.
    assert band_text(band_of_scores([0.25]), 0.1) == "0.250 (n = 1)"
    assert band_text(band_of_scores([None])) == "\u2013"


def test_mean_and_spread() -> None:
    assert mean_spread(0.25, 0.125) == "0.250 \u00b1 0.125"
    assert mean_spread(0.25, None) == "0.250 (no spread)" and mean_spread(None, 0.1) == "\u2013"


def test_the_exact_paired_line_prints_p_interval_and_coverage_as_percent() -> None:
    # 3 up of 4: P(X >= 3) = 5/16, two-sided 10/16 = 0.625; exact coverage 1 - 2/16 = 87.5%,
    # over 2**4 = 16 sign flips.
    t = PairedTest(4, 3, 1, 0, 0.625, 0.1, -0.05, 0.2, 0.875, "exact", None)
    assert paired_line(t, "lift", "the suite lift") == (
        "lift up in 3 of 4 cases, down in 1, zero in 0; sign test p = 0.625 (two-sided, exact); "
        "sign-flip interval on the suite lift \u22120.050 to +0.200 "
        "(87.5% coverage, exact, over all 16 sign flips)"
    )


def test_the_monte_carlo_paired_line_and_a_small_p() -> None:
    # 7 of 7 up: two-sided p = 2 / 2**7 = 0.015625, three significant digits 0.0156.
    t = PairedTest(30, 7, 0, 23, 0.015625, 0.1, 0.01, 0.2, 0.95, "monte carlo", None)
    line = paired_line(t, "lift", "the suite lift")
    assert "sign test p = 0.0156 (two-sided, exact)" in line
    assert line.endswith(
        "(95.0% coverage, Monte Carlo, over 19,999 random sign flips from a fixed seed)"
    )


def _arm_of(*outputs: int | None) -> CaseArm:
    tokens = [
        None if n is None else {"input": 10, "output": n, "counted_by": "provider"} for n in outputs
    ]
    draws = [build_draw(i, answer=f"a{i}", score=0.5, tokens=t) for i, t in enumerate(tokens)]
    return CaseArm(draws=draws, generation=None)


def test_an_arms_output_tokens_are_one_count_or_the_mean_of_its_draws() -> None:
    # 1,000 and 2,001 output tokens: mean 3,001 / 2 = 1,500.5; a draw recording none is left out.
    assert output_tokens_text(_arm_of(1000, 2001, None)) == "mean 1,500.5 (2 draws)"
    assert output_tokens_text(_arm_of(None, 1024)) == "1,024"
    assert output_tokens_text(_arm_of(0, 0)) == "mean 0.0 (2 draws)"
    assert output_tokens_text(_arm_of(None)) == output_tokens_text(None) == "\u2013"


def test_the_paired_lines_large_counts_keep_their_separators() -> None:
    t = PairedTest(4000, 1000, 1200, 1800, 0.01, 0.0, -0.01, 0.01, 0.95, "monte carlo", None)
    line = paired_line(t, "lift", "the suite lift")
    assert line.startswith("lift up in 1,000 of 4,000 cases, down in 1,200, zero in 1,800;")
    # Ten cases enumerate 2**10 = 1,024 sign flips; k = 25 gives coverage 1 - 50/1,024 = 95.1%.
    t = PairedTest(10, 8, 2, 0, 0.109375, 0.1, 0.01, 0.2, 1 - 50 / 1024, "exact", None)
    assert paired_line(t, "lift", "the suite lift").endswith(
        "(95.1% coverage, exact, over all 1,024 sign flips)"
    )


def _aa(rates: list[float | None], called: int) -> AAReading:
    """Cases whose chance of a false call is known exactly (no simulation), one called."""
    cases = tuple(
        AACase(f"c{i}", i < called, 3, p, False, None if p is None else 0.1 * (i + 1))
        for i, p in enumerate(rates)
    )
    unread = sum(p is None for p in rates)
    effects = sorted(c.smallest_effect for c in cases if c.smallest_effect is not None)
    median = effects[len(effects) // 2] if effects else None
    return AAReading(cases, called, 0.0, 0.0, median, max(effects, default=None), unread, 2000)


def test_an_aa_line_counts_the_read_cases_and_names_those_with_no_spread() -> None:
    # 4 cases, 1 with no spread: 3 read; smallest effects 0.1, 0.2, 0.3: median 0.2, widest 0.3.
    line = aa_line("aa.json", _aa([0.0, 0.0, 0.0, None], 1))
    assert line.startswith(
        "A/A calibration aa.json: the rule called a change, up or down, in 1 of 4 cases between "
        "two runs of the same arm; at the A/A run's spreads and 3 draws per arm, noise alone is "
        "expected to call an average of fewer than 0.01 changes, up or down, per comparison over 3 "
        "cases (chance of "
    )
    assert line.endswith(
        "the smallest effect these spreads can resolve is 0.200 at the median case, 0.300 at "
        "the widest; 1 case with no spread to read."
    )
    assert aa_line("aa.json", _aa([0.0, 0.0], 0)).endswith("0.200 at the widest.")
    assert aa_line("aa.json", _aa([None, None], 0)) == (
        "A/A calibration aa.json: the rule called a change, up or down, in 0 of 2 cases between "
        "two runs of the same arm; 2 cases with no spread to read."
    )


def test_the_paired_interval_in_words() -> None:
    # Lifts 0.1, 0.2, 0.3: mean 0.2, sd 0.1, se 0.1 / sqrt(3) = 0.0577; df 2, t = 4.303;
    # 0.2 -/+ 4.303 * 0.0577 = -0.048 to +0.448.
    se = 0.1 / math.sqrt(3)
    iv = LiftInterval(0.2, 3, se, 2, 4.302653, 0.2 - 4.302653 * se, 0.2 + 4.302653 * se, None)
    assert paired_interval(iv) == (
        "suite lift +0.200, paired standard error 0.058 over 3 cases; approximate 95% interval "
        "\u22120.048 to +0.448 (the lift \u00b1 4.303 standard errors, 4.303 being Student's t "
        "for 2 degrees of freedom, one fewer than the cases: it assumes the cases' lifts are "
        "normally spread, where the exact paired test assumes no shape)"
    )
    # 0.9 + 4.303 * 0.1 is past +1: clipped there.
    high = LiftInterval(0.9, 3, 0.1, 2, 4.302653, 0.9 - 0.4302653, 1.0, None, False, True)
    assert paired_interval(high).endswith("; clipped at +1: a lift is never outside \u22121 to +1")
    both = LiftInterval(0.0, 2, 1.0, 1, 12.706, -1.0, 1.0, None, True, True)
    said = "clipped at \u22121 and +1: a lift is never outside \u22121 to +1"
    assert said in paired_interval(both)


def test_two_receipts_common_lift_names_each_sides_cases_and_an_own_lift_that_differs() -> None:
    # A's own lift 0.15 prints +0.150, not A's +0.100 over the common case; B's is the same.
    lf = CommonLifts(0.1, 0.2, ("c1",), 2, 1, 3, 1, 0.15, 0.2)
    assert lift_cover_words(lf) == (
        "over the 1 case both receipts measured in both arms (earlier receipt 2 of 3, its own "
        "lift +0.150; later receipt 1 of 1)"
    )
    # Own lifts that print the same as the common ones (0.1004 is +0.100) are not repeated.
    lf = CommonLifts(0.1, -0.2, ("c1", "c2"), 2, 2, 2, 2, 0.1004, -0.2)
    assert lift_cover_words(lf, "A", "B") == (
        "over the 2 cases both receipts measured in both arms (A 2 of 2, B 2 of 2)"
    )
    lf = CommonLifts(0.1, -0.2, ("c1", "c2"), 2, 3, 2, 3, 0.1, -0.25)
    assert own_lifts(lf) == (None, "\u22120.250")


def test_the_lift_coverage_names_the_cases_left_out() -> None:
    full = case("c1", [0.5, 0.7], [0.4, 0.6])
    r = Receipt.model_validate(make_receipt([full, case("c2", [None, None], [0.4, 0.6])]))
    assert lift_coverage(r) == " (over 1 of 2 cases: case c2 has no measured draw in an arm)"
    lost = [case(c, [0.5, 0.7], [None, None]) for c in ("c2", "c3")]
    r = Receipt.model_validate(make_receipt([full, *lost]))
    assert lift_coverage(r) == " (over 1 of 3 cases: cases c2, c3 have no measured draw in an arm)"
    assert lift_coverage(Receipt.model_validate(make_receipt([full]))) == ""


def test_format_lift() -> None:
    assert format_lift(0.12) == "+0.120"
    assert format_lift(-0.05) == "−0.050"  # the minus sign people read (U+2212)
    assert format_lift(-0.05, minus="-") == "-0.050"  # a workflow output's, which programs read
    assert format_lift(-0.0001) == "+0.000"
    assert format_lift(None) == "n/a"
