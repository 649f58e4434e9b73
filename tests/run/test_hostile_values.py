"""Hostile values that real replies and sources can carry, each refused or recorded as a kind
(found by trying the product as a new user would): numbers no seal can cover, a judge decision
with a lone surrogate, a claude envelope whose ``result`` is not text or whose stdout is not
JSON, and prices that are not finite. Expected values are worked out by hand from RFC 8785 /
I-JSON (integers up to 2**53 - 1, no NaN or infinity) and the envelopes' own shapes."""

from __future__ import annotations

import json

import pytest
from factories import run_main
from run_helpers import SUITE, run_lane
from test_shapes import _message

from driftproof.errors import ReceiptError
from driftproof.receipt import build_receipt, read_receipt, write_receipt
from driftproof.run.providers._sdk import count
from driftproof.run.providers.anthropic_api import read_message
from driftproof.run.providers.base import AttemptError
from driftproof.run.providers.claude_cli import read_claude

ONE = {**SUITE, "cases": SUITE["cases"][:1]}


def test_a_receipt_with_an_unsealable_number_is_refused_and_nothing_is_written(tmp_path) -> None:
    out = tmp_path / "r.json"
    overhead = {
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "reasoning_output_tokens": 0,
        "judged_draws_counted": 0,
        "judged_draws_missing_usage": 0,
        "usd": float("inf"),  # the model takes it; no seal can cover it
    }
    body = build_receipt(
        level="UNVERIFIED", skill_name="s", skill_text="x", cases=[], judge_overhead=overhead
    )
    with pytest.raises(ReceiptError) as info:
        write_receipt(body, out)
    assert "/economics/judge_overhead/usd" in str(info.value) and "finite" in str(info.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "value,expected",
    [
        (0, 0),
        (2**53 - 1, 2**53 - 1),
        (2**53, None),
        (10**20, None),
        (-1, None),
        (True, None),
        (1.0, None),
        ("12", None),
    ],
)
def test_a_token_count_is_kept_only_when_a_receipt_can_hold_it(value, expected) -> None:
    assert count(value) == expected


def _envelope(**extra):
    return json.dumps(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": "fine",
            "usage": {"input_tokens": 10, "output_tokens": 5},
            **extra,
        }
    )


def test_a_claude_result_that_is_not_text_is_not_graded_and_not_retried() -> None:
    with pytest.raises(AttemptError) as info:
        read_claude(0, _envelope(result={"score": 1}), "", "claude-sonnet-4-6")
    assert "result is an object, not text" in info.value.reason and not info.value.retryable


def test_claude_stdout_that_is_not_json_is_quoted_in_the_reason() -> None:
    with pytest.raises(AttemptError) as info:
        read_claude(0, "Hello, I am not JSON", "", "claude-sonnet-4-6")
    assert "Hello, I am not JSON" in info.value.reason


def test_claude_usage_past_the_safe_integer_range_is_unknown_not_a_crash() -> None:
    reply = read_claude(
        0, _envelope(usage={"input_tokens": 10**20, "output_tokens": 10**20}), "", "m"
    )
    assert (reply.input_tokens, reply.output_tokens) == (None, None)


def test_a_claude_model_usage_entry_that_is_not_an_object_counts_as_unknown() -> None:
    # modelUsage maps model ids to objects; a number there is not a count of anything.
    out = _envelope(modelUsage={"claude-haiku-4-5": 5, "m": {"inputTokens": 3}})
    reply = read_claude(0, out, "", "m")
    assert reply.text == "fine"
    assert reply.other_models == [{"model": "claude-haiku-4-5", "input": None, "output": None}]


def test_anthropic_billed_input_past_the_safe_integer_range_is_unknown() -> None:
    # input + cache reads + cache writes = 3 * 2**52 > 2**53 - 1: no seal can hold the sum.
    usage = {
        "input_tokens": 2**52,
        "cache_read_input_tokens": 2**52,
        "cache_creation_input_tokens": 2**52,
        "output_tokens": 1,
    }
    reply = read_message({**_message("fine"), "usage": usage})
    assert (reply.input_tokens, reply.cache_read, reply.output_tokens) == (None, 2**52, 1)


