"""Recorded reply shapes on the OpenAI Chat Completions lane, OpenAI's own service and compatible
servers (D-19): endings, reasoning, the skill reaching the model, the budget's spelling and
structured grades, each served by the loopback server through the real SDKs.

Shapes follow ``ChatCompletion.choices[].finish_reason`` (``stop``, ``length``, ``tool_calls``,
``content_filter``, ``function_call``) and the documented deviations of OpenAI-compatible
servers: vLLM's ``finish_reason: "abort"`` and its ``reasoning_content`` / ``reasoning``
members, DeepSeek-R1 served without a reasoning parser (``<think>`` in ``content``, or only its
``</think>`` when the chat template opened the block), Ollama's ``prompt_tokens: 0`` for a
cached prompt and its silent cut of a prompt longer than its context window, an Azure-style
endpoint that answers 400 to ``max_tokens``, and Mistral's ``content`` given as typed parts
(``TextChunk``, ``ThinkChunk``, ``ReferenceChunk``; its reasoning models' shape).

Each run is one case, one draw per arm, one judge sample per draw; the scripted judge gives 0.9
to the skill's answer and 0.5 to the baseline's (run_helpers).
"""

from __future__ import annotations

import pytest
import run_helpers
from shape_replies import ONE, _answers, _chat, _draws, _message, _mini, _response, arm_usage

from driftproof.errors import ProviderError
from driftproof.run.providers import make_provider

# --- OpenAI Chat Completions: OpenAI's own service and compatible servers -------------------------


def _openai_lane(*, compatible: bool, budget: str = "auto"):
    """A Chat Completions lane on the loopback server; ``compatible=False`` reads it as OpenAI's
    own service (its table, its budget spelling), which a loopback host cannot be."""
    lane = make_provider("openai", "api", api="chat", budget_param=budget)
    if not compatible:
        lane.compatible, lane.budget_param = False, "max_completion_tokens"
    return lane


def test_vllm_abort_on_a_compatible_server_is_retried_then_lost_as_a_server_abort(
    loopback, suite_file, tmp_path
):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t[:25], finish="abort"), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "server_abort"
        assert d.lost.error_class == "transient"
        assert len(d.attempts) == 3  # retry_delays (0.01, 0.02): three attempts
        assert d.lost.reason.startswith("aborted by the server: the reply ended with 'abort'")


def test_vllm_abort_once_then_a_finished_answer_is_graded(loopback, suite_file, tmp_path):
    seen = []

    def shape(path, body, is_judge, text):
        if is_judge:
            return None
        seen.append(1)
        return (200, _chat(text[:25], finish="abort"), {}) if len(seen) == 1 else None

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    skill, _base = _draws(r)
    assert skill.score == 0.9 and len(skill.attempts) == 1


def test_abort_on_openais_own_service_is_an_unknown_ending(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t, finish="abort"), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=False))
    for d in _draws(r):
        assert d.lost.kind == "unknown_ending" and d.attempts == []


@pytest.mark.parametrize(
    ("finish", "kind"),
    [("content_filter", "content_filter"), ("tool_calls", "tool_call"), (None, "unknown_ending")],
)
def test_chat_endings_that_are_not_stop_are_lost_by_class(
    loopback, suite_file, tmp_path, finish, kind
):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(None, finish=finish), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=False))
    for d in _draws(r):
        assert d.score is None and d.lost.kind == kind and d.refusal is None


_CALL = {"id": "call_1", "type": "function", "function": {"name": "git_status", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("compatible", "member", "value", "ending"),
    [
        (False, "tool_calls", [_CALL], "stop:tool_calls"),  # OpenAI's own, a forced call
        (True, "function_call", _CALL["function"], "stop:function_call"),  # an older server
    ],
)
def test_a_call_sent_with_a_stop_is_a_tool_call_not_an_answer(
    loopback, suite_file, tmp_path, compatible, member, value, ending
):
    def shape(path, body, text):
        c = _chat("Let me check the repository first.")
        c["choices"][0]["message"][member] = value
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=compatible))
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "tool_call"
        assert d.lost.reason == (
            f"tool call with no answer: the reply ended with '{ending}', not as a complete "
            "final answer"
        )


