"""A blank text (``""``, ``"   "``) where a source names a case, a grader or an arm names nothing:
the file is refused at that member's pointer (or the option on the command line), never given a
made-up id. A source's model or executor model longer than a receipt holds (200 characters) is
refused at its own pointer, and a configuration whose object holds no run is refused, not left
out as an arm with no run. Each test starts from a real source file in the shared data (or the
OpenAI Evals items of the importer's tests), copied and changed in ``tmp_path``.
"""

from __future__ import annotations

import functools
import json
import operator
from pathlib import Path

import pytest
from factories import run_main
from interop_helpers import BLANK_TEXTS, read_json, refused_at, sealed, write_json
from openai_evals_items import api_item, jsonl

from driftproof.errors import ImportError_, Problem
from driftproof.importers.inspect_ai import InspectOptions, import_inspect
from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals
from driftproof.importers.promptfoo import PromptfooOptions, import_promptfoo
from driftproof.importers.skill_creator import import_skill_creator

BLANKS = pytest.mark.parametrize("blank", BLANK_TEXTS)
DATA = "data/interop"
INSPECT = f"{DATA}/inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"
PROMPTFOO = f"{DATA}/promptfoo/sample-export.json"
SC = f"{DATA}/skill-creator/anthropic-schemas-examples/benchmark.json"
NEBIUS = f"{DATA}/skill-creator/nebius-skills-workspace/evals/iteration-1/benchmark.json"


@BLANKS
@pytest.mark.parametrize(
    ("pointer", "what"),
    [
        ("/samples/0/id", "the sample id"),
        ("/eval/dataset/sample_ids/2", "a sample id"),  # the log's third sample is id 3
    ],
)
def test_inspect_blank_sample_id_is_refused(
    shared: Path, tmp_path: Path, blank: str, pointer: str, what: str
) -> None:
    doc = read_json(shared / INSPECT)
    *parents, last = [int(k) if k.isdigit() else k for k in pointer.split("/")[1:]]
    functools.reduce(operator.getitem, parents, doc)[last] = blank
    path = write_json(tmp_path / "log.json", doc)
    message = refused_at(
        lambda: import_inspect({"with_skill": path}, InspectOptions(skill_name="s")), pointer
    )
    assert message == f"expected {what}, found the blank text {json.dumps(blank)}"


@BLANKS
def test_openai_evals_blank_item_id_is_refused(tmp_path: Path, blank: str) -> None:
    rows = [api_item("a", 0, 1.0), api_item("a", 1, 0.5)]
    rows[1]["datasource_item_id"] = blank
    path = jsonl(tmp_path / "items.jsonl", rows)
    message = refused_at(
        lambda: import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="quality")),
        "/1/datasource_item_id",
    )
    assert message == (
        f"expected the data source item's id, found the blank text {json.dumps(blank)}"
    )


@BLANKS
def test_openai_evals_blank_grader_name_is_refused(tmp_path: Path, blank: str) -> None:
    rows = [api_item("a", 0, 1.0)]
    rows[0]["results"][1]["name"] = blank
    path = jsonl(tmp_path / "items.jsonl", rows)
    message = refused_at(
        lambda: import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="quality")),
        "/0/results/1/name",
    )
    assert message == f"expected the grader's name, found the blank text {json.dumps(blank)}"


def test_openai_evals_grades_keyed_by_spaces_are_refused(items: Path, tmp_path: Path) -> None:
    first = json.loads(items.read_text(encoding="utf-8").splitlines()[0])
    first["grades"] = {"  ": 1}
    path = jsonl(tmp_path / "items.jsonl", [first])
    message = refused_at(
        lambda: import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="  ")),
        "/0/grades/  ",
    )
    assert message == 'expected the grader\'s name, found the blank text "  "'


def test_a_blank_key_of_a_pointer_is_printed_quoted(items: Path, tmp_path: Path) -> None:
    # found: "items.jsonl: /0/grades/  : expected ...", the key of two spaces unseen
    first = json.loads(items.read_text(encoding="utf-8").splitlines()[0])
    first["grades"] = {"  ": 1}
    path = jsonl(tmp_path / "items.jsonl", [first])
    with pytest.raises(ImportError_) as exc:
        import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="  "))
    said = 'expected the grader\'s name, found the blank text "  "'
    assert exc.value.lines() == [f'{path}: /0/grades/"  ": {said}']
    # an empty key and a zero-width space too; every other key as it is
    shown = str(Problem("f", "/a//b/\u200b/c d/~1", "m"))
    assert shown == 'f: /a/""/b/"\\u200b"/c d/~1: m'
    assert str(Problem("f", "/", "m")) == 'f: /"": m'


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--grader", "  "], "--grader '  ': expected a grader's name, found a blank one"),
        (["--arm", "with_skill=  "], "--arm 'with_skill=  ': expected ARM=LABEL"),
    ],
)
def test_openai_evals_blank_grader_or_arm_option_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], said: str
) -> None:
    row = api_item("  ", 0, 1.0)  # run "  ", grader "  ": a blank option would match them
    row["results"][0]["name"] = "  "
    path = jsonl(tmp_path / "items.jsonl", [row])
    out = tmp_path / "out"
    argv = ["import", "openai-evals", str(path), *option, "--skill-name", "s"]
    code, _, err = run_main([*argv, "--out-dir", str(out)], capsys)
    assert code == 2 and said in err and not out.exists()