@pytest.mark.parametrize("part", ["5000", -5000, 2**60, 5000.0])
def test_a_cache_part_that_is_no_count_leaves_the_billed_input_unknown(
    loopback, suite_file, tmp_path, part
) -> None:
    # 30 uncached input tokens beside a cache read the reply gives but no count can hold: the
    # billed input is not 30, and no total can be told
    usage = {"input_tokens": 30, "cache_read_input_tokens": part, "output_tokens": 20}
    loopback.script.shape = lambda p, b, is_judge, t: (
        None if is_judge else (200, {**_message(t), "usage": usage}, {})
    )
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:1]}))
    r = read_receipt(run_lane(tmp_path, "anthropic", "api", min_draws=1, max_draws=1))
    for d in r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws:
        assert d.score is not None
        assert (d.tokens.input, d.tokens.cache_read_input, d.tokens.output) == (None, None, 20)
    said = _envelope(usage={**usage, "cache_creation_input_tokens": part})
    claude = read_claude(0, said, "", "m")
    assert (claude.input_tokens, claude.output_tokens) == (None, 20)


def test_a_lone_surrogate_in_the_judge_decision_is_repaired_and_recorded(
    loopback, suite_file, tmp_path
) -> None:
    def shape(path, body, is_judge, text):
        if not is_judge:
            return 200, _message(text), {}
        grade = {
            "type": "tool_use",
            "id": "toolu_1",
            "name": body["tools"][0]["name"],
            "input": {"score": 0.5, "reason": "bad \ud800 reason"},
        }
        return (
            200,
            {
                **_message("", model="claude-haiku-4-5-20251001"),
                "content": [grade],
                "stop_reason": "tool_use",
            },
            {},
        )

    loopback.script.shape = shape
    suite_file.write_text(json.dumps(ONE))
    out = run_lane(
        tmp_path, "anthropic", "api", min_draws=1, max_draws=1, judge_samples=1, concurrency=1
    )
    r = read_receipt(out)
    d = r.cases[0].arms.with_skill.draws[0]
    assert d.score == 0.5 and d.judge_samples[0].reason == "bad \ufffd reason"
    pointers = {t.pointer for t in r.text_repairs or []}
    assert "/cases/0/arms/with_skill/draws/0/judge_samples/0/reason" in pointers
    assert "/cases/0/arms/with_skill/draws/0/judge_samples/0/reply_sha256" in pointers


@pytest.mark.parametrize("price", ["nan,1", "1,inf", "1,5,0.1,-inf"])
def test_a_judge_price_that_is_not_finite_is_refused_before_any_call(
    price, tmp_path, suite_file, skill_file
) -> None:
    from click.testing import CliRunner

    from driftproof.cli import cli

    res = CliRunner().invoke(
        cli,
        [
            "run",
            str(suite_file),
            "--skill",
            str(skill_file),
            "--model",
            "m",
            "--provider",
            "stub",
            "--judge-price",
            price,
            "--out",
            str(tmp_path / "r.json"),
        ],
    )
    assert res.exit_code == 2 and "finite" in res.output
    assert not (tmp_path / "r.json").exists()


# --- importers: the same kinds in the two new sources ---------------------------------------------


def _oe(tmp_path, capsys, text, *extra, name="s"):
    src = tmp_path / "items.jsonl"
    src.write_text(text)
    code, out, err = run_main(
        [
            "import",
            "openai-evals",
            str(src),
            "--skill-name",
            name,
            "--grader",
            "g",
            "--out",
            str(tmp_path / "out"),
            *extra,
        ],
        capsys,
    )
    assert not (tmp_path / "out").exists() or not any(
        (tmp_path / "out").iterdir()
    )  # nothing written
    return code, out + err


def test_openai_evals_one_grader_twice_in_an_item_is_refused_at_its_pointer(
    tmp_path, capsys
) -> None:
    row = {
        "run_id": "r1",
        "datasource_item_id": 1,
        "results": [{"name": "g", "score": 0.9}, {"name": "g", "score": 0.1}],
    }
    code, text = _oe(tmp_path, capsys, json.dumps(row) + "\n")
    assert code == 2 and "/results/1/name" in text and "'g' again" in text


