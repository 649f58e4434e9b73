"""Lifts over the cases both receipts measured, by hand (one draw list per arm, means):

- earlier: c1 with .60 .60 .60, baseline .50 .50 .50: +.10; c2 .90/.60: +.30 (own lift +.20)
- later: c1 .70/.50: +.20 only (own lift +.20)
Over the one case in both (c1): earlier +.10, later +.20; each receipt's own: +.20 and +.20.
"""

from __future__ import annotations

import json

import pytest
from factories import case, make_receipt

from driftproof.receipt import Receipt, parse_receipt
from driftproof.stats.lift import common_lifts


def _read(cases: list[dict[str, object]]) -> Receipt:
    return parse_receipt(json.dumps(make_receipt(cases)).encode(), "r.json")


def test_the_common_lift_is_over_the_cases_both_measured_not_all_of_one() -> None:
    a = _read([case("c1", [0.6] * 3, [0.5] * 3), case("c2", [0.9] * 3, [0.6] * 3)])
    b = _read([case("c1", [0.7] * 3, [0.5] * 3)])
    lf = common_lifts(a, b)
    assert lf.cases == ("c1",)
    assert (lf.a, lf.b) == (pytest.approx(0.10), pytest.approx(0.20))
    assert (lf.a_own, lf.b_own) == (pytest.approx(0.20), pytest.approx(0.20))
    assert (lf.a_cases, lf.b_cases, lf.a_total, lf.b_total) == (2, 1, 2, 1)
