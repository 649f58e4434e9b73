"""``driftproof plan`` and ``driftproof stale`` as text (driftproof.render): the layout worked
out by hand from the page model, and untrusted text (a case id, a recorded model name) shown
with its controls escaped by the one terminal rule."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from factories import small_plan

from driftproof.pages.plan import RUN_AFRESH, CasePlan
from driftproof.pages.stale import ArmStaleness, Finding, StaleReport
from driftproof.render.plan import plan_json, plan_text
from driftproof.render.stale import stale_text
from driftproof.stats.planning import ArmPool


def test_plan_text_layout() -> None:
    assert plan_text(small_plan("c1")) == (
        # what to run straight under the headline, then calls and cost, then the cases
        "Run 7 draws per arm.\n"
        "To draw each arm 7 times, give driftproof run --draws 7.\n"
        f"{RUN_AFRESH}\n"
        "Calls for a run of 7 draws per arm: 14 answers over 1 case × 2 arms; judge calls 42.\n"
        "Estimated grading cost of a run of 7 draws per arm: $0.50 (by hand).\n"
        "  c1: 7 (pilot measured 3 with skill, 3 baseline)\n"
    )


def test_plan_text_says_which_bounds_are_pooled_and_groups_counts() -> None:
    # with skill pooled (Bartlett p .5 ≥ 5%), baseline kept apart (p .01): only the first bound
    # is the pooled spread's, below this case's own 0.030; 1,200 × 1 case × 2 arms = 2,400
    # answers, 3 judge samples each = 7,200 judge calls
    case = CasePlan("c1", 1200, False, (3, 3), (0.030, 0.026), (0.029, 0.032), levels=(0.8, 0.8))
    apart = ArmPool(3, 9.0, 0.01, 0.03, 6)
    pooled = ArmPool(3, 1.0, 0.5, 0.02, 6)
    p = dataclasses.replace(
        small_plan("c1"), draws_per_arm=1200, cases=(case,), answer_calls=2400, judge_calls=7200
    )
    lines = plan_text(dataclasses.replace(p, pools=(pooled, apart))).splitlines()
    assert lines[0] == "Run 1,200 draws per arm."
    assert lines[1:6] == [
        "A receipt holds at most 1,000 draws per arm, so no one run can draw each arm 1,200 "
        "times: narrow the spreads (a steadier judge or case) first.",
        "Calls for a run of 1,200 draws per arm: 2,400 answers over 1 case × 2 arms; judge "
        "calls 7,200.",
        "Estimated grading cost of a run of 1,200 draws per arm: $0.50 (by hand).",
        "  c1: 1,200 (pilot measured 3 with skill, 3 baseline; spreads 0.030 and 0.026, bounds "
        "0.029 (pooled upper 80%) and 0.032 (upper 80%))",
        "Why this count:",  # the pooling, reasoning, under its heading after the cases
    ]
    assert lines[6].startswith("With skill: the spreads of the 3 cases agree, so they are pooled")
    out = plan_text(dataclasses.replace(p, pools=(pooled, pooled)))
    assert "spreads 0.030 and 0.026, pooled upper 80% bounds 0.029 and 0.032)" in out


def test_plan_text_escapes_a_hostile_case_id() -> None:
    out = plan_text(small_plan("c1\x1b[2J\u202eevil\nline"))
    assert "\x1b" not in out and "\u202e" not in out
    assert "  c1\\x1b[2J\\u202eevil\\x0aline: 7 (pilot" in out
    assert len(out.splitlines()) == 6  # headline, --draws, a new run, calls, cost, the case


def test_plan_json_refuses_nan_and_infinity() -> None:
    """``plan --format json`` refuses a NaN or an infinity, as every JSON output does; a cost
    past the largest float, infinite, is null (test_plan_batch: too large to state)."""
    assert json.loads(plan_json(small_plan("c1")))["judge_usd"] == 0.5
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="JSON compliant"):
            plan_json(dataclasses.replace(small_plan("c1"), effect=bad))
    with pytest.raises(ValueError, match="JSON compliant"):
        plan_json(dataclasses.replace(small_plan("c1"), judge_usd=float("nan")))


def test_plan_json_tells_an_unknown_cost_from_one_too_large_to_state() -> None:
    """Both are null (no JSON number holds an infinity); only one too large is named in
    ``too_large_to_state``, as the text says "too large to state" for it and "unknown" else."""
    unknown = json.loads(plan_json(dataclasses.replace(small_plan("c1"), judge_usd=None)))
    assert unknown["judge_usd"] is None and unknown["too_large_to_state"] == []
    big = dataclasses.replace(small_plan("c1"), judge_usd=math.inf, judge_usd_batch=math.inf)
    doc = json.loads(plan_json(big))
    assert doc["judge_usd"] is None and doc["judge_usd_batch"] is None
    assert doc["too_large_to_state"] == ["judge_usd", "judge_usd_batch"]


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


def test_plan_text_says_the_fewest_runs_it_simulates() -> None:
    # 5,000 draws per arm: 200,000 ÷ 5,000 = 40 runs would fit, under the floor of 100 runs
    p = dataclasses.replace(small_plan("c1"), draws_per_arm=5000, p_verdict=0.5, verdict_trials=100)
    assert "(simulated, 100 runs per case, the fewest it simulates, at the pilot's" in plan_text(p)