@pytest.mark.parametrize(
    "grade,extra,phrase",
    [
        ("Infinity", (), "finite number"),
        ("true", ("--grader-range", "1:7"), "found true"),
        ('"0.9"', (), "as a number or true/false, found a string"),
    ],
)
def test_openai_evals_grades_that_are_not_on_the_scale_are_refused(
    tmp_path, capsys, grade, extra, phrase
) -> None:
    code, text = _oe(
        tmp_path,
        capsys,
        '{"run_id": "r1", "datasource_item_id": 1, "grades": {"g": ' + grade + "}}\n",
        *extra,
    )
    assert code == 2 and phrase in text and "/grades/g" in text


def test_an_empty_skill_name_is_refused(tmp_path, capsys) -> None:
    code, text = _oe(
        tmp_path,
        capsys,
        '{"run_id": "r1", "datasource_item_id": 1, "grades": {"g": 0.5}}\n',
        name=" ",
    )
    assert code == 2 and "expected the skill's name, found a blank one" in text


@pytest.mark.parametrize(
    "mutate,pointer",
    [
        (lambda d: d["cases"][0]["arms"].__setitem__("without", []), "/cases/0/arms/without"),
        (lambda d: d["cases"][0]["arms"].__setitem__("with", []), "/cases/0/arms/with"),
        (lambda d: d.__setitem__("cases", []), "/cases"),
    ],
)
def test_claude_plugin_eval_empty_runs_or_cases_are_refused_unless_partial(
    tmp_path, capsys, shared, mutate, pointer
) -> None:
    doc = json.loads(
        (shared / "data/interop/claude-plugin-eval/aggregate-result.two-arm.json").read_text()
    )
    mutate(doc)
    src = tmp_path / "aggregate-result.json"
    src.write_text(json.dumps(doc))
    code, out, err = run_main(
        ["import", "claude-plugin-eval", str(src), "--out", str(tmp_path / "out")], capsys
    )
    assert code == 2 and pointer in out + err and "at least one" in out + err


def test_a_structured_decision_that_breaks_its_schema_is_not_measured(tmp_path) -> None:
    from driftproof.run.judge import parse_structured
    from driftproof.run.suite import load_suite

    (tmp_path / "suite.json").write_text(json.dumps(ONE))
    case = load_suite(tmp_path / "suite.json").cases[0]
    assert parse_structured(case, {"score": 0.5, "reason": "fine"}).score == 0.5
    # issue 33: a member the schema does not name is recorded and ignored, the required ones read
    v = parse_structured(case, {"score": 1.0, "reason": "x", "override": True})
    assert (v.score, v.invalid_reason, v.ignored) == (1.0, None, ("/override",))
    v = parse_structured(case, {"score": 1.0, "reason": 3, "override": True})
    assert v.score is None and "does not match its schema" in v.invalid_reason
    assert (
        parse_structured(case, {"score": 1.0}).score is None
    )  # no reason: the strict schema requires one


@pytest.mark.parametrize(
    "cost,expected",
    [("0.25", 0.25), ("3", 3.0), ("1" + "0" * 400, None), ("1e999", None), ("-1", None)],
)
def test_a_claude_cost_a_float_cannot_hold_is_unknown_not_a_crash(cost, expected) -> None:
    # 10**400 is valid JSON but no float holds it: float() raised OverflowError out of the run.
    out = _envelope(total_cost_usd=0).replace('"total_cost_usd": 0', '"total_cost_usd": ' + cost)
    reply = read_claude(0, out, "", "m")
    assert (reply.text, reply.cost_usd) == ("fine", expected)


def test_a_judge_score_no_float_can_hold_is_an_invalid_sample(tmp_path) -> None:
    from driftproof.run.judge import parse_structured
    from driftproof.run.suite import load_suite

    (tmp_path / "suite.json").write_text(json.dumps(ONE))
    case = load_suite(tmp_path / "suite.json").cases[0]
    v = parse_structured(case, {"score": 10**400, "reason": "x"})
    assert (v.score, v.invalid_reason) == (None, "the reply holds no numeric score")


