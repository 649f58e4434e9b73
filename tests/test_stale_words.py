"""``driftproof stale`` in a newcomer's reading: a simulated receipt that still stands says it is
simulated, and "not supplied for today" is said once per arm, before the fields it covers."""

from __future__ import annotations

import json
from pathlib import Path

from factories import case, make_receipt
from receipt_docs import seal_document

from driftproof.pages.stale import Today, stale_report
from driftproof.receipt import parse_receipt, read_receipt
from driftproof.render.stale import stale_text

CAVEMAN = Path(__file__).resolve().parents[1] / "receipts" / "caveman-2b10489-caveman.json"
NOT_SUPPLIED = "not supplied for today, so not checked"


def _receipt(provider: str):
    doc = make_receipt([case("c1", [0.7, 0.72, 0.71], [0.5, 0.52, 0.51])], level="UNVERIFIED")
    doc["run"]["provider"] = provider
    doc["skill"]["sha256"], doc["suite"]["sha256"] = "a" * 64, "b" * 64
    return parse_receipt(json.dumps(seal_document(doc)).encode())


def test_a_simulated_receipt_that_still_stands_says_it_is_simulated() -> None:
    # it read "with skill: still stands" with no word that its scores were drawn at random
    today = Today(
        model="claude-sonnet-4-5",
        skill_sha256="a" * 64,
        suite_sha256="b" * 64,
        judge_model="claude-haiku-4-5-20251001",
        judge_service="https://api.anthropic.com",
        judge_template_sha256="0" * 64,
    )
    said = "The receipt is simulated: its answers or scores were drawn at random"
    stub = "The receipt ran on the offline stub for its answers, its grades or both"
    for provider, simulated in (("simulated", True), ("anthropic", False), ("stub", False)):
        text = stale_text(stale_report(_receipt(provider), today))
        assert text.startswith("with skill: still stands\nbaseline: still stands\n"), text
        assert (said in text) is simulated
        # the stub's fixed answers measure no model either (it read "still stands" alone)
        assert (stub in text) is (provider == "stub")


def test_not_supplied_is_said_once_per_arm_before_its_fields() -> None:
    # caveman's receipt with nothing given today said "not supplied for today, so not checked"
    # fourteen times: each arm's every field, then each field's own line
    r = read_receipt(CAVEMAN)
    assert (r.run.model, r.run.harness is not None, r.skill.sha256 is not None) == (
        "claude-opus-4-6",
        True,
        True,
    )
    lines = stale_text(stale_report(r, Today())).split("\n")
    # four fields "…: the receipt does not record it" read as one; said of any number alike
    unrecorded = "capture mode, judge, judge prompt template and suite: not recorded in the receipt"
    assert lines[:3] == [
        f"with skill: unknown (model, harness, harness version and skill: {NOT_SUPPLIED}; "
        f"{unrecorded})",
        f"baseline: unknown (model, harness and harness version: {NOT_SUPPLIED}; {unrecorded})",
        f"control: unknown (model, harness and harness version: {NOT_SUPPLIED}; {unrecorded})",
    ]
    assert "\n".join(lines).count(NOT_SUPPLIED) == 3
    assert (
        lines[-4]
        == "- model: recorded claude-opus-4-6, today not supplied (give --model) -> unknown"
    )
