"""The badge's workflow outputs are read by programs: a negative figure is written with "-",
never the U+2212 the pages show (surviving mutant of driftproof/pages/badge.py)."""

from __future__ import annotations

from factories import case, make_receipt

from driftproof.pages.badge import details_json, workflow_outputs
from driftproof.receipt import Receipt


def test_a_negative_lift_and_value_per_token_are_written_with_a_hyphen_minus() -> None:
    # 0.4 and 0.6 with the skill against 0.5 and 0.7 without: lift 0.5 - 0.6 = -0.100; the
    # skill is 1,600 characters, 400 tokens, so -0.100 / 0.4 = -0.250 per 1,000 skill tokens
    r = Receipt.model_validate(make_receipt([case("c1", [0.4, 0.6], [0.5, 0.7])]))
    out = workflow_outputs(r)
    assert (out["lift"], out["value-per-1k"]) == ("-0.100", "-0.250")
    assert details_json(r, "x")["lift_text"] == "-0.100"  # the details file is read the same
