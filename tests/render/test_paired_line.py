"""The exact paired test's line in words: a near-zero end prints as 0.000, never -0.000, and one
case is "1 case"."""

from __future__ import annotations

from driftproof.pages.words import paired_line
from driftproof.stats.paired import PairedTest, paired_test


def test_an_end_that_rounds_to_zero_prints_unsigned() -> None:
    t = PairedTest(8, 5, 3, 0, 0.73, 0.02, -0.0003, 0.041, 0.95, "exact", None)
    line = paired_line(t, "lift", "the suite lift")
    assert "-0.000" not in line and "+0.000" not in line
    assert "the suite lift 0.000 to +0.041" in line


def test_one_case_is_singular() -> None:
    line = paired_line(paired_test([0.0]), "lift", "the suite lift")
    assert line.startswith("lift up in 0 of 1 case, down in 0, zero in 1;")