def test_vllm_length_at_a_full_context_window_is_never_an_accepted_truncation(
    loopback, suite_file, tmp_path
):
    # a 4,096-token context: 4,090 prompt tokens leave room for 6, far from the 8,192 budget
    usage = {"prompt_tokens": 4090, "completion_tokens": 6, "total_tokens": 4096}
    loopback.script.shape = _answers(
        lambda p, b, t: (
            200,
            _chat("fix(http): retry 429 and the context ran o", finish="length", usage=usage),
            {},
        )
    )
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True),
        suite={**ONE, "truncation": "accepted"},
    )  # fmt: skip
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "context_window"
        assert d.lost.reason == (
            "context window: the reply ended with 'length' after 6 output tokens, well below "
            "the output budget of 8,192, not as a complete final answer"
        )


def test_a_length_stop_without_output_tokens_cannot_be_told_apart_and_is_lost(
    loopback, suite_file, tmp_path
):
    def shape(path, body, text):
        c = _chat(text[:20], finish="length")
        del c["usage"]
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True),
        suite={**ONE, "truncation": "accepted"},
    )  # fmt: skip
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "length_unknown"
        assert d.lost.reason.startswith("length stop (the context window or the output budget")


@pytest.mark.parametrize(("out", "kind"), [(7373, "truncated"), (7372, "context_window")])
def test_a_chat_length_is_the_output_budget_from_90_percent_of_it(out, kind):
    from driftproof.run.endings import lost_class

    # 90% of 8,192 is 7,372.8
    assert lost_class("chat", "length", output_tokens=out, budget=8192) == kind
    assert lost_class("anthropic", "max_tokens", output_tokens=out, budget=8192) == kind


def test_reasoning_mixed_into_the_answer_is_lost_quoting_its_place(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(f"{t}\n<think>sorry SECRET</think>\nDone."), {})
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    skill, base = _draws(r)
    for d, answer in ((skill, run_helpers.SKILL_ANSWER), (base, run_helpers.BASE_ANSWER)):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "reasoning_mixed"
        assert d.lost.reason.startswith(
            f"reasoning mixed into the answer: <think> at character {len(answer) + 1:,} "
        )


def test_a_think_block_in_a_second_anthropic_text_block_is_lost(loopback, suite_file, tmp_path):
    def shape(path, body, text):
        m = _message(text)
        m["content"].append({"type": "text", "text": "<think>sorry SECRET</think>"})
        return 200, m, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "reasoning_mixed"


def _with_reasoning(member: str, thought: str, usage: dict | None = None):
    def shape(path, body, is_judge, text):
        if is_judge:
            assert thought not in body["messages"][-1]["content"]
            return None
        c = _chat(text, usage=usage and arm_usage(usage, path, body))
        c["choices"][0]["message"][member] = thought
        return 200, c, {}

    return shape


@pytest.mark.parametrize("member", ["reasoning_content", "reasoning"])
def test_reasoning_members_of_deepseek_vllm_and_ollama_are_kept_apart(
    loopback, suite_file, tmp_path, member
):
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 96,
        "total_tokens": 216,
        "completion_tokens_details": {"reasoning_tokens": 65},
    }
    thought = "Okay, so the user wants a commit message. sorry."
    loopback.script.shape = _with_reasoning(member, thought, usage)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.reasoning.chars == len(thought)
    assert (skill.tokens.output, skill.tokens.reasoning_output) == (96, 65)
    assert skill.tokens.answer_output == 31  # 96 output tokens less 65 of reasoning


