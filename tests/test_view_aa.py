"""An A/A calibration's sheet gives no lift: both arms ran with the skill (``run --aa``), so the
difference between them is noise, which the A/A reading counts; the sheet printed it as "What
the skill adds", with a value per 1,000 skill tokens."""

from __future__ import annotations

import json

from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.pages.badge import workflow_outputs
from driftproof.pages.sheet import sheet
from driftproof.receipt import parse_receipt
from driftproof.render.sheet import sheet_text

# the same arm twice: means .61 and .55, a difference of +.06 that is not a lift
CASES = [case("c1", [0.60, 0.61, 0.62], [0.54, 0.55, 0.56])]


def _receipt(aa: bool):
    doc = make_receipt(CASES)
    doc["run"]["aa"] = aa
    return parse_receipt(json.dumps(seal_document(doc)).encode(), "r.json")


def _sheet(aa: bool):
    return sheet(_receipt(aa))


def test_an_aa_receipt_has_no_lift_and_says_why() -> None:
    s = _sheet(aa=True)
    assert s.lift == (
        "n/a: an A/A calibration: both arms ran with the skill, so their difference measures "
        "noise, not what the skill adds"
    )
    assert s.lift_per_1k == "n/a (400 skill tokens)"  # 1,600 characters ÷ 4
    assert "+0.060" not in sheet_text(s).split("Cases")[0]  # headline to the arms: no lift
    # the same receipt without the mark reads its lift, +.06
    assert _sheet(aa=False).lift.startswith("+0.060")


def test_an_aa_receipt_badge_outputs_no_lift() -> None:
    out = workflow_outputs(_receipt(aa=True))
    assert (out["lift"], out["value-per-1k"]) == ("n/a", "n/a")
    assert workflow_outputs(_receipt(aa=False))["lift"] == "+0.060"