_NOT_TEXT = ", not text, so there is nothing to grade"


def test_an_anthropic_text_block_whose_text_is_not_text_is_a_lost_draw(
    tmp_path, suite_file, loopback
) -> None:
    # {"text": {"a": 1}} was read with str() and the answer "{'a': 1}" graded.
    from shape_replies import _answers, _draws, _mini

    def shape(path, body, text):
        msg = _message("x")
        msg["content"] = [{"type": "text", "text": "Hello "}, {"type": "text", "text": {"a": 1}}]
        return 200, msg, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.answer, d.judge_samples) == (None, None, [])
        assert (d.lost.kind, d.lost.reason) == (
            "no_answer",
            "a text block's text is an object" + _NOT_TEXT,
        )


def test_a_judge_reply_whose_text_is_not_text_is_an_invalid_sample() -> None:
    from driftproof.run.judge import judge_verdict

    jr = read_message({**_message("x"), "content": [{"type": "text", "text": 7}]}, graded=True)
    v = judge_verdict(None, jr, 100)
    assert (v.score, v.invalid_reason) == (
        None,
        "the judge's reply: a text block's text is a number" + _NOT_TEXT,
    )


def test_a_codex_agent_message_whose_text_is_not_text_is_never_the_answer() -> None:
    from driftproof.run.providers.codex_cli import CodexCLI

    events = [
        {"type": "item.completed", "item": {"type": "agent_message", "text": 12345}},
        {"type": "turn.completed", "usage": {"input_tokens": 500, "output_tokens": 5}},
    ]
    out = "\n".join(json.dumps(e) for e in events)
    reply = CodexCLI.parse(CodexCLI.__new__(CodexCLI), 0, out, "", "gpt-5")
    assert (reply.text, reply.unread) == ("", "the agent message's text is a number" + _NOT_TEXT)
    ok = out.replace("12345", '"12345"')
    assert (CodexCLI.parse(CodexCLI.__new__(CodexCLI), 0, ok, "", "gpt-5").text, None) == (
        "12345",
        None,
    )


@pytest.mark.parametrize(
    "content,text,unread",
    [
        ("fine", "fine", None),
        (None, "", None),
        (5, "", "the message's content is a number" + _NOT_TEXT),
        ([{"type": "text", "text": "hi"}], "hi", None),  # Mistral's typed parts
    ],
)
def test_a_chat_content_that_is_not_text_is_never_the_answer(content, text, unread) -> None:
    from shape_replies import _chat

    from driftproof.run.providers.openai_api import read_chat

    reply = read_chat(_chat(content))
    assert (reply.text, reply.unread) == (text, unread)


def test_a_responses_output_text_that_is_not_text_is_never_part_of_the_answer() -> None:
    from shape_replies import _response

    from driftproof.run.providers.openai_api import read_response

    parts = [{"type": "output_text", "text": "Hello ", "annotations": []}]
    parts.append({"type": "output_text", "text": None, "annotations": []})
    item = {"type": "message", "id": "m1", "role": "assistant", "status": "completed"}
    reply = read_response(_response([{**item, "content": parts}]))
    assert (reply.text, reply.unread) == (
        "Hello ",
        "an output_text part's text is null" + _NOT_TEXT,
    )
    reply = read_response(_response([{**item, "content": parts[:1]}]))
    assert (reply.text, reply.unread) == ("Hello ", None)


def test_claude_with_an_empty_model_id_never_counts_another_model_as_it() -> None:
    # "" is in every key: the model claude -p chose was recorded as the requested one
    out = _envelope(modelUsage={"claude-opus-4-1-20250805": {"inputTokens": 5, "outputTokens": 1}})
    reply = read_claude(0, out, "", "")
    assert (reply.reported_model, reply.handoff) == (
        None,
        "claude-opus-4-1-20250805 (5 input, 1 output tokens)",
    )
