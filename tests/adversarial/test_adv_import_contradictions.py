"""A source whose score contradicts its own record of it is refused, not imported as recorded.

``claude plugin eval``: a run whose score contradicts its own graders.

SOURCE.md (data/interop/claude-plugin-eval): a run's ``score`` is the weighted share of its
scored graders (``scored: true``) that passed. In the real two-arm document the with run's one
scored grader, ``criteria``, passed (score 1) and the without run's failed (score 0). A run
that says ``criteria`` failed but scores 1 imported as 1.000, a number the source's own record
does not support; it is now refused at that score.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from factories import run_main

DOC = "data/interop/claude-plugin-eval/aggregate-result.two-arm.json"


@pytest.fixture
def doc(shared: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((shared / DOC).read_text(encoding="utf-8"))
    return copy.deepcopy(data)


def _import(doc: dict[str, Any], tmp_path: Path, capsys: Any) -> tuple[int, str, Path]:
    path = tmp_path / "aggregate-result.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run_main(
        ["import", "claude-plugin-eval", str(path), "--out-dir", str(out)], capsys
    )
    return code, err, out


def test_a_score_its_graders_contradict_is_refused(
    doc: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    doc["cases"][0]["arms"]["with"][0]["graders"][0]["passed"] = False  # criteria failed
    code, err, out = _import(doc, tmp_path, capsys)
    assert code == 2
    assert (
        f"{tmp_path / 'aggregate-result.json'}: /cases/0/arms/with/0/score: expected 0, the "
        "weighted share of the run's scored graders that passed (/cases/0/arms/with/0/graders), "
        "found 1: the run contradicts itself"
    ) in err
    assert not out.exists()


def test_weights_are_read_as_the_source_defines_them(
    doc: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    # criteria passed at weight 3, a second scored grader failed at weight 1: 3 / 4 = 0.75
    run = doc["cases"][0]["arms"]["with"][0]
    run["graders"][0]["weight"] = 3
    run["graders"].append({"name": "x", "passed": False, "weight": 1, "scored": True})
    run["score"], run["passed"] = 0.75, False  # SOURCE.md: "passed — score is 1"
    doc["aggregates"] = doc["cases"][0]["aggregates"] = None  # they summed the old run
    code, err, out = _import(doc, tmp_path, capsys)
    assert (code, err) == (0, "")
    (receipt,) = out.iterdir()
    with_skill = json.loads(receipt.read_text())["cases"][0]["arms"]["with_skill"]
    assert with_skill["draws"][0]["score"] == 0.75
    run["score"] = 1  # the same graders cannot give 1
    code, err, _ = _import(doc, tmp_path, capsys)
    assert code == 2 and "expected 0.75, the weighted share" in err


@pytest.mark.parametrize(
    ("arm", "passed", "said"),
    [
        # the without run scores 0 (its criteria failed): passed true beside it
        ("without", True, "expected false, as the run's score is 0 and the source passes a run "
         "whose score is 1, found true"),
        # the with run scores 1: passed false beside it
        ("with", False, "expected true, as the run's score is 1 and the source passes a run "
         "whose score is 1, found false"),
    ],
)  # fmt: skip
def test_a_passed_its_score_contradicts_is_refused(
    doc: dict[str, Any], tmp_path: Path, capsys: Any, arm: str, passed: bool, said: str
) -> None:
    # SOURCE.md, per run: "passed — score is 1"
    doc["cases"][0]["arms"][arm][0]["passed"] = passed
    code, err, out = _import(doc, tmp_path, capsys)
    assert code == 2 and not out.exists()
    path = tmp_path / "aggregate-result.json"
    assert f"{path}: /cases/0/arms/{arm}/0/passed: {said}: the run contradicts itself" in err


def test_a_judge_cost_above_its_runs_cost_is_refused(
    doc: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    # SOURCE.md, per run: "costUsd (run estimate), judgeCostUsd (the judge's part of it)"; the
    # with run's costUsd is 0.045988999999999995
    doc["cases"][0]["arms"]["with"][0]["judgeCostUsd"] = 0.05
    code, err, out = _import(doc, tmp_path, capsys)
    assert code == 2 and not out.exists()
    assert (
        f"{tmp_path / 'aggregate-result.json'}: /cases/0/arms/with/0/judgeCostUsd: expected at "
        "most the run's costUsd (0.045988999999999995), which includes the judge's part, found "
        "0.05: the run contradicts itself"
    ) in err
    doc["cases"][0]["arms"]["with"][0]["judgeCostUsd"] = 0.045988999999999995  # all of it
    assert _import(doc, tmp_path, capsys)[0] == 0


PROMPTFOO = "data/interop/promptfoo/sample-export.json"


def test_a_promptfoo_score_its_grading_contradicts_is_refused(
    shared: Path, tmp_path: Path, capsys: Any
) -> None:
    # promptfoo sets a result's score from its grading (src/evaluator.ts: ret.score =
    # checkResult.score; ret.gradingResult = checkResult); the sample's first result: 0.75, 0.75
    doc = json.loads((shared / PROMPTFOO).read_text(encoding="utf-8"))
    first = doc["results"]["results"][0]
    assert first["score"] == first["gradingResult"]["score"] == 0.75
    first["score"] = 0.1
    path, out = tmp_path / "export.json", tmp_path / "out"
    path.write_text(json.dumps(doc), encoding="utf-8")
    arms = ["--arm", "with_skill=openai:gpt-5", "--arm", "baseline=openai:gpt-5-mini"]
    argv = ["import", "promptfoo", str(path), *arms, "--skill-name", "s", "--out-dir", str(out)]
    code, _, err = run_main(argv, capsys)
    assert code == 2
    assert (
        f"{path}: /results/results/0/score: expected 0.75, the same figure at "
        "/results/results/0/gradingResult/score; found 0.1: the source contradicts itself"
    ) in err
    assert not out.exists()
