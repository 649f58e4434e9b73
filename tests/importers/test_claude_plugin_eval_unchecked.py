"""claude plugin eval: a run's score its own graders cannot confirm is lost, never measured.

Read by hand from ``data/interop/claude-plugin-eval/aggregate-result.two-arm.json`` (SOURCE.md,
"The fields, in brief": a run's ``score`` is the weighted share of its scored graders that
passed). Its without run scores 0 on one grader result, ``criteria`` (weight 1, ``scored:
true``, ``passed: false``, explanation "pattern not found in last_message"); its with run scores
1 on ``criteria`` (passed) beside ``skill-fired`` (``scored: false``, passed: the skill fired).
Neither real file has a run whose scored grader records no pass or fail, or whose graders are
all unscored; these documents edit that shape into the real one.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import docs, sealed, write_json

from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval

PLUGIN_DOC = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"


def _receipt(shared: Path, tmp_path: Path, arm: str, **criteria: Any) -> Any:
    doc: dict[str, Any] = copy.deepcopy(json.loads((shared / PLUGIN_DOC).read_text("utf-8")))
    (result,) = [g for g in doc["cases"][0]["arms"][arm][0]["graders"] if g["name"] == "criteria"]
    result.update(criteria)
    (body,) = docs(import_claude_plugin_eval(write_json(tmp_path / "a.json", doc)))
    return sealed(body).cases[0].arms


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (
            {"passed": None},
            "its scored grader 'criteria' recorded no pass or fail (it says 'pattern not found "
            "in last_message')",
        ),
        ({"scored": False}, "none of its graders is scored"),
    ],
)
def test_a_baseline_score_0_its_graders_cannot_confirm_is_lost(
    shared: Path, tmp_path: Path, edit: dict[str, Any], why: str
) -> None:
    arms = _receipt(shared, tmp_path, "without", **edit)
    (draw,) = arms.baseline.draws
    assert draw.score is None and draw.lost is not None and draw.lost.kind == "unscored"
    assert draw.lost.reason == f"the source's score 0 could not be checked: {why}"
    assert [d.score for d in arms.with_skill.draws] == [1.0]  # the other arm as recorded


def test_the_with_skill_arm_with_the_same_gap_is_lost_alike(shared: Path, tmp_path: Path) -> None:
    # criteria unscored beside the unscored skill-fired indicator: no scored grader is left
    arms = _receipt(shared, tmp_path, "with", scored=False)
    (draw,) = arms.with_skill.draws
    assert draw.score is None and draw.lost is not None and draw.lost.kind == "unscored"
    assert draw.lost.reason == (
        "the source's score 1 could not be checked: none of its graders is scored"
    )
    assert draw.skill_fired is True  # kept beside the lost draw, as the source recorded it
    assert [d.score for d in arms.baseline.draws] == [0.0]
