"""With-skill minus control (D-16), by hand: with skill .80 .82 .84 (mean .82), control
.70 .72 .74 (mean .72), so +.10 over one case; the baseline plays no part."""

from __future__ import annotations

import json

import pytest
from factories import case, make_receipt

from driftproof.receipt import parse_receipt
from driftproof.stats.lift import control_lift


def test_control_lift_is_with_skill_minus_control() -> None:
    c = case("c1", [0.80, 0.82, 0.84], [0.50, 0.52, 0.54])
    c["arms"]["control"] = case("x", [0.70, 0.72, 0.74], [0.0])["arms"]["with_skill"]
    arms = {
        n: {"label": None, "instruction": None, "system_prompt_sha256": None}
        for n in ("with_skill", "baseline")
    }
    arms["control"] = {
        "label": "terse",
        "instruction": "Answer concisely.",
        "system_prompt_sha256": None,
    }
    r = parse_receipt(json.dumps(make_receipt([c], arms=arms)).encode(), "t.json")
    lift, cases = control_lift(r)
    assert lift == pytest.approx(0.10)
    assert cases == 1
