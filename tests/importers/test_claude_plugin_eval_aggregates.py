"""``claude plugin eval`` aggregates and suite cost checked against the runs they summarise.

The real two-arm document (``data/interop/claude-plugin-eval/aggregate-result.two-arm.json``,
read by hand): one case, with run score 1 (passed), without run score 0 (not passed); case
aggregates score 1, passRate 1, scoreWithout 0, passRateWithout 0, delta 1; document
casesTotal 1, casesPassed 1 (threshold 1), overallScore 1, overallPassRate 1 (a share of cases,
whatever its exact reading: from 0 to 1), meanDelta 1;
run costs 0.045988999999999995 + 0.0390888 = 0.0850778 USD, the suite's costUsd. SOURCE.md
defines each figure ("The fields, in brief").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import sealed, write_json

from driftproof.errors import ImportError_
from driftproof.importers.claude_plugin_eval import import_claude_plugin_eval

DOC = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"


def _doc(shared: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((shared / DOC).read_text(encoding="utf-8"))
    return data


def test_the_real_document_agrees_with_itself(shared: Path, tmp_path: Path) -> None:
    (r,) = import_claude_plugin_eval(write_json(tmp_path / "aggregate-result.json", _doc(shared)))
    assert sealed(r).provenance.details["source_aggregates"]["meanDelta"] == 1


@pytest.mark.parametrize(
    ("at", "member", "value", "pointer", "words"),
    [
        ("case", "score", 0.5, "/cases/0/aggregates/score", "the mean score of its 1 with run,"),
        ("case", "passRate", 0, "/cases/0/aggregates/passRate", "expected 1, the share passed"),
        ("case", "scoreWithout", 0.5, "/cases/0/aggregates/scoreWithout", "expected 0,"),
        ("case", "passRateWithout", 1, "/cases/0/aggregates/passRateWithout", "expected 0,"),
        ("case", "delta", 0.5, "/cases/0/aggregates/delta", "expected 1, score minus"),
        ("doc", "casesTotal", 3, "/aggregates/casesTotal", "expected 1, the cases"),
        ("doc", "casesPassed", 2, "/aggregates/casesPassed", "at most casesTotal (1)"),
        ("doc", "casesPassed", 0, "/aggregates/casesPassed", "expected 1, the cases whose"),
        ("doc", "overallScore", 0.75, "/aggregates/overallScore", "expected 1, the mean"),
        ("doc", "meanDelta", 0.5, "/aggregates/meanDelta", "expected 1, the mean"),
        ("doc", "overallPassRate", 1.5, "/aggregates/overallPassRate", "number from 0 to 1"),
        ("doc", "overallPassRate", -0.25, "/aggregates/overallPassRate", "number from 0 to 1"),
        ("doc", "costUsd", 0.05, "/costUsd", "at least its runs' costs added up (0.0850778)"),
        ("doc", "costUsd", -1, "/costUsd", "at least its runs' costs"),
    ],
)
def test_aggregates_the_runs_contradict_are_refused(
    shared: Path, tmp_path: Path, at: str, member: str, value: Any, pointer: str, words: str
) -> None:
    doc = _doc(shared)
    target = doc["cases"][0]["aggregates"] if at == "case" else doc["aggregates"]
    (doc if member == "costUsd" else target)[member] = value
    with pytest.raises(ImportError_) as exc:
        import_claude_plugin_eval(write_json(tmp_path / "aggregate-result.json", doc))
    (p,) = exc.value.problems
    assert p.pointer == pointer and words in p.message and p.file.endswith("aggregate-result.json")


def test_an_errored_run_leaves_its_arm_figures_uncompared(shared: Path, tmp_path: Path) -> None:
    """The source may grade an errored run on what it produced, so its score is its own."""
    doc = _doc(shared)
    doc["cases"][0]["arms"]["with"][0]["error"] = "timed out"
    doc["cases"][0]["aggregates"]["score"] = 0.5
    doc["cases"][0]["aggregates"]["delta"] = 0.5
    doc["aggregates"].update(overallScore=0.5, meanDelta=0.5, casesPassed=0)
    sealed(import_claude_plugin_eval(write_json(tmp_path / "aggregate-result.json", doc))[0])
