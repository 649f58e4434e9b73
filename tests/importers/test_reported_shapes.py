"""Shapes quoted in other tools' bug reports, trimmed to what each importer reads.

Each test keeps the tool's own field names and values as the report (or the fix it links) shows
them; the figures asserted are the file's own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import sealed, write_json

from driftproof.errors import ImportError_
from driftproof.importers.dotnet_skills import import_skill_validator
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
from driftproof.importers.skill_creator import import_skill_creator

_PROVIDER = "openai:gpt-4o-mini"
_API_ERROR = 'API error: 400 Bad Request\n{"error":{"message":"Invalid \'max_tokens\'"}}'


def _promptfoo_row(q: str, **row: Any) -> dict[str, Any]:
    return {
        "provider": {"id": _PROVIDER},
        "prompt": {"raw": f"Answer: {q}", "label": "Answer: {{q}}"},
        "vars": {"q": q},
        "testCase": {"vars": {"q": q}},
        "promptId": "p1",
        "namedScores": {},
        **row,
    }


def test_a_provider_error_promptfoo_kept_failure_reason_0_for_is_lost(tmp_path: Path) -> None:
    # https://github.com/promptfoo/promptfoo/pull/3141: before it, an API error set `error` and
    # left failureReason at NONE (0), with score 0 and no gradingResult: never graded.
    doc = {
        "results": {
            "version": 3,
            "results": [
                _promptfoo_row(
                    "2+2",
                    response={"error": _API_ERROR},
                    error=_API_ERROR,
                    success=False,
                    score=0,
                    failureReason=0,
                ),
                _promptfoo_row(
                    "3+3",
                    response={"output": "6"},
                    success=True,
                    score=1,
                    failureReason=0,
                    gradingResult={"pass": True, "score": 1, "reason": "All assertions passed"},
                ),
            ],
        }
    }
    path = write_json(tmp_path / "results.json", doc)
    r = sealed(import_promptfoo(path, PromptfooOptions({"with_skill": _PROVIDER}, "s")))
    by_q = {c.prompt: c.arms.with_skill.draws for c in r.cases}
    (errored,) = by_q["Answer: 2+2"]
    assert errored.score is None and errored.source_error == _API_ERROR
    assert [d.score for d in by_q["Answer: 3+3"]] == [1.0]


_ZEROS = {"mean": 0.0, "stddev": 0.0, "min": 0.0, "max": 0.0}


def _benchmark(runs: list[dict[str, Any]], configs: tuple[str, ...]) -> dict[str, Any]:
    """benchmark.json as skill-creator's aggregate_benchmark.py writes it."""
    summary: dict[str, Any] = {c: {"pass_rate": _ZEROS} for c in configs}
    return {
        "metadata": {"skill_name": "az-cli", "executor_model": "<model-name>", "evals_run": []},
        "runs": runs,
        "run_summary": {**summary, "delta": {"pass_rate": "+0.00", "tokens": "+0"}},
        "notes": [],
    }


@pytest.mark.parametrize("configs", [(), ("with_skill", "without_skill")])
def test_a_benchmark_aggregated_from_no_grading_file_is_refused(
    tmp_path: Path, configs: tuple[str, ...]
) -> None:
    # https://github.com/anthropics/skills/issues/1425 and /issues/518: when no grading.json is
    # found, aggregate_benchmark.py still writes benchmark.json: runs [] and a run_summary of
    # zeros (each configuration's pass_rate mean 0.0), which is no measurement.
    bench = write_json(tmp_path / "iteration-1" / "benchmark.json", _benchmark([], configs))
    with pytest.raises(ImportError_) as e:
        import_skill_creator([bench.parent])
    p = e.value.problems[0]
    assert (p.file, p.pointer) == (str(bench), "/runs")
    assert "no grading.json" in p.message


def _run(config: str, expectations: list[dict[str, Any]]) -> dict[str, Any]:
    # a grading.json with no summary block: pass_rate 0.0 and counts 0 (its .get defaults)
    result = {"pass_rate": 0.0, "passed": 0, "failed": 0, "total": 0, "tokens": 0, "errors": 0}
    return {"eval_id": 1, "configuration": config, "run_number": 1, "result": result,
            "expectations": expectations, "notes": []}  # fmt: skip


