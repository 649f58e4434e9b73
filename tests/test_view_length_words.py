"""Caveman's length receipts (report 001) in the case list: every arm drew an answer that no
grader read and none was lost, so it is "not graded", as the arms table says, never "lost".

What the receipts hold is read from their committed JSON, never from the sheet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.pages.sheet import sheet
from driftproof.receipt import read_receipt

RECEIPTS = Path(__file__).parents[1] / "receipts"
LENGTH = [
    RECEIPTS / f"caveman-2b10489-{n}.json"
    for n in ("caveman", "caveman-cn", "caveman-es", "compress")
]


@pytest.mark.parametrize("path", LENGTH, ids=lambda p: p.stem)
def test_an_arm_no_grader_read_and_nothing_lost_reads_not_graded(path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["judge"] is None  # no grader: no score, no judge sample, no check, nothing lost
    draws = [d for c in doc["cases"] for a in c["arms"].values() if a for d in a["draws"]]
    assert draws and not any(
        d["score"] is not None or d["lost"] or d.get("judge_samples") or d.get("checks")
        for d in draws
    )
    s = sheet(read_receipt(path))
    expected = "with skill not graded; baseline not graded; no verdict"
    assert {c.case_id: c.line for c in s.cases} == {c["id"]: expected for c in doc["cases"]}
    # the arms table says the same of each arm
    assert all(a.draws.endswith(", not graded") for a in s.arms)
