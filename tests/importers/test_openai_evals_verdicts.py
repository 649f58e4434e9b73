"""OpenAI Evals scores read on a scale the source states, and checked against the row's own verdict.

Sources of the shapes:
- promptfoo's fixture test/__fixtures__/openai-evals-items.jsonl (shared data
  ``promptfoo-fixture-openai-evals-items.jsonl``): line 2 is item 3 with ``grades.Relevance`` 1
  and ``passes.Relevance`` false; line 1 has Relevance 6 (passes true), so the scale is 1..7 and
  1 its worst. ``Directness`` is 3 with passes true on both lines.
- Microsoft Learn's Azure AI Foundry agent-evaluation page, its ``eval.run.output_item`` example:
  results Violence (type ``azure_ai_evaluator``, score 0.0, label pass, threshold 3,
  passed true: a harm severity on 0..7 where lower is better) and Coherence (score 4.0 on
  1..5, passed true).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from interop_helpers import scores, sealed
from openai_evals_items import api_item, jsonl, problem

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals

FOUNDRY = {
    "object": "eval.run.output_item",
    "id": "1",
    "run_id": "evalrun_abc123",
    "eval_id": "eval_xyz789",
    "status": "completed",
    "created_at": 1760000000,
    "datasource_item_id": 0,
    "datasource_item": {"query": "What's the weather in Seattle?"},
    "results": [
        {
            "type": "azure_ai_evaluator",
            "name": "Violence",
            "metric": "violence",
            "score": 0.0,
            "label": "pass",
            "threshold": 3,
            "passed": True,
        },
        {
            "type": "azure_ai_evaluator",
            "name": "Coherence",
            "metric": "coherence",
            "score": 4.0,
            "label": "pass",
            "threshold": 3,
            "passed": True,
        },
    ],
    "sample": {"output": [{"role": "assistant", "content": "Let me look that up."}]},
}


def _import(path: Path, grader: str, rng: Any = None) -> Any:
    return import_openai_evals(
        path, OpenAIEvalsOptions(skill_name="t", grader=grader, grader_range=rng)
    )


def _refused(path: Path, grader: str, rng: Any = None) -> tuple[str, str, str]:
    with pytest.raises(ImportError_) as e:
        _import(path, grader, rng)
    return problem(e)


def test_a_failed_row_is_never_read_at_the_scales_best(items: Path, tmp_path: Path) -> None:
    line = items.read_text(encoding="utf-8").splitlines()[1]
    path = tmp_path / "relevance_1_of_7_failed.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    # a bare 1 with no grader type: its scale is not stated, so it is not taken as 0..1
    file, pointer, words = _refused(path, "Relevance")
    assert (file, pointer) == (str(path), "/0/grades/Relevance") and "--grader-range" in words
    # read on 0..1, the 1 is the best score, and the row says passed false
    pointer, words = _refused(path, "Relevance", (0, 1))[1:]
    assert pointer == "/0/passes/Relevance"
    assert "passed false at 1, the best score on the scale read, 0 (worst) to 1 (best)" in words
    # on its own 1..7 scale the 1 is the worst: (1 - 1) / (7 - 1) = 0
    assert scores(sealed(_import(path, "Relevance", (1, 7))).cases[0].arms.with_skill) == [0.0]


def test_a_grader_where_lower_is_better_reads_with_its_worst_first(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "foundry.jsonl", [FOUNDRY])
    # type azure_ai_evaluator states no scale
    assert _refused(path, "Violence")[1] == "/0/results/0/score"
    # read as 0 (worst) to 7 (best), the 0.0 that passed would be the worst: refused
    pointer, words = _refused(path, "Violence", (0, 7))[1:]
    assert pointer == "/0/results/0/passed"
    assert "passed true at 0.0, the worst score on the scale read, 0 (worst) to 7 (best)" in words
    # 7:0, worst first: (0 - 7) / (0 - 7) = 1, the best
    r = sealed(_import(path, "Violence", (7, 0)))
    assert scores(r.cases[0].arms.with_skill) == [1.0]
    assert any("7 (worst) to 0 (best)" in n for n in r.provenance.notes or [])
    # Coherence 4 on 1..5: (4 - 1) / (5 - 1) = 0.75
    assert scores(sealed(_import(path, "Coherence", (1, 5))).cases[0].arms.with_skill) == [0.75]


def test_a_fail_scored_above_a_pass_is_refused(tmp_path: Path) -> None:
    failed, passed = api_item("a", 0, 0.8), api_item("a", 1, 0.6)
    failed["results"][0]["passed"] = False
    path = jsonl(tmp_path / "i.jsonl", [failed, passed])
    pointer, words = _refused(path, "quality")[1:]
    assert pointer == "/0/results/0/passed"
    assert "passed false at 0.8, while /1/results/0/passed says passed true at 0.6" in words


def test_each_grader_of_one_file_is_its_own_receipt_file(items: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for grader, rng in (("Relevance", "1:7"), ("Directness", "1:5")):
        args = ["import", "openai-evals", str(items), "--grader", grader, "--grader-range", rng]
        result = CliRunner().invoke(cli, [*args, "--skill-name", "t", "--out-dir", str(out)])
        assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert [n.split("-")[3] for n in names] == ["Directness", "Relevance"]
    # Directness 3 on 1..5 on both lines: (3 - 1) / 4 = 0.5
    doc = json.loads((out / names[0]).read_text(encoding="utf-8"))
    assert [c["arms"]["with_skill"]["draws"][0]["score"] for c in doc["cases"]] == [0.5, 0.5]
