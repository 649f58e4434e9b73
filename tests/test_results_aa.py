"""An A/A calibration in the lists (results table, receipts index): labelled as what it is, not
"–" where a lift would stand."""

from __future__ import annotations

import json

from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.pages.results import listed_receipt, results_rows
from driftproof.receipt import parse_receipt

# the same arm twice: c1 draws alike in both runs (no change); c2 0.80 apart at a spread of 0.01,
# far past the effect floor with bands apart, so the rule calls a change in it
CASES = [
    case("c1", [0.60, 0.61, 0.62], [0.60, 0.61, 0.62]),
    case("c2", [0.90, 0.91, 0.92], [0.10, 0.11, 0.12]),
]


def test_an_aa_receipt_is_labelled_in_the_results_table_and_the_receipts_index() -> None:
    doc = make_receipt(CASES)
    doc["run"]["aa"] = True
    r = parse_receipt(json.dumps(seal_document(doc)).encode(), "aa.json")
    (row,) = results_rows({"aa": r})
    assert row.lift_text == "A/A calibration"
    listed = listed_receipt("aa", r, "0" * 64, row)
    assert listed["headline"] == (
        "A/A calibration: the rule called a change, up or down, in 1 of 2 cases between two runs "
        "of the same arm"
    )


def test_a_stub_aa_receipt_says_both_that_it_is_a_calibration_and_that_the_stub_made_it() -> None:
    # the stub lane's A/A run: no model answered, and it is two runs of one arm, no skill's lift
    doc = make_receipt(CASES)
    doc["run"]["aa"] = True
    doc["run"]["provider"] = "stub"
    doc["verification_level"] = "UNVERIFIED"  # as the stub lane seals it
    r = parse_receipt(json.dumps(seal_document(doc)).encode(), "stub-aa.json")
    (row,) = results_rows({"stub-aa": r})
    said = "A/A calibration; no model answered: the stub provider's fixed answers"
    assert row.headline == said and not row.measured  # the results table's headline figure
    assert listed_receipt("stub-aa", r, "0" * 64, row)["headline"] == said  # the receipts index