def test_a_leading_think_block_in_content_is_reasoning_not_the_answer(
    loopback, suite_file, tmp_path
):
    thought = "\nI should not say sorry here. (skill) answer?\n"
    usage = {"prompt_tokens": 120, "completion_tokens": 96, "total_tokens": 216}

    def shape(path, body, is_judge, text):
        if is_judge:
            assert "should not say sorry" not in body["messages"][-1]["content"]
            return None
        said = arm_usage(usage, path, body)
        return 200, _chat(f"<think>{thought}</think>\n\n{text}", usage=said), {}

    loopback.script.shape = shape
    checks = [{"name": "no apology", "kind": "must_not_include", "pattern": "sorry"}]
    case = {**ONE["cases"][0], "checks": checks}
    r, _ = _mini(
        tmp_path,
        suite_file,
        "openai",
        "api",
        lane=_openai_lane(compatible=True),
        suite={**ONE, "cases": [case]},
        keep_transcripts=True,
    )
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert (skill.answer, base.answer) == (run_helpers.SKILL_ANSWER, run_helpers.BASE_ANSWER)
    assert skill.reasoning.chars == len(thought) and [c.pass_ for c in skill.checks] == [True]
    # the server counted the reasoning in its 96 output tokens and did not say how many: the
    # answer's own tokens are unknown, never 96
    assert skill.tokens.output == 96 and skill.tokens.answer_output is None


def test_a_closing_think_tag_alone_ends_the_reasoning(loopback, suite_file, tmp_path):
    # DeepSeek-R1's chat template opens <think> in the prompt: the reply holds only its end
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(f"Let me think about 429.\n</think>\n\n{t}"), {})
    )
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True),
        keep_transcripts=True,
    )  # fmt: skip
    skill, _ = _draws(r)
    assert skill.answer == run_helpers.SKILL_ANSWER and skill.score == 0.9
    assert skill.reasoning.chars == len("Let me think about 429.\n")


def test_ollama_prompt_tokens_0_is_unrecorded_not_zero(loopback, suite_file, tmp_path):
    usage = {"prompt_tokens": 0, "completion_tokens": 20, "total_tokens": 20}
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t, usage=usage), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    for d in _draws(r):
        assert d.score is not None and d.tokens.input is None and d.tokens.output == 20
    assert r.arms.with_skill.input_tokens_median is None


BIG_SKILL = "---\nname: commit-helper\n---\nSKILL-MARK\n" + " word" * 2000


