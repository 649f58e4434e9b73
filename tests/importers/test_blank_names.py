"""A blank text (``""``, ``"   "``) where a source names a model, skill, tool version or harness
names nothing: it is never recorded as that name. Where the receipt can do without the value it
is unknown and listed as unrecorded (D-13); where it cannot (a skill's name), the file is refused
at the blank member's pointer. Each test starts from a real source file in the shared data,
copied and changed in ``tmp_path``; skill-eval-harness (no report is public) and summary-json
(Driftproof's own format) start from their tests' hand-built files.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from interop_helpers import BLANK_TEXTS, nvidia_card, read_json, refused_at, sealed, write_json
from openai_evals_items import FIXTURE as OPENAI_ITEMS
from openai_evals_items import jsonl
from test_skill_eval_harness import _report
from test_summary_json import DOC as SUMMARY

from driftproof.importers.claude_plugin_eval import (
    ClaudePluginEvalOptions,
    import_claude_plugin_eval,
)
from driftproof.importers.dotnet_skills import import_skill_validator
from driftproof.importers.inspect_ai import InspectOptions, import_inspect
from driftproof.importers.nvidia import NvidiaOptions, import_nvidia
from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
from driftproof.importers.skill_creator import import_skill_creator
from driftproof.importers.skill_eval_harness import import_skill_eval_harness
from driftproof.importers.summary_json import import_summary_json

BLANKS = pytest.mark.parametrize("blank", BLANK_TEXTS)
DATA = "data/interop"
RUN = "run-2026-02-20T20-44-00-817Z/results.json"


def _unrecorded(r: Any, head: str) -> bool:
    return any(u.startswith(head) for u in r.provenance.unrecorded)


@BLANKS
def test_skill_validator_blank_skill_name_is_refused(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / DATA / "dotnet-skills/skill-validator-results" / RUN)
    doc["verdicts"][0]["skillName"] = blank
    message = refused_at(
        lambda: import_skill_validator(write_json(tmp_path / "results.json", doc)),
        "/verdicts/0/skillName",
    )
    assert message.startswith("expected the skill's name, found the blank text")


@BLANKS
def test_skill_validator_blank_scenario_name_is_refused(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / DATA / "dotnet-skills/skill-validator-results" / RUN)
    doc["verdicts"][0]["scenarios"][1]["scenarioName"] = blank
    path = write_json(tmp_path / "results.json", doc)
    message = refused_at(
        lambda: import_skill_validator(path), "/verdicts/0/scenarios/1/scenarioName"
    )
    assert message.startswith("expected the scenario's name, found the blank text")


@BLANKS
def test_skill_eval_harness_blank_case_id_is_refused(tmp_path: Path, blank: str) -> None:
    doc = _report()
    doc["results"][2]["case_id"] = blank
    path = write_json(tmp_path / "benchmark.json", doc)
    refused_at(lambda: import_skill_eval_harness(path), "/results/2/case_id")


@BLANKS
def test_skill_eval_harness_blank_model_is_unrecorded(tmp_path: Path, blank: str) -> None:
    doc = _report()
    for row in doc["results"]:
        row["model"] = blank
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "benchmark.json", doc)))
    assert r.run.model is None and _unrecorded(r, "run.model (")
    assert [c.id for c in r.cases] == ["c1", "c2", "c3", "c4", "c5", "c6"]  # no "c1@" ids


def test_skill_eval_harness_a_run_of_no_model_is_not_given_the_others(tmp_path: Path) -> None:
    doc = _report()
    doc["results"][0]["model"] = " "  # one run of c1 names no model; the rest name one
    r = sealed(import_skill_eval_harness(write_json(tmp_path / "benchmark.json", doc)))
    assert r.run.model is None and _unrecorded(r, "run.model (")
    assert [c.id for c in r.cases][:2] == ["c1", "c2"]  # one model named: ids stay plain


@BLANKS
def test_skill_eval_harness_blank_skill_name_is_refused(tmp_path: Path, blank: str) -> None:
    path = write_json(tmp_path / "benchmark.json", _report() | {"skill_name": blank})
    refused_at(lambda: import_skill_eval_harness(path), "/skill_name")


INSPECT = f"{DATA}/inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"


@BLANKS
def test_inspect_blank_model_and_version_are_unrecorded(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / INSPECT)
    doc["eval"]["model"] = blank  # model_graded_fact grades with eval.model: no grader either
    doc["eval"]["packages"]["inspect_ai"] = blank
    path = write_json(tmp_path / "log.json", doc)
    r = sealed(import_inspect({"with_skill": path}, InspectOptions(skill_name="sec")))
    assert r.run.model is None and _unrecorded(r, "run.model (")
    assert r.provenance.tool_version is None and _unrecorded(r, "provenance.tool_version (")
    assert r.judge.model.startswith("unrecorded:") and _unrecorded(r, "judge.model (")


@BLANKS
def test_promptfoo_blank_provider_id_and_version_are_unrecorded(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / DATA / "promptfoo/sample-export.json")
    doc["metadata"]["promptfooVersion"] = blank
    for row in doc["results"]["results"]:  # each row's provider {id, label ""}: by label
        row["provider"] = {"id": blank, "label": row["provider"]["id"]}
    arms = {"with_skill": "openai:gpt-5-mini", "baseline": "openai:gpt-5"}
    path = write_json(tmp_path / "out.json", doc)
    r = sealed(import_promptfoo(path, PromptfooOptions(arms=arms, skill_name="riddles")))
    assert r.run.model is None and _unrecorded(r, "run.model (")
    assert r.provenance.tool_version is None and _unrecorded(r, "provenance.tool_version (")


CPE = f"{DATA}/claude-plugin-eval/aggregate-result.two-arm.json"


@BLANKS
def test_claude_plugin_eval_blank_plugin_name_is_refused(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / CPE)
    doc["suite"]["plugins"][0]["name"] = blank
    path = write_json(tmp_path / "result.json", doc)
    message = refused_at(
        lambda: import_claude_plugin_eval(path, ClaudePluginEvalOptions()), "/suite/plugins"
    )
    assert "--skill-name" in message


@BLANKS
def test_claude_plugin_eval_blank_case_name_is_refused(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / CPE)
    doc["cases"][0]["name"] = blank
    path = write_json(tmp_path / "result.json", doc)
    refused_at(lambda: import_claude_plugin_eval(path, ClaudePluginEvalOptions()), "/cases/0/name")


@BLANKS
@pytest.mark.parametrize("where", ["/cases/0/graders/0", "/cases/0/arms/with/0/graders/0"])
def test_claude_plugin_eval_blank_grader_name_is_refused(
    shared: Path, tmp_path: Path, blank: str, where: str
) -> None:
    doc = read_json(shared / CPE)
    grader = doc
    for key in where.split("/")[1:]:
        grader = grader[int(key) if key.isdigit() else key]
    grader["name"] = blank  # else a check named by the blank text
    path = write_json(tmp_path / "result.json", doc)
    message = refused_at(
        lambda: import_claude_plugin_eval(path, ClaudePluginEvalOptions()), f"{where}/name"
    )
    assert message.startswith("expected the grader's name, found the blank text")


@BLANKS
def test_claude_plugin_eval_blank_claude_version_is_unrecorded(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    path = write_json(tmp_path / "result.json", read_json(shared / CPE) | {"claudeVersion": blank})
    r = sealed(import_claude_plugin_eval(path, ClaudePluginEvalOptions()))
    assert r.provenance.tool_version is None and r.run.harness.version is None
    assert _unrecorded(r, "run.harness version (")


SC = f"{DATA}/skill-creator/anthropic-schemas-examples/benchmark.json"


@BLANKS
def test_skill_creator_blank_executor_model_leaves_the_runs_model(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / SC)
    doc["metadata"]["executor_model"] = blank
    doc["runs"][0]["model"] = "claude-opus-4-1"  # the one run names its model
    r = sealed(import_skill_creator([write_json(tmp_path / "benchmark.json", doc)])[0])
    assert r.run.model == "claude-opus-4-1"


@pytest.mark.parametrize("blank", ["   ", "\t", "\u200b"])  # "" was refused already
def test_skill_creator_blank_eval_id_is_refused(shared: Path, tmp_path: Path, blank: str) -> None:
    doc = read_json(shared / SC)
    doc["runs"][0]["eval_id"] = blank
    path = write_json(tmp_path / "benchmark.json", doc)
    message = refused_at(lambda: import_skill_creator([path]), "/runs/0/eval_id")
    assert message == "expected the case's eval_id (an integer or a string, not blank)"


NV = f"{DATA}/nvidia/benchmarks.json"
NV_OPTS = NvidiaOptions(repository="https://github.com/NVIDIA/skills", commit="0" * 40)


@BLANKS
@pytest.mark.parametrize(
    ("member", "pointer"), [("skill", "/skills/0/skill"), ("agents", "/skills/0/agents/0")]
)
def test_nvidia_catalogue_blank_skill_or_agent_name_is_refused(
    shared: Path, tmp_path: Path, blank: str, member: str, pointer: str
) -> None:
    doc = read_json(shared / NV)
    skill = doc["skills"][0]
    skill[member] = blank if member == "skill" else [blank, *skill["agents"][1:]]
    path = write_json(tmp_path / "benchmarks.json", doc)
    refused_at(lambda: import_nvidia([path], NV_OPTS), pointer)


@BLANKS
def test_nvidia_catalogue_blank_dimension_is_refused(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / NV)
    doc["results"][0]["dimension"] = blank  # else a figure row named by the blank text
    path = write_json(tmp_path / "benchmarks.json", doc)
    message = refused_at(lambda: import_nvidia([path], NV_OPTS), "/results/0/dimension")
    assert message.startswith("expected the dimension's name, found the blank text")


@BLANKS
def test_nvidia_card_blank_dimension_is_refused(shared: Path, tmp_path: Path, blank: str) -> None:
    card = shared / DATA / "nvidia/skills/accelerated-computing-cudf/BENCHMARK.md"
    text = card.read_text(encoding="utf-8")
    assert "\n| Security | 8 |" in text  # line 57 of the card
    path = tmp_path / "BENCHMARK.md"
    path.write_text(text.replace("\n| Security | 8 |", f"\n| {blank} | 8 |"), encoding="utf-8")
    message = refused_at(lambda: import_nvidia([path], NV_OPTS), "line 57, column 1")
    assert message.startswith("expected the dimension's name, found the blank text")


@BLANKS
def test_nvidia_catalogue_blank_evaluator_version_is_unrecorded(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    doc = read_json(shared / NV)
    doc["skills"][0]["evaluator_version"] = blank
    o = dataclasses.replace(NV_OPTS, skills=[doc["skills"][0]["catalog_dir"]])
    r = sealed(import_nvidia([write_json(tmp_path / "benchmarks.json", doc)], o)[0])
    assert r.provenance.tool_version is None and _unrecorded(r, "provenance.tool_version (")


GOLDEN = f"{DATA}/nvidia/skillevaluator/golden-e70f0e3/benchmark_pass/BENCHMARK.md"


def test_nvidia_card_blank_evaluator_version_and_agent_model_are_unrecorded(
    shared: Path, tmp_path: Path
) -> None:
    card = nvidia_card(
        shared, tmp_path, GOLDEN, "- Evaluator version: `0.8.2`", "- Evaluator version: ` `"
    )
    text = card.read_text(encoding="utf-8").replace("Codex (`gpt-codex`)", "Codex (` `)")
    card.write_text(text, encoding="utf-8")
    r = sealed(import_nvidia([card], NV_OPTS)[0])
    assert r.provenance.tool_version is None and _unrecorded(r, "provenance.tool_version (")
    agents = {a.agent: a.model for a in r.source_figures.agents}
    assert agents == {"claude-code": "claude-sonnet", "codex": None}


@BLANKS
def test_openai_evals_blank_model_gives_way_to_the_sampled_model_name(
    shared: Path, tmp_path: Path, blank: str
) -> None:
    rows = [json.loads(x) for x in (shared / OPENAI_ITEMS).read_text().splitlines() if x]
    for row in rows:
        row["sample"] = {"model": blank, "sampled_model_name": "gpt-4o-mini"}
    path = jsonl(tmp_path / "items.jsonl", rows)
    o = OpenAIEvalsOptions(skill_name="support", grader="Relevance", grader_range=(1, 7))
    assert sealed(import_openai_evals(path, o)).run.model == "gpt-4o-mini"


@BLANKS
def test_summary_json_blank_model_and_harness_version_are_unrecorded(
    tmp_path: Path, blank: str
) -> None:
    doc = copy.deepcopy(SUMMARY)  # summary-json is Driftproof's own format: no source file
    doc["model"], doc["harness"]["version"] = blank, blank
    r = sealed(import_summary_json(write_json(tmp_path / "s.json", doc)))
    assert r.run.model is None and "run.model" in r.provenance.unrecorded
    assert r.run.harness.version is None and r.provenance.tool_version is None
    assert "run.harness.version" in r.provenance.unrecorded


@BLANKS
@pytest.mark.parametrize(
    ("place", "pointer"),
    [(("skill", "name"), "/skill/name"), (("harness", "name"), "/harness/name")]
    + [(("judge", "model"), "/judge/model")],
)
def test_summary_json_blank_skill_harness_or_grader_name_is_refused(
    tmp_path: Path, blank: str, place: tuple[str, str], pointer: str
) -> None:
    doc = copy.deepcopy(SUMMARY)
    doc[place[0]][place[1]] = blank
    path = write_json(tmp_path / "s.json", doc)
    refused_at(lambda: import_summary_json(path), pointer)
