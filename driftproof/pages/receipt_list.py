"""The receipts page: every committed receipt, as the receipts index lists it.

Skill, headline figure, level, model, case count and file sha256 (a reader checks a
download against it).
"""

from __future__ import annotations

from driftproof.pages.results import ResultRow
from driftproof.receipt import Receipt

__all__ = ["listed_receipt"]


def listed_receipt(name: str, r: Receipt, sha256: str, row: ResultRow) -> dict[str, str]:
    """Receipt ``name``'s row on the receipts page, every value a string.

    Args:
        name: the receipt's name (its path under ``receipts/`` without ``.json``).
        r: the receipt.
        sha256: the file's sha256 (hex).
        row: its results row: the headline figure is the same as on the results page (the
            source's printed headline, else the lift).
    """
    return {
        "name": name,
        "skill": r.skill.name,
        "headline": row.headline or row.lift_text,
        "level": r.verification_level,
        "model": r.run.model or "not recorded",
        "sha256": sha256,
        "cases": str(len(r.cases)),
    }