def test_a_pass_rate_over_no_counted_assertion_is_no_score(tmp_path: Path) -> None:
    # https://github.com/anthropics/claude-plugins-official/issues/604 and
    # https://github.com/baileyrd/skill_pack/issues/50: a grader's grading.json with only
    # expectations[] (no summary) is aggregated as pass_rate 0.0 of total 0.
    graded = [
        {"text": "Uses paginationOptsValidator", "passed": True, "evidence": "Line 7"},
        {"text": "Uses .paginate() not .collect()", "passed": False, "evidence": "Line 19"},
    ]
    runs = [_run("with_skill", graded), _run("without_skill", [])]
    bench = write_json(tmp_path / "it" / "benchmark.json", _benchmark(runs, ()))
    (case,) = sealed(import_skill_creator([bench])).cases
    assert [d.score for d in case.arms.with_skill.draws] == [0.5]  # 1 of its 2 expectations
    (lost,) = case.arms.baseline.draws  # nothing graded: lost, never 0
    assert lost.score is None and "total 0" in (lost.lost.reason if lost.lost else "")


_SV = "data/interop/dotnet-skills/skill-validator-results/run-2026-02-20T20-44-00-817Z"


def test_a_skill_validator_run_that_timed_out_is_lost_not_graded(
    shared: Path, tmp_path: Path
) -> None:
    # https://github.com/dotnet/skills/pull/438 and /pull/850: a run that hits the scenario
    # timeout is still judged ("scoring may be impacted by aborting model execution before it
    # could produce its full output"); its metrics, and the scenario, say timedOut true.
    doc = json.loads((shared / _SV / "results.json").read_text("utf-8"))
    scenario = doc["verdicts"][0]["scenarios"][0]
    scenario["timedOut"] = scenario["baseline"]["metrics"]["timedOut"] = True
    assert scenario["baseline"]["judgeResult"]["overallScore"] == 1  # the aborted run's grade
    r = sealed(import_skill_validator(write_json(tmp_path / "results.json", doc)))
    case = next(c for c in r.cases if c.id.startswith("Detects-critical-patterns-sync"))
    (lost,) = case.arms.baseline.draws
    assert lost.score is None and lost.lost is not None and "timed out" in lost.lost.reason
    assert [d.score for d in case.arms.with_skill.draws] == [1.0]  # overallScore 5 on 1..5


def test_a_promptfoo_result_whose_grader_could_not_grade_is_lost_not_scored(
    shared: Path, tmp_path: Path
) -> None:
    # https://github.com/promptfoo/promptfoo/issues/2084: "Could not extract JSON from llm-rubric
    # response" failed assertions at random; https://github.com/promptfoo/promptfoo/pull/8986
    # tags such a grader transport or parse failure {pass: false, score: 0,
    # metadata: {graderError: true}} (matchers' graderFail, "same shape as fail"), and promptfoo
    # averages that 0 into the result's score. found: the draw was measured at that score
    doc = json.loads((shared / "data/interop/promptfoo/sample-export.json").read_text("utf-8"))
    row = doc["results"]["results"][2]  # gpt-5-mini, the boat riddle: cost, latency, llm-rubric
    said = "Could not extract JSON from llm-rubric response"
    rubric = row["gradingResult"]["componentResults"][2]
    assert rubric["assertion"]["type"] == "llm-rubric" and rubric["pass"] is True
    rubric.update({"pass": False, "score": 0, "reason": said, "metadata": {"graderError": True}})
    row["score"] = row["gradingResult"]["score"] = 1 / 3  # (1 + 0 + 0) / 3, as promptfoo writes
    arms = {"with_skill": "openai:gpt-5-mini", "baseline": "openai:gpt-5"}
    r = sealed(
        import_promptfoo(
            write_json(tmp_path / "out.json", doc), PromptfooOptions(arms=arms, skill_name="s")
        )
    )
    d = r.cases[1].arms.with_skill.draws[0]
    assert d.score is None and d.lost.kind == "unscored"
    assert d.lost.reason.startswith("llm-rubric: ") and d.lost.reason.endswith(
        f"could not run: {said}"
    )
    assert [c.outcome for c in d.checks] == ["pass", "fail", "error"]  # kept, as recorded
    assert r.cases[1].arms.baseline.draws[0].score == pytest.approx(2 / 3)  # the other counts
