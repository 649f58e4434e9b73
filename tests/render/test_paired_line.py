"""The exact paired test's line in words: a near-zero end prints as 0.000, never -0.000, and one
case is "1 case"."""

from __future__ import annotations

from driftproof.pages.words import paired_line
from driftproof.stats.paired import PairedTest, paired_test


def test_an_end_that_rounds_to_zero_prints_unsigned() -> None:
    t = PairedTest(8, 5, 3, 0, 0.73, 0.02, -0.0003, 0.041, 0.95, "exact", None)
    line = paired_line(t, "lift", "the suite lift")
    assert "−0.000" not in line and "+0.000" not in line
    assert "the suite lift 0.000 to +0.041" in line


def test_one_case_is_singular() -> None:
    line = paired_line(paired_test([0.0]), "lift", "the suite lift")
    assert line.startswith("lift up in 0 of 1 case, down in 0, zero in 1;")


def test_thousands_of_cases_print_with_separators() -> None:
    t = PairedTest(2000, 1200, 700, 100, 0.01, 0.02, 0.01, 0.03, 0.95, "monte carlo", None)
    line = paired_line(t, "lift", "the suite lift")
    assert line.startswith("lift up in 1,200 of 2,000 cases, down in 700, zero in 100;")
