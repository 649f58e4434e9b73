"""The carrier test's zero is read within the D-3 tolerance (method, "Lift by case"), by hand.

Case x lifts .80 − .50 = +.30, y lifts .40 − .30 = +.10, z lifts .60 − .70 = −.10 (three draws
per arm, all alike: sd 0). Suite lift (.30 + .10 − .10)/3 = .10 > 0. Without x the lift is
(.10 − .10)/2 = 0, so x carries the lift; without y it is (.30 − .10)/2 = .10 and without z
(.30 + .10)/2 = .20, so they do not. In floats the means of three draws are rounded, so the
lift without x comes out a few 1e-17 above 0: within 1e-9 of 0, it is 0 (D-3).
"""

from __future__ import annotations

import copy
import json

import pytest
from factories import case, make_receipt

from driftproof.receipt import parse_receipt
from driftproof.stats.breakdown import lift_breakdown


def test_a_lift_without_the_case_within_the_tolerance_of_zero_carries() -> None:
    cases = [
        case("x", [0.80] * 3, [0.50] * 3),
        case("y", [0.40] * 3, [0.30] * 3),
        case("z", [0.60] * 3, [0.70] * 3),
    ]
    doc = make_receipt(copy.deepcopy(cases))
    b = lift_breakdown(parse_receipt(json.dumps(doc).encode(), "t.json"))
    assert b.suite_lift == pytest.approx(0.10)
    without = {r.case_id: r.lift_without for r in b.cases}
    assert without["x"] == pytest.approx(0.0, abs=1e-9)
    assert without["y"] == pytest.approx(0.10) and without["z"] == pytest.approx(0.20)
    assert b.carrier_withheld is None
    assert b.carriers == ("x",)


def test_a_suite_lift_within_the_tolerance_of_zero_is_not_positive() -> None:
    # y and z alone: suite (.10 − .10)/2 = 0, a few 1e-17 off 0 in floats, within 1e-9 of it:
    # no positive lift, so no case carries one, though without y the lift is −.10.
    doc = make_receipt([case("y", [0.40] * 3, [0.30] * 3), case("z", [0.60] * 3, [0.70] * 3)])
    b = lift_breakdown(parse_receipt(json.dumps(doc).encode(), "t.json"))
    assert b.suite_lift == pytest.approx(0.0, abs=1e-9)
    assert b.carrier_withheld is None
    assert b.carriers == ()
