"""The receipts page's row of one receipt: skill, headline, level, model, cases, file sha256."""

from __future__ import annotations

from driftproof.pages.results import ResultRow
from driftproof.receipt import Receipt


def listed_receipt(name: str, r: Receipt, sha256: str, row: ResultRow) -> dict[str, str]:
    """Receipt ``name``'s row, with the headline of its results ``row`` and its file's sha256."""
    return {
        "name": name,
        "skill": r.skill.name,
        "headline": row.headline or row.lift_text,
        "level": r.verification_level,
        "model": r.run.model or "not recorded",
        "sha256": sha256,
        "cases": str(len(r.cases)),
    }
