"""A receipt's tables keep every figure: the lift breakdown's columns and the file's sha256."""

from __future__ import annotations

import json
from pathlib import Path

from factories import case, make_receipt

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.receipt import Receipt, parse_receipt

CAVEMAN = Path(__file__).resolve().parents[2] / "receipts" / "caveman-2b10489-caveman.json"


def test_the_breakdown_shows_every_column_and_a_cell_under_each() -> None:
    # c1 lifts .71 - .51 = .20, c2 about .003: c1 helps, so the helps-or-hurts column is shown
    cases = [case("c1", [0.7, 0.72, 0.71], [0.5, 0.52, 0.51])]
    cases.append(case("c2", [0.6, 0.6, 0.62], [0.6, 0.61, 0.6]))
    t = receipt_tables("r", Receipt.model_validate(make_receipt(cases)))
    assert t.breakdown is not None
    assert [c.label for c in t.breakdown.columns] == [
        "case",
        "with skill",
        "baseline",
        "lift",
        "draws (with · baseline)",
        "lift without this case",
        "helps or hurts",
        "note",
    ]
    assert [len(r.cells) for r in t.breakdown.rows] == [8, 8]


def test_the_file_sha256_is_the_given_bytes_hash_and_empty_without_bytes() -> None:
    # the committed file's sha256 as `sha256sum` printed it
    raw = CAVEMAN.read_bytes()
    said = "3e927e374abb6c60ac2603757e5d9d53fad505532bd1a6563b577e7a7db7ed99"
    assert receipt_tables("caveman", parse_receipt(raw), raw).file_sha256 == said
    assert receipt_tables("caveman", parse_receipt(raw)).file_sha256 == ""


def test_the_files_own_size_decides_the_breakdowns_limit(monkeypatch) -> None:
    # the file as written (indented, so bigger than its canonical JSON) is one byte over the
    # limit: no breakdown, though its canonical JSON alone is under it; at the limit, one
    cases = [case("c1", [0.7, 0.72, 0.71], [0.5, 0.52, 0.51])]
    cases.append(case("c2", [0.6, 0.6, 0.62], [0.6, 0.61, 0.6]))
    doc = make_receipt(cases)
    raw = json.dumps(doc, indent=8).encode()
    monkeypatch.setattr("driftproof.receipt._bounds.BREAKDOWN_MAX_BYTES", len(raw) - 1)
    assert receipt_tables("r", Receipt.model_validate(doc), raw).breakdown is None
    monkeypatch.setattr("driftproof.receipt._bounds.BREAKDOWN_MAX_BYTES", len(raw))
    assert receipt_tables("r", Receipt.model_validate(doc), raw).breakdown is not None
