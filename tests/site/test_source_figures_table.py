"""The source's own figures on caveman's judged-fidelity receipt: a column empty in every row is
left out and the note every risk row shared is said once, the figures unchanged.

Expected rows are worked out from the receipt's JSON (source_report.figures), not the sheet."""

from __future__ import annotations

import json
from pathlib import Path

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt
from driftproof.render.sheet import sheet_text

JUDGED = Path(__file__).parents[2] / "receipts" / "caveman-5c7e19a-judged-fidelity-caveman.json"
#: caveman's rubric file: risk "selects the tolerance band in evals/gate.py"
RISK = "Risk: the rubric's rating of how much fidelity loss the source's gate allows (high: none)"


def _figures() -> list[tuple[str, str, str, str]]:
    figures = json.loads(JUDGED.read_text(encoding="utf-8"))["source_report"]["figures"]
    assert all(f["arm"] == "with_skill" and "lower" not in f for f in figures)  # no interval
    return [(f["label"], f["case"], "with skill", f["printed"]) for f in figures]


def test_the_figures_table_has_no_empty_column_and_says_the_risk_note_once() -> None:
    expected = _figures()
    assert len(expected) == 20  # a fidelity figure and a risk rating for each of 10 prompts
    t = next(x for x in receipt_tables("j", read_receipt(JUDGED)).source if "source-report" in x.id)
    assert [c.label for c in t.columns] == ["figure", "case", "arm", "as the source gave it"]
    assert [tuple(c.text for c in row.cells) for row in t.rows] == expected
    assert t.caption.count("the rubric's rating") == 1 and t.caption.endswith(f". {RISK}")


def test_view_prints_the_same_four_columns_and_the_note_once() -> None:
    text = sheet_text(sheet(read_receipt(JUDGED)))
    part = text[text.index("The source's own figures and decision (no band") :]
    assert part.splitlines()[1].split() == [
        "figure",
        "case",
        "arm",
        "as",
        "the",
        "source",
        "gave",
        "it",
    ]
    assert text.count("the rubric's rating") == 1 and f"  {RISK}\n" in part
