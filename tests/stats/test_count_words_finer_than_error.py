"""An expected count from noise alone is never rounded coarser than its simulation's error.

Found: 40 cases at about 3.7% each (2,000 pairs a case) printed "about 1 of these 40 cases" for
1.4845, and an A/A receipt "an average of 2 changes" for 2.484: a whole number, half a unit
(.5) ten times the 95% half-width (about .05). The count is printed to the coarsest place whose
half unit is under the half-width."""

from __future__ import annotations

import pytest

from driftproof.pages.words import aa_line
from driftproof.stats.aa import AACase, AAReading
from driftproof.stats.false_alarms import FalseAlarms, expected_error, p_at_least


def test_a_count_of_40_cases_keeps_its_tenths() -> None:
    # 74 of 2,000 pairs in each of 40 cases: 40 × .037 = 1.48; Σ p(1 − p) = 40 × .037 × .963 =
    # 1.42524; / 2,000, standard error .026695, half-width .05232: over half a tenth (.05), so
    # one decimal, 1.5 (the old rule printed 1)
    ps = [74 / 2000] * 40
    assert expected_error(ps, 2000) == pytest.approx(0.026695, abs=1e-6)
    fa = FalseAlarms(sum(ps), 0, p_at_least(ps, 0), 40, 2000, 0.05, tuple(ps), None)
    assert "about 1.5 of these 40 cases would read regressed" in fa.sentence()


def test_an_aa_average_keeps_its_tenths() -> None:
    # 50 cases, each a false-call rate of 100 in 2,000 (.05): expected 50 × .05 = 2.5; standard
    # error √(50 × .05 × .95 / 2000) = .03446, half-width .06754: one decimal, 2.5 (not 2)
    cases = tuple(AACase(f"c{i}", False, 3, 0.05, True, 0.06) for i in range(50))
    aa = AAReading(cases, 0, 2.5, 1 - 0.95**50, 0.06, 0.06, 0, 2000)
    said = "expected to call an average of 2.5 changes, up or down, per comparison over 50 cases"
    assert said in aa_line("aa.json", aa)
