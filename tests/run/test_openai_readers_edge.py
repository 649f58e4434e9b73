"""OpenAI replies at the edges of what the readers grade (D-19), each body an SDK type's shape.

Chat bodies validate as ``openai.types.chat.ChatCompletion`` and Responses bodies as
``openai.types.responses.Response`` where the shape is one the SDK types allow; the ending,
answer and counts expected are worked out by hand from those types' docstrings.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from driftproof.run.endings import lost_class
from driftproof.run.providers.openai_api import choice_error, read_chat, read_response


def _chat(msg: dict[str, Any], finish: str = "stop", usage: dict[str, Any] | None = None):
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def _msg(content: Any = "The answer.", **more: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "refusal": None, **more}


def _response(output: list[dict[str, Any]], status: str = "completed", why: str | None = None):
    body = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": status,
        "incomplete_details": None if why is None else {"reason": why},
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    return body


def _message(*parts: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": status,
            "content": list(parts)}  # fmt: skip


def _text(t: str) -> dict[str, Any]:
    return {"type": "output_text", "text": t, "annotations": []}


CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"}
TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


# --- Chat Completions ---------------------------------------------------------------------------


def test_a_plain_chat_answer_reads_on_the_chat_table_with_no_grade_channel():
    body = _chat(_msg())
    ChatCompletion.model_validate(body)
    r = read_chat(body)
    assert (r.text, r.ending, r.lane, r.channel, r.refusal, r.unread) == (
        "The answer.", "stop", "chat", None, None, None
    )  # fmt: skip


def test_a_cut_reply_that_also_calls_a_tool_keeps_its_cut():
    # finish_reason "length": "the maximum number of tokens ... was reached"; the call beside it
    # does not make the ending "stop" (only a "stop" beside a call is read as the call)
    body = _chat(_msg(None, tool_calls=[TOOL_CALL]), finish="length")
    ChatCompletion.model_validate(body)
    assert read_chat(body).ending == "length"
    assert lost_class("chat", "length", output_tokens=64, budget=64) == "truncated"


@pytest.mark.parametrize("index", [1, True, False, 0.0, "0", None])
def test_a_choice_whose_index_is_not_the_integer_0_is_not_read(index):
    body = _chat(_msg())
    if index is None:
        del body["choices"][0]["index"]
    else:
        body["choices"][0]["index"] = index
    assert read_chat(body).unread is not None


@pytest.mark.parametrize(("member", "value"), [("tool_calls", "f()"), ("function_call", "f")])
def test_calls_that_are_no_list_or_object_cannot_be_told_apart_from_an_answer(member, value):
    assert read_chat(_chat(_msg(**{member: value}))).unread is not None


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c.update(object="chat.completion.chunk"),  # a streamed chunk, not a completion
        lambda c: c["choices"].append({**c["choices"][0], "index": 1}),  # two where one was asked
        lambda c: c["choices"].__setitem__(0, "The answer."),  # a choice that is no object
        lambda c: c["choices"][0]["message"].update(role="user"),  # not the assistant's message
        lambda c: c["choices"][0]["message"].update(content=["The answer."]),  # a part, no object
        lambda c: c["choices"][0]["message"].update(content=[{"type": "image_url"}]),  # not text
    ],
)
def test_a_chat_reply_not_shaped_as_one_assistant_answer_is_not_read(change):
    body = _chat(_msg())
    change(body)
    assert read_chat(body).unread is not None


def test_a_chat_reply_with_no_choice_has_no_ending_and_no_choice_error():
    body = _chat(_msg())
    body["choices"] = []
    r = read_chat(body)
    assert (r.ending, r.unread) == (None, None)  # no ending: the table's unknown ending
    assert choice_error(body) is None


def test_reasoning_members_are_reasoning_and_an_empty_refusal_is_none():
    msg = _msg("The answer.", reasoning_content="Thought A.")
    msg["refusal"] = ""
    r = read_chat(_chat(msg), compatible=True)
    assert (r.text, r.reasoning, r.refusal) == ("The answer.", "Thought A.", None)
    r = read_chat(_chat(_msg("The answer.", reasoning="Thought B.")), compatible=True)
    assert (r.text, r.reasoning) == ("The answer.", "Thought B.")


def test_a_graded_chat_reply_carries_its_decision_unless_refused():
    body = _chat(_msg('{"score": 0.5}'))
    r = read_chat(body, graded=True)
    assert (r.decision, r.channel, r.reported_model) == ({"score": 0.5}, "json_schema", "gpt-4o")
    refused = read_chat(_chat(_msg('{"score": 0.5}', refusal="No.")), graded=True)
    assert (refused.decision, refused.refusal) == (None, {"text": "No.", "category": None})


def test_a_text_part_before_a_thinking_part_is_not_read():
    content = [
        {"type": "text", "text": "Draft."},
        {"type": "thinking", "thinking": [{"type": "text", "text": "Hmm."}]},
    ]
    assert read_chat(_chat(_msg(content))).unread is not None


def test_text_parts_are_one_answer_and_a_null_content_an_empty_one():
    parts = [{"type": "text", "text": "The "}, {"type": "text", "text": "answer."}]
    assert read_chat(_chat(_msg(parts))).text == "The answer."
    assert (read_chat(_chat(_msg(None))).text, read_chat(_chat(_msg(None))).unread) == ("", None)


def test_thinking_parts_alone_are_reasoning_and_no_answer():
    content = [{"type": "thinking", "thinking": [{"type": "text", "text": "Hmm."}]}]
    r = read_chat(_chat(_msg(content)))
    assert (r.text, r.reasoning, r.unread) == ("", "Hmm.", None)


def test_a_choice_error_is_a_failed_attempt_and_none_is_not():
    body = _chat(_msg())
    assert choice_error(body) is None
    body["choices"][0]["error"] = {"message": "Upstream idle", "code": 502}
    err = choice_error(body)
    assert err is not None and err.retryable
    assert err.reason.endswith("not an answer: Upstream idle")
    assert choice_error({"choices": ["x"]}) is None


def test_chat_usage_reads_prompt_and_completion_tokens():
    usage = {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}
    body = _chat(_msg(), usage=usage)
    ChatCompletion.model_validate(body)
    r = read_chat(body)
    assert (r.input_tokens, r.output_tokens, r.reasoning_output) == (12, 34, None)


@pytest.mark.parametrize(
    ("total", "output"),
    [
        (10 + 20 + 30, 50),  # xAI: reasoning apart from completion_tokens, within total_tokens
        (10 + 20, 20),  # OpenAI: reasoning within completion_tokens, total input + output
        (None, 20),  # no total given: the output as given
    ],
)
def test_reasoning_outside_the_output_count_is_added_only_when_the_total_says_so(total, output):
    usage: dict[str, Any] = {
        "prompt_tokens": 10,
        "completion_tokens": 20,
        "completion_tokens_details": {"reasoning_tokens": 30},
    }
    if total is not None:
        usage["total_tokens"] = total
    r = read_chat(_chat(_msg(), usage=usage), compatible=True)
    assert (r.output_tokens, r.reasoning_output) == (output, 30)


def test_with_no_output_count_there_is_none_to_add_reasoning_to():
    usage = {"prompt_tokens": 10, "total_tokens": 40,
             "completion_tokens_details": {"reasoning_tokens": 30}}  # fmt: skip
    assert read_chat(_chat(_msg(), usage=usage)).output_tokens is None


def test_with_no_input_count_the_output_is_as_given():
    usage = {"completion_tokens": 20, "total_tokens": 50,
             "completion_tokens_details": {"reasoning_tokens": 30}}  # fmt: skip
    assert read_chat(_chat(_msg(), usage=usage)).output_tokens == 20


# --- Responses -----------------------------------------------------------------------------------


def test_a_refusal_part_is_a_refusal_not_an_unread_part():
    refusal = {"type": "refusal", "refusal": "I can't help with that."}
    body = _response([_message(refusal)])
    Response.model_validate(body)
    r = read_response(body)
    assert (r.refusal, r.unread, r.ending, r.channel) == (
        {"text": "I can't help with that.", "category": None}, None, "completed", None
    )  # fmt: skip


def test_a_part_of_another_type_leaves_a_completed_reply_unread():
    body = _response([_message(_text("Answer."), {"type": "output_audio", "data": "AAAA"})])
    assert read_response(body).unread is not None


@pytest.mark.parametrize("content", ["Answer.", None, ["Answer."]])
def test_message_content_that_is_no_list_of_parts_leaves_a_completed_reply_unread(content):
    body = _response([{**_message(), "content": content}])
    assert read_response(body).unread is not None


def test_parts_and_reasoning_items_are_joined_in_order():
    thought = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Plan. "}],
        "content": [{"type": "reasoning_text", "text": "Work."}],
    }
    no = {"type": "refusal", "refusal": "No. "}
    body = _response([thought, _message(_text("The "), _text("answer.")), _message(no, no)])
    Response.model_validate(body)
    r = read_response(body)
    assert (r.text, r.reasoning, r.refusal) == (
        "The answer.", "Plan. \n\nWork.", {"text": "No. No. ", "category": None}
    )  # fmt: skip


def test_a_summary_part_with_no_text_adds_no_reasoning():
    thought = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": None}],
    }
    assert not read_response(_response([thought, _message(_text("A."))])).reasoning


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r.update(object="chat.completion"),  # not a Response
        lambda r: r["output"][0].update(role="user"),  # not the assistant's message
        lambda r: r["output"][0]["content"][0].update(text=5),  # a text that is no string
    ],
)
def test_a_response_not_shaped_as_the_assistants_answer_is_not_read(change):
    body = _response([_message(_text("The answer."))])
    change(body)
    assert read_response(body).unread is not None


def test_an_answer_reply_carries_no_decision():
    assert read_response(_response([_message(_text('{"score": 1}'))])).decision is None


def test_a_cut_reply_reasoning_after_its_message_is_read_as_cut():
    thought = {"type": "reasoning", "id": "rs_1", "summary": []}
    body = _response(
        [_message(_text("Ans"), status="incomplete"), thought], "incomplete", "max_output_tokens"
    )
    r = read_response(body)
    assert (r.ending, r.unread) == ("incomplete:max_output_tokens", None)


def test_reasoning_after_the_last_answer_message_leaves_a_completed_reply_unread():
    thought = {"type": "reasoning", "id": "rs_1", "summary": []}
    body = _response([_message(_text("Answer.")), thought])
    Response.model_validate(body)
    assert read_response(body).unread is not None


def test_an_item_that_is_no_object_is_no_final_answer():
    r = read_response(_response(["Answer.", _message(_text("Answer."))]))
    assert lost_class("responses", r.ending) == "unknown_ending"


def test_a_cut_reply_is_read_as_cut_whatever_part_it_holds():
    odd = {"type": "output_audio", "data": "AAAA"}
    body = _response([_message(odd, status="incomplete")], "incomplete", "content_filter")
    r = read_response(body)
    assert (r.ending, r.unread) == ("incomplete:content_filter", None)


@pytest.mark.parametrize(("cached", "kept"), [(2048, 2048), (3000, 3000), (3001, None)])
def test_responses_usage_keeps_cached_input_only_within_the_input(cached, kept):
    usage = {
        "input_tokens": 3000,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": 40,
        "output_tokens_details": {"reasoning_tokens": 8},
        "total_tokens": 3040,
    }
    body = {**_response([_message(_text('{"score": 1}'))]), "usage": usage}
    r = read_response(body, graded=True)
    assert (r.input_tokens, r.cache_read, r.output_tokens, r.reasoning_output) == (
        3000, kept, 40, 8
    )  # fmt: skip
    assert (r.decision, r.channel, r.reported_model) == ({"score": 1}, "responses_format", "gpt-5")


def test_cached_tokens_with_no_input_count_are_no_part_of_one():
    usage = {"output_tokens": 40, "input_tokens_details": {"cached_tokens": 10}}
    body = {**_response([_message(_text("Answer."))]), "usage": usage}
    assert read_response(body).cache_read is None


def test_a_cut_reply_holding_a_call_is_read_as_cut():
    # status "incomplete", incomplete_details.reason "max_output_tokens": the budget ended it
    body = _response([CALL], status="incomplete", why="max_output_tokens")
    Response.model_validate(body)
    assert read_response(body).ending == "incomplete:max_output_tokens"
    assert lost_class("responses", read_response(body).ending, output_tokens=64, budget=64) == (
        "truncated"
    )
