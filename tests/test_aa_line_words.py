"""An A/A calibration's expected false calls read as an average count per comparison, not as a
fraction of a case (a newcomer read "in fewer than 0.01 of 3 cases")."""

from __future__ import annotations

from driftproof.pages.words import aa_line
from driftproof.stats.aa import AACase, AAReading


def test_the_expected_false_calls_read_as_an_average_of_changes() -> None:
    # three cases, none with a false call in its simulation: the expected count rounds to nothing
    cases = tuple(AACase(f"c{i}", False, 3, 0.0, True, 0.05) for i in range(3))
    aa = AAReading(cases, 0, 0.0, 0.0, 0.05, 0.05, 0, 2000)
    line = aa_line("aa.json", aa)
    assert (
        "noise alone is expected to call an average of fewer than 0.01 changes, up or down, per "
        "comparison over 3 cases (chance of at least one: "
    ) in line
    assert " of 3 cases per comparison" not in line
