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


SINGLE_DOC = "data/interop/claude-plugin-eval/aggregate-result.single-arm.json"


def test_a_pass_written_as_0_or_1_is_refused_once_saying_a_boolean_was_expected(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # the single-arm document's one run records passed and its two graders' passed: three
    # places. Written as 1 (the run) and 0 (each grader), each was refused on a line of its own,
    # "expected true or false or null, found a number"; it is one mistake, said at its first
    # place in document order (graders before the run's own member), with the two after it
    from factories import run_main

    doc: dict[str, Any] = json.loads((shared / SINGLE_DOC).read_text("utf-8"))
    run = doc["cases"][0]["arms"]["with"][0]
    assert [g["passed"] for g in run["graders"]] == [True, True] and run["passed"] is True
    run["passed"], run["graders"][0]["passed"], run["graders"][1]["passed"] = 1, 0, 0
    path, out = write_json(tmp_path / "a.json", doc), tmp_path / "out"
    argv = ["import", "claude-plugin-eval", str(path), "--out", str(out)]
    assert run_main(argv, capsys) == (
        2,
        "",
        f"error: {path}: /cases/0/arms/with/0/graders/0/passed: expected a boolean (true or "
        "false) or null, found the number 0; 2 more places write a boolean as 0 or 1\n",
    )
    assert not out.exists()
    # one place alone: no count
    run["graders"][0]["passed"] = run["graders"][1]["passed"] = True
    write_json(path, doc)
    assert run_main(argv, capsys)[2] == (
        f"error: {path}: /cases/0/arms/with/0/passed: expected a boolean (true or false) or "
        "null, found the number 1\n"
    )
