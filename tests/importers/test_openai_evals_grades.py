"""OpenAI Evals grades the importer refuses or keeps as lost draws, on output items built in the
API's ``eval.run.output_item`` shape (openai_evals_items.api_item): a result's ``score`` is a
number (a score model's) and a pass/fail grader's is true or false; ``status`` "error" marks an
item whose sample failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai_evals_items import api_item, jsonl, problem

from driftproof.errors import ImportError_
from driftproof.importers import get_importer
from driftproof.importers.openai_evals import OpenAIEvalsOptions


def _item(score: Any) -> dict[str, Any]:
    row = api_item("a", 0, 1.0)
    row["results"][0].update(score=score, passed=score is True)
    return row


def _refused(path: Path, **options: Any) -> tuple[str, str, str]:
    with pytest.raises(ImportError_) as e:
        get_importer("openai-evals")(path, OpenAIEvalsOptions(skill_name="s", **options))
    return problem(e)


@pytest.mark.parametrize(
    ("score", "grader_range", "words"),
    [
        ("0.5", None, "'quality''s score as a number or true/false, found a string"),
        (True, (1.0, 7.0), "'quality''s score as a number on 1:7, found true"),
    ],
)
def test_a_grade_that_is_no_score_is_refused_at_its_place(
    tmp_path: Path, score: Any, grader_range: Any, words: str
) -> None:
    path = jsonl(tmp_path / "i.jsonl", [_item(score)])
    found = _refused(path, grader="quality", grader_range=grader_range)
    assert found == (str(path), "/0/results/0/score", f"expected grader {words}")


def test_an_infinite_grade_is_refused(tmp_path: Path) -> None:
    # JSON has no Infinity, but Python's json.dumps writes one; the importer reads it (as NaN)
    path = tmp_path / "i.jsonl"
    path.write_text(json.dumps(_item(float("inf"))) + "\n", encoding="utf-8")
    found = _refused(path, grader="quality")
    assert found[1:] == (
        "/0/results/0/score",
        "expected grader 'quality''s score as a finite number, found inf",
    )


def test_a_pass_fail_grade_scores_one_or_nothing(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "i.jsonl", [_item(True), {**_item(False), "datasource_item_id": 1}])
    (got,) = get_importer("openai-evals")(
        path, OpenAIEvalsOptions(skill_name="s", grader="quality")
    )
    assert [c.arms.with_skill.draws[0].score for c in got.body.cases] == [1.0, 0.0]


def test_an_item_with_no_data_source_id_is_refused(tmp_path: Path) -> None:
    row = api_item("a", 0, 1.0)
    del row["datasource_item_id"]
    path = jsonl(tmp_path / "i.jsonl", [row])
    assert _refused(path, grader="quality") == (
        str(path),
        "/0",
        "expected the data source item's id (datasource_item_id or data_source_idx), found none",
    )


def test_a_grader_twice_in_one_item_is_refused(tmp_path: Path) -> None:
    row = api_item("a", 0, 1.0)
    row["results"].append({"name": "quality", "type": "score_model", "score": 0.0})
    path = jsonl(tmp_path / "i.jsonl", [row])
    assert _refused(path, grader="quality")[1:] == (
        "/0/results/2/name",
        "expected each grader once per item, found 'quality' again",
    )


def test_a_control_arm_is_refused_by_the_importer_too(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "i.jsonl", [api_item("a", 0, 1.0)])
    assert _refused(path, grader="quality", arms={"control": "a"}) == (
        "<options>",
        "",
        "--arm: expected with_skill or baseline, found 'control'",
    )


def test_an_item_marked_error_with_no_message_is_a_lost_draw(tmp_path: Path) -> None:
    row = api_item("a", 0, 1.0)
    row["status"], row["sample"]["error"] = "error", None
    path = jsonl(tmp_path / "i.jsonl", [row])
    (got,) = get_importer("openai-evals")(
        path, OpenAIEvalsOptions(skill_name="s", grader="quality")
    )
    draw = got.body.cases[0].arms.with_skill.draws[0]
    assert draw.score is None and draw.lost is not None and draw.lost.kind == "source_error"
    assert "status 'error'" in draw.lost.reason
    assert draw.source_error is None  # the source gave no words: none are stored as its own


def test_jsonl_named_json_is_read_line_by_line_and_its_one_grader_is_taken(tmp_path: Path) -> None:
    rows = [api_item("a", i, s) for i, s in ((0, 1.0), (1, 0.25))]
    for row in rows:  # one grader only: no --grader is needed
        row["results"] = row["results"][:1]
    path = jsonl(tmp_path / "items.json", rows)  # two lines: not one JSON document
    (got,) = get_importer("openai-evals")(path, OpenAIEvalsOptions(skill_name="s"))
    assert [c.arms.with_skill.draws[0].score for c in got.body.cases] == [1.0, 0.25]
