"""OpenAI Evals output items → receipts: promptfoo's real fixture and small items of our own
making in the API's ``eval.run.output_item`` shape (openai-python ``OutputItemListResponse``:
``results[{name, type, score, passed, sample}]``, ``sample{output, finish_reason, model,
usage{prompt_tokens, completion_tokens, cached_tokens, total_tokens}, error{code, message}}``,
``created_at`` in Unix seconds).

Expected values of the fixture are read by hand from
``data/interop/openai-evals/promptfoo-fixture-openai-evals-items.jsonl``: run
``evalrun_import_fixture``; line 1 item 10, grades Relevance 6, Directness 3, Tool called 1, the
Relevance grader's reply ``{"result":6}``; line 2 item 3, Relevance 1, Directness 3, Tool called 1.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from interop_helpers import scores, sealed, write_json
from openai_evals_items import api_item, jsonl, problem

from driftproof.cli import cli
from driftproof.errors import ImportError_
from driftproof.importers.openai_evals import OpenAIEvalsOptions, import_openai_evals
from driftproof.receipt import read_receipt

# -- promptfoo's real fixture -------------------------------------------------------------


def test_fixture_single_run_with_a_grader_range(items: Path) -> None:
    r = sealed(
        import_openai_evals(
            items, OpenAIEvalsOptions(skill_name="support", grader="Relevance", grader_range=(1, 7))
        )
    )
    assert r.verification_level == "DECLARED"
    assert [c.id for c in r.cases] == ["item-10", "item-3"]
    assert r.cases[0].prompt == "How do I unsubscribe from marketing emails?"
    # Relevance 6 and 1 on the grader's own 1..7 range: (6 - 1) / 6 and (1 - 1) / 6
    assert scores(r.cases[0].arms.with_skill) == [pytest.approx(5 / 6)]
    assert scores(r.cases[1].arms.with_skill) == [0.0]
    # one run: a single-arm import, the baseline not recorded
    assert r.arms.baseline.recorded is False and all(c.arms.baseline.draws == [] for c in r.cases)
    assert r.arms.with_skill.label == "run:evalrun_import_fixture"
    # the grader's reply is one judge sample, hashed
    (sample,) = r.cases[0].arms.with_skill.draws[0].judge_samples
    assert sample.reply_sha256 == hashlib.sha256(b'{"result":6}').hexdigest()
    assert r.judge is not None and r.judge.model == "unrecorded:openai-evals/Relevance"
    assert (r.run.provider, r.run.surface) == ("openai", "api")
    notes = r.provenance.notes or []
    assert any(
        "'Relevance'" in n and "1 (worst) to 7 (best)" in n and "'Directness'" in n for n in notes
    )


def test_fixture_grader_on_0_to_1_only_when_given(items: Path) -> None:
    # grades["Tool called"] is 1 on both lines, with no grader type: its scale is not stated
    with pytest.raises(ImportError_) as e:
        import_openai_evals(items, OpenAIEvalsOptions(skill_name="s", grader="Tool called"))
    assert problem(e)[1] == "/0/grades/Tool called" and "--grader-range" in problem(e)[2]
    r = sealed(
        import_openai_evals(
            items,
            OpenAIEvalsOptions(skill_name="support", grader="Tool called", grader_range=(0, 1)),
        )
    )
    assert [scores(c.arms.with_skill) for c in r.cases] == [[1.0], [1.0]]


def test_fixture_refusals_name_the_grader(items: Path) -> None:
    with pytest.raises(ImportError_) as e:
        import_openai_evals(items, OpenAIEvalsOptions(skill_name="s"))
    assert "the rows carry Relevance, Directness, Tool called" in problem(e)[2]
    with pytest.raises(ImportError_) as e:
        import_openai_evals(items, OpenAIEvalsOptions(skill_name="s", grader="Relevance"))
    assert problem(e)[:2] == (str(items), "/0/grades/Relevance")
    assert "--grader-range" in problem(e)[2]
    with pytest.raises(ImportError_) as e:
        import_openai_evals(
            items, OpenAIEvalsOptions(skill_name="s", grader="Relevance", grader_range=(1, 5))
        )
    assert problem(e)[:2] == (str(items), "/0/grades/Relevance")  # 6 lies outside 1..5


# -- the API's output items -------------------------------------------------------------------


def test_two_runs_mapped_to_arms(tmp_path: Path) -> None:
    rows = [
        api_item("run_skill", 0, 0.9),
        api_item("run_skill", 1, 0.7, created=1759999000),
        api_item("run_bare", 0, 0.4),
        api_item("run_bare", 1, 0.5),
    ]
    path = jsonl(tmp_path / "items.jsonl", rows)
    r = sealed(
        import_openai_evals(
            path,
            OpenAIEvalsOptions(
                skill_name="s",
                arms={"with_skill": "run_skill", "baseline": "run_bare"},
                grader="quality",
            ),
        )
    )
    assert [c.id for c in r.cases] == ["item-0", "item-1"]
    assert [(scores(c.arms.with_skill), scores(c.arms.baseline)) for c in r.cases] == [
        ([0.9], [0.4]),
        ([0.7], [0.5]),
    ]
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.answer == "Answer." and d.stop_reason == "stop"
    assert d.tokens is not None and (
        d.tokens.input,
        d.tokens.output,
        d.tokens.cache_read_input,
    ) == (120, 30, 64)
    assert d.lost is None  # an error object with an empty code and message is no error
    assert r.run.model == "gpt-5-mini-2026-08-01"
    assert r.run.started_at == "2025-10-09T08:36:40Z"  # 1759999000 s, the earliest created_at
    assert (
        r.arms.baseline.recorded is True
        and r.arms.baseline.label == "run:run_bare (gpt-5-mini-2026-08-01)"
    )


def test_sample_error_is_a_lost_draw_with_the_error(tmp_path: Path) -> None:
    err = {"code": "rate_limit_exceeded", "message": "Rate limit reached for requests"}
    rows = [api_item("a", 0, None, text="", error=err), api_item("a", 1, 0.5)]
    r = sealed(
        import_openai_evals(
            jsonl(tmp_path / "i.jsonl", rows), OpenAIEvalsOptions(skill_name="s", grader="quality")
        )
    )
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.score is None and d.lost is not None and d.lost.kind == "source_error"
    assert d.source_error == "Rate limit reached for requests"
    assert d.lost.reason == "source error (rate_limit_exceeded): Rate limit reached for requests"


def test_error_with_a_type_and_no_code_is_lost_with_its_message(tmp_path: Path) -> None:
    # the shape promptfoo's multi-run fixture test reads: sample.error.type and .message
    err = {
        "type": "invalid_request_error",
        "code": None,
        "message": "Response input item missing role",
    }
    row = api_item("a", 0, None, error=err)
    r = sealed(
        import_openai_evals(
            jsonl(tmp_path / "i.jsonl", [row]), OpenAIEvalsOptions(skill_name="s", grader="quality")
        )
    )
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.source_error == "Response input item missing role"
    assert (
        d.lost is not None
        and d.lost.reason
        == "source error (invalid_request_error): Response input item missing role"
    )


def test_items_that_differ_between_runs_are_never_paired(tmp_path: Path) -> None:
    a, b = api_item("a", 0, 1.0), api_item("b", 0, 0.0)
    b["datasource_item"] = {"input": "Another data set's item 0"}
    r = sealed(
        import_openai_evals(
            jsonl(tmp_path / "i.jsonl", [a, b]),
            OpenAIEvalsOptions(
                skill_name="s", arms={"with_skill": "a", "baseline": "b"}, grader="quality"
            ),
        )
    )
    sha_a = hashlib.sha256(
        b'{"ideal":"x","input":"Question 0?"}'
    ).hexdigest()  # RFC 8785: sorted keys
    sha_b = hashlib.sha256(b'{"input":"Another data set\'s item 0"}').hexdigest()
    assert [(c.id, len(c.arms.with_skill.draws), len(c.arms.baseline.draws)) for c in r.cases] == [
        (f"item-0-{sha_a[:10]}", 1, 0),
        (f"item-0-{sha_b[:10]}", 0, 1),
    ]
    assert any("differ between the runs" in n for n in r.provenance.notes or [])


@pytest.mark.parametrize("value", [None, "NaN"])
def test_unscored_item_is_a_lost_draw_never_zero(tmp_path: Path, value: Any) -> None:
    rows = [api_item("a", 0, 0.5), api_item("a", 1, 0.5)]
    text = "".join(json.dumps(r) + "\n" for r in rows).replace(
        '"score": 0.5', '"score": ' + ("null" if value is None else "NaN"), 1
    )
    path = tmp_path / "i.jsonl"
    path.write_text(text, encoding="utf-8")
    r = sealed(import_openai_evals(path, OpenAIEvalsOptions(skill_name="s", grader="quality")))
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.score is None and d.lost is not None and d.lost.kind == "unscored"
    assert scores(r.cases[1].arms.with_skill) == [0.5]


def test_json_array_and_list_page(tmp_path: Path) -> None:
    rows = [api_item("a", 0, 1.0), api_item("b", 0, 0.0)]
    for data in (
        rows,
        {"object": "list", "data": rows, "has_more": False, "first_id": "x", "last_id": "y"},
    ):
        path = write_json(tmp_path / "items.json", data)
        r = sealed(
            import_openai_evals(
                path,
                OpenAIEvalsOptions(
                    skill_name="s", arms={"with_skill": "a", "baseline": "b"}, grader="quality"
                ),
            )
        )
        assert (scores(r.cases[0].arms.with_skill), scores(r.cases[0].arms.baseline)) == (
            [1.0],
            [0.0],
        )


def test_baseline_run_alone_is_a_single_arm_import(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "i.jsonl", [api_item("bare", 0, 0.25)])
    r = sealed(
        import_openai_evals(
            path, OpenAIEvalsOptions(skill_name="s", arms={"baseline": "bare"}, grader="quality")
        )
    )
    assert r.arms.with_skill.recorded is False and r.cases[0].arms.with_skill.draws == []
    assert scores(r.cases[0].arms.baseline) == [0.25]


def test_cli_maps_arms_and_range(items: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "openai-evals",
            str(items),
            "--arm",
            "with_skill=evalrun_import_fixture",
            "--grader",
            "Relevance",
            "--grader-range",
            "1:7",
            "--skill-name",
            "support",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, (result.output, result.exception)
    (f,) = out.glob("*.json")
    r = read_receipt(f)
    assert r.cases[0].arms.with_skill.draws[0].score == pytest.approx(5 / 6)
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "openai-evals",
            str(items),
            "--grader",
            "Relevance",
            "--grader-range",
            "seven",
            "--skill-name",
            "s",
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code == 2 and "WORST:BEST" in result.output  # click's usage error
    assert not (tmp_path / "x").exists()


def test_start_is_the_earliest_instant_not_the_smallest_text(tmp_path: Path) -> None:
    # as text, "…08:53:20.500000Z" sorts before "…08:53:20Z" ('.' < 'Z'); as instants it is later
    rows = [api_item("a", 0, 0.5), api_item("a", 1, 0.5)]
    rows[0]["created_at"] = 1760000000.5
    r = sealed(
        import_openai_evals(
            jsonl(tmp_path / "i.jsonl", rows), OpenAIEvalsOptions(skill_name="s", grader="quality")
        )
    )
    assert r.run.started_at == "2025-10-09T08:53:20Z"  # date -u -d @1760000000


def test_an_item_one_run_did_not_answer_is_kept_and_named(tmp_path: Path) -> None:
    rows = [api_item("a", 0, 0.9), api_item("a", 1, 0.8), api_item("b", 0, 0.4)]
    r = sealed(
        import_openai_evals(
            jsonl(tmp_path / "i.jsonl", rows),
            OpenAIEvalsOptions(
                skill_name="s", arms={"with_skill": "a", "baseline": "b"}, grader="quality"
            ),
        )
    )
    assert [(c.id, len(c.arms.with_skill.draws), len(c.arms.baseline.draws)) for c in r.cases] == [
        ("item-0", 1, 1),
        ("item-1", 1, 0),
    ]
    assert any(
        "Run 'b' (baseline) has no output item for 1 item(s)" in n and "item-1" in n
        for n in r.provenance.notes or []
    )