@pytest.mark.parametrize(("reported", "lost"), [(1500, True), (1700, False)])
def test_a_server_that_dropped_the_skill_loses_the_with_skill_draw(
    loopback, suite_file, tmp_path, monkeypatch, reported, lost
):
    # the skill is 2,000 repeats of " word" (one o200k_base token each) after a short front
    # matter and a mark (12 tokens): 2,012 tokens; 80% of it is 1,609.6. The reason quotes that
    # count, the one the check uses: 1,500 is fewer, 1,700 is not. Its 10,039 characters are
    # ceil(10,039 / 4) = 2,510 tokens as the receipt records it, the figure view shows
    monkeypatch.setattr(run_helpers, "SKILL_TEXT", BIG_SKILL)
    from driftproof.pages.sheet import sheet
    from driftproof.render.sheet import sheet_text

    def shape(path, body, text):
        n = reported if body["messages"][0]["role"] == "system" else 60  # the baseline: the task
        return 200, _chat(text, usage={"prompt_tokens": n, "completion_tokens": 20}), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    skill, base = _draws(r)
    assert base.score == 0.5  # the baseline carries no skill: no check
    if lost:
        assert skill.score is None and skill.lost.kind == "prompt_dropped"
        m = skill.lost.reason
        assert m.startswith(
            "the server dropped part of the prompt, or counts only the prompt tokens it did not "
            "take from its cache (reported 1,500 input tokens, fewer than 80% of the skill's own "
            "2,012 o200k_base tokens)"
        )
        assert f"a skill of about {r.skill.tokens:,} tokens" in sheet_text(sheet(r))
    else:
        assert skill.score == 0.9
    assert r.arms.with_skill.input_tokens_median == reported
    # view: each arm's median input, the difference, the skill's size (characters ÷ 4), and
    # the lost class in words

    text = sheet_text(sheet(r))
    size = -(-len(BIG_SKILL) // 4)
    assert (
        f"median reported input tokens  with skill {reported:,}, baseline 60; "
        f"with the skill +{reported - 60:,}, beside a skill of about {size:,} tokens"
    ) in text
    assert ("1 (prompt dropped)" in text) is lost


def test_azure_style_400_on_max_tokens_is_retried_once_with_the_other_spelling(
    loopback, suite_file, tmp_path
):
    def shape(path, body, is_judge, text):
        if path.endswith("/chat/completions") and "max_tokens" in body:
            err = {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this "
                "model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "unsupported_parameter",
            }
            return 400, {"error": err}, {}
        return None

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    assert [d.score for d in _draws(r)] == [0.9, 0.5]
    assert r.run.budget_param == "max_completion_tokens"
    sent = [b for p, b in loopback.script.bodies if p.endswith("/chat/completions")]
    assert "max_tokens" in sent[0]  # the host's first answer named it; never sent again after
    assert all("max_tokens" not in b for b in sent[2:])


def test_a_spelling_the_user_chose_is_never_changed(loopback, suite_file, tmp_path):
    loopback.script.shape = lambda p, b, j, t: (
        (400, {"error": {"message": "Unsupported parameter: 'max_tokens'", "code": "x"}}, {})
        if p.endswith("/chat/completions") and "max_tokens" in b
        else None
    )
    with pytest.raises(ProviderError, match="max_tokens"):
        _mini(
            tmp_path,
            suite_file,
            "openai",
            "api",
            lane=_openai_lane(compatible=True, budget="max_tokens"),
        )


def test_a_judge_grade_after_a_think_block_is_read_from_the_final_answer(
    loopback, suite_file, tmp_path
):
    def shape(path, body, is_judge, text):
        if not is_judge:
            return None
        said = '<think>{"score": 0.1, "reason": "x"}</think>' + text
        out = [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": said, "annotations": []}],
            }
        ]
        return 200, _response(out, model=body["model"]), {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    assert [d.score for d in _draws(r)] == [0.9, 0.5]


def _magistral(text: str, thought: str, *extra: dict) -> list[dict]:
    """Mistral's content parts for a reasoning model: a ``ThinkChunk`` holding ``TextChunk``s,
    then the answer in two ``TextChunk``s, then ``extra`` parts."""
    think = {"type": "thinking", "thinking": [{"type": "text", "text": thought}], "closed": True}
    half = len(text) // 2
    return [
        think,
        {"type": "text", "text": text[:half]},
        {"type": "text", "text": text[half:]},
        *extra,
    ]


def test_mistral_content_parts_give_the_answer_and_keep_thinking_apart(
    loopback, suite_file, tmp_path
):
    thought = "The user wants a commit message; sorry, check 429 first."

    def shape(path, body, is_judge, text):
        if is_judge:
            assert "sorry" not in body["messages"][-1]["content"]
            return None
        return 200, _chat(_magistral(text, thought)), {}

    loopback.script.shape = shape
    checks = [{"name": "no apology", "kind": "must_not_include", "pattern": "sorry"}]
    case = {**ONE["cases"][0], "checks": checks}
    lane, suite = _openai_lane(compatible=True), {**ONE, "cases": [case]}
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", lane=lane, suite=suite, keep_transcripts=True
    )
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.answer == run_helpers.SKILL_ANSWER and [c.pass_ for c in skill.checks] == [True]
    assert skill.reasoning.chars == len(thought)


def test_a_mistral_content_part_of_another_type_is_never_graded(loopback, suite_file, tmp_path):
    ref = {"type": "reference", "reference_ids": [1]}
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(_magistral(t, "hm", ref)), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.judge_samples) == (None, "no_answer", [])
        assert d.lost.reason == (
            "the message's content holds a part of type 'reference', not a text or thinking part,"
            " so there is nothing to grade"
        )


@pytest.mark.parametrize(("at", "found"), [((1, 0, 2), "text, thinking, text"),
                                           ((1, 2, 0), "text, text, thinking")])  # fmt: skip
def test_mistral_text_before_thinking_is_never_graded(loopback, suite_file, tmp_path, at, found):
    # Mistral documents a reasoning model's thinking, then its answer: no other order is read
    shape = _answers(lambda p, b, t: (200, _chat([_magistral(t, "hm")[k] for k in at]), {}))
    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_openai_lane(compatible=True))
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.judge_samples) == (None, "no_answer", [])
        assert d.lost.reason == (
            f"the message's content holds a text part before a thinking part ({found}), not "
            "thinking followed by the answer, so there is nothing to grade"
        )
