"""Recorded reply shapes on the Anthropic Messages API lane (D-19): endings, thinking blocks and
tool-call grades, each served by the loopback server through the real ``anthropic`` SDK and
asserting its receipt outcome.

Shapes follow the installed SDK types: ``StopReason`` (``end_turn``, ``max_tokens``,
``stop_sequence``, ``tool_use``, ``pause_turn``, ``refusal``, ``model_context_window_exceeded``),
``ThinkingBlock`` / ``RedactedThinkingBlock`` and ``server_tool_use`` content.

Each run is one case, one draw per arm, one judge sample per draw; the scripted judge gives 0.9
to the skill's answer and 0.5 to the baseline's (run_helpers).
"""

from __future__ import annotations

import json

import pytest
import run_helpers
from run_helpers import SKILL_TEXT
from shape_replies import ONE, _answers, _draws, _message, _mini

# --- Anthropic Messages API -----------------------------------------------------------------------


def test_anthropic_pause_turn_is_a_paused_turn_never_graded(loopback, suite_file, tmp_path):
    paused = [
        {"type": "text", "text": "## 429 explained"},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "HTTP 429"},
        },
    ]
    loopback.script.shape = _answers(
        lambda p, b, t: (200, {**_message(t, stop="pause_turn"), "content": paused}, {})
    )
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "paused_turn"
        assert d.stop_reason == "pause_turn"
        assert d.lost.reason == (
            "paused turn: the reply ended with 'pause_turn', not as a complete final answer"
        )


def test_anthropic_context_window_is_its_own_class_even_when_truncation_is_accepted(
    loopback, suite_file, tmp_path
):
    usage = {"input_tokens": 198000, "output_tokens": 1200}
    loopback.script.shape = _answers(
        lambda p, b, t: (
            200,
            _message(t[:40], stop="model_context_window_exceeded", usage=usage),
            {},
        )
    )
    r, _ = _mini(tmp_path, suite_file, suite={**ONE, "truncation": "accepted"})
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "context_window"
        assert "budget" not in d.lost.reason and "model_context_window_exceeded" in d.lost.reason


def test_a_messages_server_cut_by_its_context_window_is_never_an_accepted_truncation(
    loopback, suite_file, tmp_path
):
    # vLLM's Messages endpoint answers through its Chat Completions path, which lowers max_tokens
    # to what the context window leaves (get_max_tokens), and sends its "length", budget or
    # window alike, as stop_reason "max_tokens" with output_tokens its completion tokens
    # (vllm-project/vllm entrypoints/anthropic/serving.py, messages_full_converter): 4,090
    # prompt tokens of a 4,096-token window leave 6 of the 8,192 asked for (D-19)
    usage = {"input_tokens": 4090, "output_tokens": 6}
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _message(t[:40], stop="max_tokens", usage=usage), {})
    )
    r, _ = _mini(tmp_path, suite_file, suite={**ONE, "truncation": "accepted"})
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "context_window"
        assert d.lost.reason == (
            "context window: the reply ended with 'max_tokens' after 6 output tokens, well below "
            "the output budget of 8,192, not as a complete final answer"
        )


def test_anthropic_tool_use_in_an_answer_is_a_tool_call_with_no_answer(
    loopback, suite_file, tmp_path
):
    content = [
        {"type": "text", "text": "Let me look that up."},
        {"type": "tool_use", "id": "toolu_9", "name": "search", "input": {"q": "429"}},
    ]
    loopback.script.shape = _answers(
        lambda p, b, t: (200, {**_message(t, stop="tool_use"), "content": content}, {})
    )
    r, _ = _mini(tmp_path, suite_file)
    assert {d.lost.kind for d in _draws(r)} == {"tool_call"}


@pytest.mark.parametrize("stop", ["end_turn", "stop_sequence"])
def test_a_tool_use_block_beside_a_finished_stop_is_a_tool_call_not_an_answer(
    loopback, suite_file, tmp_path, stop
):
    # an Anthropic-protocol gateway in front of another backend says end_turn beside the call
    content = [
        {"type": "text", "text": "fix(http): let me look that up first."},
        {"type": "tool_use", "id": "toolu_9", "name": "search", "input": {"q": "429"}},
    ]
    loopback.script.shape = _answers(
        lambda p, b, t: (200, {**_message(t, stop=stop), "content": content}, {})
    )
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.stop_reason == stop
        assert (d.lost.kind, d.lost.reason) == (
            "tool_call",
            f"tool call with no answer: the reply ended with '{stop}:tool_use', not as a "
            "complete final answer",
        )


@pytest.mark.parametrize("stop", ["compaction", None])
def test_anthropic_an_unknown_or_missing_stop_reason_is_lost_quoting_it(
    loopback, suite_file, tmp_path, stop
):
    loopback.script.shape = _answers(lambda p, b, t: (200, _message(t, stop=stop), {}))
    r, _ = _mini(tmp_path, suite_file)
    said = "no ending" if stop is None else "'compaction'"
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "unknown_ending"
        assert d.lost.reason == (
            f"unknown ending: the reply ended with {said}, not as a complete final answer"
        )


