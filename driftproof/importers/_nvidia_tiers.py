"""A SkillEvaluator card's tiers: its Tier Status table read, and what it says per tier kept.

The writer is SkillEvaluator's ``reporting/benchmark.py`` (``_render_tier_status``): a table
``| Tier | Purpose | Status | Evidence |``, one row per tier, then for a tier that was skipped
"Tier 2 validation was skipped and executed 0 checks." and a bullet per reason. The receipt
keeps a tier's name, title and status as a stage; what it has no field for (the Evidence cell, a
sentence about a tier) is kept in its notes as printed, naming the card's line.
"""

from __future__ import annotations

import re
from typing import Any

from driftproof.errors import ImportError_

#: A Tier Status cell, as printed, → the stage status; NOT RUN is a stage that never ran.
_TIER_STATUS = {
    "PASSED": "passed",
    "PASS": "passed",
    "PASSED WITH OBSERVATIONS": "passed_with_observations",
    "FAILED": "failed",
    "FAIL": "failed",
    "NOT RUN": "not_run",
    "INCOMPLETE": "incomplete",
}
#: The Tier Status table's head as SkillEvaluator writes it.
_HEAD = ["Tier", "Purpose", "Status", "Evidence"]
#: The most tiers a receipt keeps as stages (the receipt schema's bound).
MAX_TIERS = 50
#: A sentence about one tier, outside a table: "Tier 2 validation was skipped and executed 0
#: checks.", "- Tier 3 evidence: required for publication", an "Evaluation Report" card's "Tier 1
#: validation passed. NVSkills-Eval ran 9 checks and found 0 total findings." and "This tier was
#: not run or did not produce findings in this report." under its tier's heading.
_PER_TIER = re.compile(r"^(?:- )?(?:Tier \d+\b|This tier\b)")
_SKIPPED = re.compile(r"^Tier \d+ validation was skipped\b")
#: A cell boundary: a pipe the writer did not escape (``_md_cell`` writes ``\\|`` in a cell).
_CELL = re.compile(r"(?<!\\)\|")


def tier_status_line(line: str, head: bool, card: dict[str, Any], file: str, n: int) -> None:
    """One line of the Tier Status table: its head checked, a row read as a stage.

    A row's Evidence cell goes to ``card["kept"]`` as ``(n, "Tier Status", "evidence for Tier
    1: …")``.

    Raises:
        ImportError_: a head other than ``_HEAD``, a row of another shape, or a tier past
            ``MAX_TIERS``, naming the line.
    """
    cells = [c.strip() for c in _CELL.split(line.strip().strip("|"))]
    if head:
        if [c.strip("`* ") for c in cells] != _HEAD:
            raise ImportError_.at(
                file,
                f"line {n}",
                f"expected the Tier Status table's head '| {' | '.join(_HEAD)} |', "
                f"found {line[:200]!r}",
            )
        return
    if all(set(c) <= set("-: ") for c in cells):
        return
    # a tier numbered in at most 3 digits (SkillEvaluator numbers them 1 to 3): a longer name
    # would not fit a receipt's stage name (200 characters)
    if len(cells) != len(_HEAD) or not re.fullmatch(r"Tier \d{1,3}", cells[0]):
        raise ImportError_.at(
            file,
            f"line {n}",
            "expected a tier's row such as '| Tier 1 | Static validation | **PASSED** | 1 "
            f"validator(s); 0 finding(s) |', found {line[:200]!r}",
        )
    if len(card["tiers"]) == MAX_TIERS:
        raise ImportError_.at(
            file, f"line {n}", f"expected at most {MAX_TIERS} tiers (the most a receipt keeps)"
        )
    printed = cells[2].replace("**", "").strip()
    card["tiers"].append(
        {
            "name": cells[0],
            "title": cells[1][:200] or None,
            "status": _TIER_STATUS.get(printed.upper(), "other"),
            "printed": printed[:200],
        }
    )
    card["kept"].append((n, "Tier Status", f"evidence for {cells[0]}: {cells[3]}"))


def per_tier_line(line: str, heading: str, card: dict[str, Any], n: int) -> None:
    """A line not otherwise read, kept when it is a sentence about a tier or a skipped tier's.

    Kept as ``(n, heading, text)`` in ``card["kept"]``: a line ``_PER_TIER`` matches, and each
    reason bullet after "Tier N validation was skipped …" until a blank line.
    """
    if not line:
        card["skip_reasons"] = False
    elif _PER_TIER.match(line) or (card["skip_reasons"] and line.startswith("- ")):
        card["kept"].append((n, heading, line.removeprefix("- ")))
        card["skip_reasons"] = card["skip_reasons"] or bool(_SKIPPED.match(line))
