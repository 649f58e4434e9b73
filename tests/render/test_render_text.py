"""``driftproof plan`` and ``driftproof stale`` as text (driftproof.render): the layout worked
out by hand from the page model, and untrusted text (a case id, a recorded model name) shown
with its controls escaped by the one terminal rule."""

from __future__ import annotations

import dataclasses
import json

import pytest

from driftproof.pages.plan import CasePlan, Plan
from driftproof.pages.stale import ArmStaleness, Finding, StaleReport
from driftproof.render.plan import plan_json, plan_text
from driftproof.render.stale import stale_text


def _plan(case_id: str) -> Plan:
    return Plan(
        draws_per_arm=7,
        cases=(CasePlan(case_id, 7, False, (3, 3)),),
        no_count_cases=(),
        unknown_cases=(),
        cases_disagree=False,
        sentence=None,
        cases_needed=None,
        arms=("with_skill", "baseline"),
        answer_calls=14,
        judge_calls=42,
        judge_usd=0.5,
        cost_note="by hand",
    )


def test_plan_text_layout() -> None:
    assert plan_text(_plan("c1")) == (
        "Run 7 draws per arm.\n"
        "  c1: 7 (pilot measured 3 with skill, 3 baseline)\n"
        "Calls: 14 answers over 1 cases × 2 arms; judge calls 42.\n"
        "Estimated grading cost: $0.50 (by hand).\n"
    )


def test_plan_text_escapes_a_hostile_case_id() -> None:
    out = plan_text(_plan("c1\x1b[2J\u202eevil\nline"))
    assert "\x1b" not in out and "\u202e" not in out
    assert "  c1\\x1b[2J\\u202eevil\\x0aline: 7 (pilot" in out
    assert len(out.splitlines()) == 4


def test_plan_json_refuses_nan_and_infinity() -> None:
    """``plan --format json`` refuses a NaN or an infinity, as every JSON output does."""
    assert json.loads(plan_json(_plan("c1")))["judge_usd"] == 0.5
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="JSON compliant"):
            plan_json(dataclasses.replace(_plan("c1"), judge_usd=bad))


def test_stale_text_layout_and_escape() -> None:
    report = StaleReport(
        arms=(
            ArmStaleness("with_skill", "must run again", ("model moved",)),
            ArmStaleness("baseline", "still stands", ()),
        ),
        findings=(
            Finding("model", "m-1\x1b]0;x\x07", "m-2", "must run again", ("with_skill",), "moved"),
        ),
    )
    assert stale_text(report) == (
        "with skill: must run again (model moved)\n"
        "baseline: still stands\n"
        "\n"
        "- model: recorded m-1\\x1b]0;x\\x07, today m-2 -> must run again: moved"
    )
