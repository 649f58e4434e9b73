"""A valid receipt is read exactly: what a reader holds is the file's content, and its seal
recomputed over that content is the file's seal (D-12; method, "Receipts are an open format")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from receipt_docs import regrade_doc, seal_document

from driftproof.receipt import CURRENT_VERSION, Receipt, compute_seal, parse_receipt, read_receipt

FIXTURES = Path(__file__).parent / "fixtures" / CURRENT_VERSION
#: Written by hand with explicit nulls and ``recorded: true``; every other one as a writer writes.
WITH_NULLS = "valid-every-0.15-member.json"


def _unknown_as_absent(value: Any) -> Any:
    """``value`` with null members dropped (absent or null: unknown, D-13) and ``recorded``
    true dropped (the schema: "absent or true when the arm was recorded")."""
    if isinstance(value, dict):
        return {
            k: _unknown_as_absent(v)
            for k, v in value.items()
            if v is not None and (k, v) != ("recorded", True)
        }
    return [_unknown_as_absent(v) for v in value] if isinstance(value, list) else value


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(FIXTURES.glob("valid-*.json")) if p.name != WITH_NULLS],
    ids=lambda p: p.name,
)
def test_a_current_receipt_reads_back_to_its_own_content_and_seal(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    held = read_receipt(path).to_json_dict()
    assert held == document  # no member added (not even a null), none dropped, none changed
    assert compute_seal(held) == document["seal"]["sha256"]


def test_explicit_nulls_are_held_as_unknown_and_every_recorded_value_kept() -> None:
    document = json.loads((FIXTURES / WITH_NULLS).read_text(encoding="utf-8"))
    held = read_receipt(FIXTURES / WITH_NULLS).to_json_dict()
    assert _unknown_as_absent(held) == _unknown_as_absent(document)


@pytest.mark.parametrize("judge_ids", [["judge-a", "judge-b"], None])
def test_a_regrades_receipt_reads_back_to_its_own_content(judge_ids: list[str] | None) -> None:
    # judge_ids is optional (absent on a rubric regrade's receipt), never written null
    document = json.loads((FIXTURES / "valid-basic.json").read_text(encoding="utf-8"))
    answers = sum(len(a["draws"]) for c in document["cases"] for a in c["arms"].values())
    named = {} if judge_ids is None else {"judge_ids": judge_ids}
    document["regrade"] = regrade_doc("judge", answers, answers, **named)
    document = seal_document(document)
    assert parse_receipt(json.dumps(document), "r.json").to_json_dict() == document
    # a writer holding no ids (None) writes none: the member is left out, not null
    held = Receipt.model_validate(
        {**document, "regrade": {**document["regrade"], "judge_ids": None}}
    )
    assert held.to_json_dict() == {**document, "regrade": regrade_doc("judge", answers, answers)}
