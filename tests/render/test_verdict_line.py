"""The sheet's reading in one line (pages.receipt_tables.verdict_line), worked by hand."""

from __future__ import annotations

import pytest

from driftproof.pages.receipt_tables import verdict_line
from driftproof.pages.words import Fact


def _reading(status: str, sentence: str, why: str) -> tuple[Fact, ...]:
    return (Fact("verdict", status), Fact("reads", sentence), Fact("why", why))


@pytest.mark.parametrize(
    ("reading", "line"),
    [
        # a smoke run's why names its status itself: said once, not "no verdict: …, no verdict"
        (
            ("no verdict", "no verdict", "Smoke run, no verdict: the preset is 'quick'"),
            "Smoke run, no verdict: the preset is 'quick'",
        ),
        # a why that does not name the status follows it
        (
            ("no verdict", "not measured", "not measured: 3 of 3"),
            "no verdict: not measured: 3 of 3",
        ),
        (("regressed", "hurts: c2", "c2 fell"), "regressed: hurts: c2. Why: c2 fell"),
        # the status named later, not in the why's first clause, is no label of it
        (
            ("no verdict", "no verdict", "simulated: so this receipt gets no verdict"),
            "no verdict: simulated: so this receipt gets no verdict",
        ),
        (("no verdict", "no verdict", ""), "no verdict"),
    ],
)
def test_the_reading_line_names_its_status_once(reading: tuple[str, str, str], line: str) -> None:
    assert verdict_line(_reading(*reading)) == line
