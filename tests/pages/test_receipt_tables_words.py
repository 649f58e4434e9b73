"""The receipt tables' words, worked out by hand from the receipts (surviving mutants of
driftproof/pages/receipt_tables.py)."""

from __future__ import annotations

from pathlib import Path

from factories import case, make_receipt

from driftproof.pages.receipt_tables import receipt_tables
from driftproof.receipt import Receipt, read_receipt

ROOT = Path(__file__).resolve().parents[2]


def test_the_level_is_said_in_words_only_where_the_receipt_is_below_tested() -> None:
    # A TESTED full run's verdict line needs no level; an import is DECLARED, and says why it
    # gets no verdict in the level's own words.
    tested = Receipt.model_validate(make_receipt([case("c1", [0.5, 0.7], [0.4, 0.6])]))
    assert receipt_tables("t", tested).level == ""
    name = "claude-plugin-eval-probe-plugin-8955eb63"
    declared = read_receipt(ROOT / "receipts" / f"{name}.json")
    assert receipt_tables(name, declared).level == (
        "DECLARED: imported from another tool's results, recorded faithfully; never given a verdict"
    )