def test_anthropic_stop_sequence_is_a_complete_answer(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(
        lambda p, b, t: (200, {**_message(t, stop="stop_sequence"), "stop_sequence": "###"}, {})
    )
    r, _ = _mini(tmp_path, suite_file)
    assert [d.score for d in _draws(r)] == [0.9, 0.5]
    # no reasoning in the reply: all 20 output tokens are the answer's
    assert [(d.reasoning, d.tokens.answer_output) for d in _draws(r)] == [(None, 20)] * 2
    # the loopback counts the skill's system prompt at 3 characters a token
    assert r.arms.with_skill.input_tokens_median == 120 + len(SKILL_TEXT) // 3


def test_anthropic_thinking_blocks_are_kept_apart_from_the_answer(loopback, suite_file, tmp_path):
    thinking = "The user wants a commit. sorry, let me think: (skill) matters."
    redacted = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT"

    def shape(path, body, is_judge, text):
        if is_judge:
            # what the judge was shown: the answer, never the reasoning
            assert thinking not in body["messages"][0]["content"]
            return None
        content = [
            {"type": "thinking", "thinking": thinking, "signature": "sig"},
            {"type": "redacted_thinking", "data": redacted},
            {"type": "text", "text": text},
        ]
        return 200, {**_message(text), "content": content}, {}

    loopback.script.shape = shape
    checks = [{"name": "no apology", "kind": "must_not_include", "pattern": "sorry"}]
    case = {**ONE["cases"][0], "checks": checks}
    r, _ = _mini(tmp_path, suite_file, suite={**ONE, "cases": [case]}, keep_transcripts=True)
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.answer == run_helpers.SKILL_ANSWER
    joined = f"{thinking}\n\n{redacted}"  # reply order, blank line between pieces
    assert skill.reasoning.chars == len(joined)
    import hashlib

    assert skill.reasoning.sha256 == hashlib.sha256(joined.encode()).hexdigest()
    assert [c.pass_ for c in skill.checks] == [True]


def test_anthropic_judge_that_answers_in_text_instead_of_its_tool_is_invalid(
    loopback, suite_file, tmp_path
):
    def shape(path, body, is_judge, text):
        if not is_judge:
            return None
        return 200, _message(text, model="claude-haiku-4-5-20251001", stop="end_turn"), {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.lost.kind == "unscored"
        assert d.judge_samples[0].invalid_reason == (
            "the judge's unknown ending: the reply ended with 'end_turn', not as a complete "
            "final answer"
        )


def test_an_extra_member_in_a_tool_call_grade_is_recorded_and_ignored(
    loopback, suite_file, tmp_path
):
    def shape(path, body, is_judge, text):
        if not is_judge:
            return None
        grade = {**json.loads(text), "pass": False}
        block = {"type": "tool_use", "id": "t", "name": body["tools"][0]["name"], "input": grade}
        msg = _message("", model="claude-haiku-4-5-20251001", stop="tool_use")
        return 200, {**msg, "content": [block]}, {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file)
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.judge_samples[0].ignored_members == ["/pass"]


@pytest.mark.parametrize("stop", ["end_turn", "stop_sequence"])
def test_a_grade_called_as_the_forced_tool_under_a_finished_stop_counts(
    loopback, suite_file, tmp_path, stop
):
    # vLLM's Messages endpoint forces the grade tool as a named tool choice, which its Chat
    # Completions path ends with "stop" ("'stop' for named tool calls", as OpenAI does), sent
    # as stop_reason "end_turn" beside the tool_use block (vllm-project/vllm
    # entrypoints/anthropic/serving.py): every grade was invalid as an unknown ending
    def shape(path, body, is_judge, text):
        if not is_judge:
            return None
        block = {"type": "tool_use", "id": "t", "name": body["tools"][0]["name"],
                 "input": json.loads(text)}  # fmt: skip
        msg = _message("", model="claude-haiku-4-5-20251001", stop=stop)
        return 200, {**msg, "content": [block]}, {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file)
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.judge_samples[0].invalid_reason is None


@pytest.mark.parametrize(
    ("details", "counts"),
    [
        # no breakdown: the output's thinking part is unknown, so is the answer's
        (None, (50, None, None)),
        # output_tokens_details.thinking_tokens (SDK OutputTokensDetails): 50 - 38 = 12
        ({"thinking_tokens": 38}, (50, 38, 12)),
    ],
)
def test_thinking_shown_as_an_empty_block_is_never_counted_as_answer_tokens(
    loopback, suite_file, tmp_path, details, counts
):
    # display "omitted" (the default where thinking is on unasked): each thinking block comes
    # with an empty thinking text and its signature, its tokens billed as output all the same
    def shape(path, body, is_judge, text):
        if is_judge:
            return None
        # the skill's system prompt counted at 3 characters a token, as the loopback does
        usage = {"input_tokens": 120 + len(body.get("system", "")) // 3, "output_tokens": 50}
        usage |= {} if details is None else {"output_tokens_details": details}
        content = [
            {"type": "thinking", "thinking": "", "signature": "EqQBCgIYAhIM"},
            {"type": "text", "text": text},
        ]
        return 200, {**_message(text, usage=usage), "content": content}, {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.reasoning.chars == 0  # reasoning there, its text left out by the server
        assert (d.tokens.output, d.tokens.reasoning_output, d.tokens.answer_output) == counts
    assert [d.score for d in _draws(r)] == [0.9, 0.5]
