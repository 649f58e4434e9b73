"""claude plugin eval: every grader result with a pass or fail is a check of the draw.

Read by hand from ``data/interop/claude-plugin-eval/aggregate-result.two-arm.json``: its one
case defines a ``regex`` grader ``criteria`` and a ``tool_used`` grader ``skill-fired`` (tool
``Skill``); the with run records both results, the without run ``criteria`` alone. A case may
define a ``tool_used`` grader of another tool (its ``config.tool``); this document adds one,
``used-bash`` (tool ``Bash``, ``scored: false``, failed in both runs), so the scores stand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from interop_helpers import docs, sealed, write_json

from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval

PLUGIN_DOC = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"


def test_a_tool_used_grader_of_another_tool_is_a_check(shared: Path, tmp_path: Path) -> None:
    # found: only regex graders became checks; a failed tool_used check of Bash was passed over
    doc: dict[str, Any] = json.loads((shared / PLUGIN_DOC).read_text("utf-8"))
    case = doc["cases"][0]
    case["graders"].append(
        {"name": "used-bash", "type": "tool_used", "weight": 1, "config": {"tool": "Bash"}}
    )
    said = {"passed": False, "weight": 1, "explanation": "Bash called 0x", "scored": False}
    for key in ("with", "without"):
        case["arms"][key][0]["graders"].append({"name": "used-bash", "withOnly": False, **said})
    (body,) = docs(import_claude_plugin_eval(write_json(tmp_path / "a.json", doc)))
    arms = sealed(body).cases[0].arms
    for draw, criteria in ((arms.with_skill.draws[0], True), (arms.baseline.draws[0], False)):
        shown = [(c.name, c.kind, c.pass_, c.source_type) for c in draw.checks]
        assert shown == [
            ("criteria", "regex", criteria, None),
            ("used-bash", "assertion", False, "tool_used"),
        ]
    assert [d.score for d in arms.with_skill.draws] == [1.0]  # the scores as recorded
    assert [d.score for d in arms.baseline.draws] == [0.0]