@BLANKS
def test_openai_evals_blank_run_id_is_refused(tmp_path: Path, blank: str) -> None:
    path = jsonl(tmp_path / "items.jsonl", [api_item(blank, 0, 1.0)])
    message = refused_at(
        lambda: import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="quality")),
        "/0/run_id",
    )
    assert message == f"expected the run's id, found the blank text {json.dumps(blank)}"


def test_openai_evals_blank_finish_reason_is_no_stop_reason(tmp_path: Path) -> None:
    rows = [api_item("a", 0, 1.0), api_item("a", 1, 0.5)]
    rows[1]["sample"]["finish_reason"] = "   "
    path = jsonl(tmp_path / "items.jsonl", rows)
    o = OpenAIEvalsOptions(skill_name="s", grader="quality")
    r = sealed(import_openai_evals(path, o))
    stops = [c.arms.with_skill.draws[0].stop_reason for c in r.cases]
    assert stops == ["stop", None]


@BLANKS
def test_promptfoo_blank_test_id_is_refused(shared: Path, tmp_path: Path, blank: str) -> None:
    doc = read_json(shared / PROMPTFOO)
    doc["results"]["results"][1]["testCase"]["metadata"] = {"id": blank}
    path = write_json(tmp_path / "export.json", doc)
    arms = {"with_skill": "openai:gpt-5", "baseline": "openai:gpt-5-mini"}
    message = refused_at(
        lambda: import_promptfoo(path, PromptfooOptions(arms=arms, skill_name="s")),
        "/results/results/1/testCase/metadata/id",
    )
    assert message == f"expected the test's id, found the blank text {json.dumps(blank)}"


@pytest.mark.parametrize("runs", [False, True])
def test_skill_creator_model_past_200_characters_is_refused_at_its_member(
    shared: Path, tmp_path: Path, runs: bool
) -> None:
    doc = read_json(shared / SC)
    if runs:  # the runs' model stands when the metadata names none
        del doc["metadata"]["executor_model"]
        doc["runs"][0]["model"] = "m" * 201
    else:
        doc["metadata"]["executor_model"] = "m" * 201
    path = write_json(tmp_path / "benchmark.json", doc)
    pointer = "/runs/0/model" if runs else "/metadata/executor_model"
    message = refused_at(lambda: import_skill_creator([path]), pointer)
    assert message == "expected at most 200 characters, found 201"


def test_skill_creator_configuration_holding_no_run_is_refused(
    shared: Path, tmp_path: Path
) -> None:
    doc = read_json(shared / NEBIUS)
    doc["evals"][0]["without_skill"] = {"passed": 2, "total": 5}  # no pass_rate, no assertions
    path = write_json(tmp_path / "benchmark.json", doc)
    message = refused_at(lambda: import_skill_creator([path]), "/evals/0/without_skill")
    assert message == (
        "expected a configuration's run holding pass_rate, assertions_total or graded "
        "assertions, found an object with none of them"
    )


@BLANKS
@pytest.mark.parametrize("where", ["results", "sample"])
def test_inspect_blank_scorer_name_is_refused(
    shared: Path, tmp_path: Path, blank: str, where: str
) -> None:
    doc = read_json(shared / INSPECT)  # one scorer, model_graded_fact, in the results and samples
    if where == "results":
        doc["results"]["scores"][0]["name"] = blank
    else:  # the second sample's score, moved to a key of spaces
        doc["samples"][1]["scores"] = {blank: doc["samples"][1]["scores"]["model_graded_fact"]}
    path = write_json(tmp_path / "log.json", doc)
    pointer = "/results/scores/0/name" if where == "results" else f"/samples/1/scores/{blank}"
    message = refused_at(
        lambda: import_inspect({"with_skill": path}, InspectOptions(skill_name="s")), pointer
    )
    assert message == f"expected the scorer's name, found the blank text {json.dumps(blank)}"


def test_inspect_blank_scorer_option_is_refused(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["import", "inspect", "--with-skill", str(shared / INSPECT), "--scorer", "  "]
    code, _, err = run_main([*argv, "--skill-name", "s", "--out-dir", str(out)], capsys)
    assert code == 2 and "--scorer '  ': expected NAME or NAME:KEY" in err and not out.exists()
