"""Every ending value and reply part the official SDKs type is classified (D-19).

The values are enumerated from the installed ``anthropic`` and ``openai`` packages' own types
(``typing.get_args`` of their ``Literal``s and discriminated unions), so an SDK that adds one
fails here until it is classified. Each value is a complete ending, a named class of the lane's
table, or deliberately refused: listed below with the reason. The handling expected is written
out by hand from the SDKs' docstrings, not read from the code.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pytest
from anthropic.types import ContentBlock, Message, StopReason
from anthropic.types.messages import MessageBatch, MessageBatchResult
from anthropic.types.shared.error_object import ErrorObject
from openai.types import Batch
from openai.types.chat import ChatCompletionMessage
from openai.types.chat.chat_completion import Choice
from openai.types.responses import Response, ResponseOutputItem, ResponseOutputMessage
from openai.types.responses.response import IncompleteDetails

from driftproof.run.batch_lanes import (
    ANTHROPIC_ERROR_STATUS,
    OPENAI_BATCH_ENDED,
    AnthropicBatches,
)
from driftproof.run.endings import ENDING_TABLES, UNKNOWN, lost_class
from driftproof.run.lost import lost_reason
from driftproof.run.providers.anthropic_api import READ_BLOCKS, read_message
from driftproof.run.providers.base import AttemptError
from driftproof.run.providers.openai_api import MESSAGE_PARTS, read_chat, read_response


def _members(tp: Any) -> tuple[Any, ...]:
    """The members of a (possibly ``Annotated``) union type, or the type alone."""
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return get_args(tp) if get_origin(tp) is Union else (tp,)


def _values(tp: Any) -> set[str]:
    """The string values of every ``Literal`` in ``tp`` (through unions and ``Optional``)."""
    if get_origin(tp) is Literal:
        return {v for v in get_args(tp) if isinstance(v, str)}
    return set().union(*(_values(a) for a in get_args(tp))) if get_args(tp) else set()


def _field(cls: Any, name: str) -> set[str]:
    return _values(cls.model_fields[name].annotation)


def _types(union: Any) -> set[str]:
    """The ``type`` discriminators of a union of SDK models."""
    return set().union(*(_field(c, "type") for c in _members(union)))


# --- Anthropic Messages ---------------------------------------------------------------------------

#: ``StopReason`` → class (``None``: complete), from ``Message.stop_reason``'s docstring.
ANTHROPIC_STOPS = {
    "end_turn": None,
    "stop_sequence": None,
    "max_tokens": "truncated",
    "model_context_window_exceeded": "context_window",
    "pause_turn": "paused_turn",
    "refusal": "refusal",
    "tool_use": "tool_call",
}

#: Content blocks not read, so a reply holding one beside a complete ending is no answer.
ANTHROPIC_REFUSED_BLOCKS = {
    **{
        kind: "a server tool's call or result: the lane offers no server tool, so the text "
        "around it is not known to be the model's whole answer"
        for kind in (
            "server_tool_use",
            "web_search_tool_result",
            "web_fetch_tool_result",
            "code_execution_tool_result",
            "bash_code_execution_tool_result",
            "text_editor_code_execution_tool_result",
            "tool_search_tool_result",
        )
    },
    "container_upload": "a file for the code execution tool, which the lane never offers",
}


def _message(content: list[dict[str, Any]], stop: str = "end_turn", **extra: Any) -> dict:
    usage = {"input_tokens": 9, "output_tokens": 3}
    return {"type": "message", "role": "assistant", "model": "claude-x", "content": content,
            "stop_reason": stop, "usage": usage, **extra}  # fmt: skip


def test_every_anthropic_stop_reason_is_complete_or_classed():
    assert set(get_args(StopReason)) == set(ANTHROPIC_STOPS)
    for stop, cls in ANTHROPIC_STOPS.items():
        # 95 of 100: a max_tokens stop reaches the budget's 90% (test_shapes_endings_anthropic.py)
        assert lost_class("anthropic", stop, output_tokens=95, budget=100) == cls, stop
        # claude -p reports the Messages stop reason beside its own "success"
        assert lost_class("claude-cli", f"success:{stop}") == cls, stop


@pytest.mark.parametrize("kind", sorted(_types(ContentBlock)))
def test_every_anthropic_content_block_is_read_or_refused(kind):
    assert kind in READ_BLOCKS or kind in ANTHROPIC_REFUSED_BLOCKS
    assert not (kind in READ_BLOCKS and kind in ANTHROPIC_REFUSED_BLOCKS)
    reply = read_message(_message([{"type": "text", "text": "fix(http): 429"}, {"type": kind}]))
    if kind in ANTHROPIC_REFUSED_BLOCKS:
        assert reply.unread is not None and repr(kind) in reply.unread
    elif kind == "tool_use":  # the answer beside a call: the turn goes on
        assert lost_class("anthropic", reply.ending) == "tool_call"


def test_read_blocks_are_the_sdks_answer_reasoning_and_call_blocks():
    assert set(READ_BLOCKS) == {"text", "thinking", "redacted_thinking", "tool_use"}
    blocks = [
        {"type": "thinking", "thinking": "weigh 429", "signature": "s"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "fix(http): 429"},
    ]
    reply = read_message(_message(blocks))
    assert (reply.text, reply.unread, lost_class("anthropic", reply.ending)) == (
        "fix(http): 429",
        None,
        None,
    )
    assert reply.reasoning is not None and "weigh 429" in reply.reasoning


#: ``Message.stop_details``: the models it may be (``RefusalStopDetails`` alone, or ``None``).
STOP_DETAILS = [
    d for d in _members(Message.model_fields["stop_details"].annotation) if d is not type(None)
]


@pytest.mark.parametrize("category", sorted(_field(STOP_DETAILS[0], "category")))
def test_every_refusal_stop_details_category_is_kept(category):
    assert [_field(d, "type") for d in STOP_DETAILS] == [{"refusal"}]
    details = {"type": "refusal", "category": category, "explanation": "not this"}
    reply = read_message(_message([], stop="refusal", stop_details=details))
    assert reply.refusal == {"text": "not this", "category": category}


def test_every_message_batch_result_and_error_type_is_handled():
    assert _types(MessageBatchResult) == {"succeeded", "errored", "canceled", "expired"}
    assert _field(MessageBatch, "processing_status") == {"in_progress", "canceling", "ended"}
    # the status each error type is given with (the API reference's "Errors")
    statuses = {"invalid_request_error": 400, "authentication_error": 401, "billing_error": 402,
                "permission_error": 403, "not_found_error": 404, "rate_limit_error": 429,
                "timeout_error": 504, "api_error": 500, "overloaded_error": 529}  # fmt: skip
    assert _types(ErrorObject) == set(statuses)
    assert {k: ANTHROPIC_ERROR_STATUS[k] for k in statuses} == statuses
    lane = AnthropicBatches.__new__(AnthropicBatches)  # no client: these read no message
    for kind in ("canceled", "expired"):
        out = lane._outcome("b1", "a1", {"type": kind})
        assert isinstance(out, AttemptError) and out.retryable, kind  # sent again
        assert "unknown result type" not in out.reason
    for etype, status in statuses.items():
        err = {"type": "error", "error": {"type": etype, "message": "m"}}
        out = lane._outcome("b1", "a1", {"type": "errored", "error": err})
        assert isinstance(out, AttemptError) and out.status == status, etype


# --- OpenAI Chat Completions ----------------------------------------------------------------------

#: ``Choice.finish_reason`` → class, a ``length`` reporting its whole budget as output.
CHAT_STOPS = {
    "stop": None,
    "length": "truncated",
    "tool_calls": "tool_call",
    "content_filter": "content_filter",
    "function_call": "tool_call",
}


def test_every_chat_finish_reason_is_complete_or_classed():
    assert _field(Choice, "finish_reason") == set(CHAT_STOPS)
    for lane in ("chat", "compatible"):
        for stop, cls in CHAT_STOPS.items():
            # 95 of 100: a length stop reaches the budget's 90%, a finished one is not at the
            # budget exactly (which would read as a hidden cut: test_shapes_hidden_cut.py)
            assert lost_class(lane, stop, output_tokens=95, budget=100) == cls, (lane, stop)


def _chat(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    choice = {"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}
    return {"object": "chat.completion", "model": "gpt-x", "choices": [choice]}


def test_every_chat_message_member_is_read_or_refused():
    assert set(ChatCompletionMessage.model_fields) == {
        "content",  # the answer
        "refusal",  # a refusal, lost as one whatever the finish reason
        "role",  # always "assistant"
        "annotations",  # URL citations of the content's text: the answer is the text
        "audio",  # never asked for (no audio modality): no text answer, lost as no answer
        "function_call",  # a call: "stop" beside it is "stop:function_call"
        "tool_calls",  # calls: "stop" beside them is "stop:tool_calls"
    }
    refused = read_chat(_chat({"content": None, "refusal": "I can't help with that."}))
    assert refused.refusal == {"text": "I can't help with that.", "category": None}
    fn = read_chat(_chat({"content": "x", "function_call": {"name": "f", "arguments": "{}"}}))
    assert lost_class("chat", fn.ending) == "tool_call"
    audio = {"id": "a", "data": "UklGR", "expires_at": 0, "transcript": "fix(http): 429"}
    heard = read_chat(_chat({"content": None, "audio": audio}))
    assert heard.text == "" and lost_reason(heard.text) == "the reply holds no answer"


@pytest.mark.parametrize(
    "kind",
    sorted(
        _types(ChatCompletionMessage.model_fields["tool_calls"].annotation.__args__[0].__args__[0])
    ),
)
def test_every_chat_tool_call_type_is_a_call(kind):
    call = {"id": "c1", "type": kind, kind: {"name": "f", "arguments": "{}", "input": ""}}
    reply = read_chat(_chat({"content": "fix(http): 429", "tool_calls": [call]}))
    assert (reply.ending, lost_class("chat", reply.ending)) == ("stop:tool_calls", "tool_call")


def test_every_openai_batch_status_is_ended_or_not():
    not_ended = {"validating", "in_progress", "finalizing", "cancelling"}
    assert set(OPENAI_BATCH_ENDED) == {"completed", "failed", "expired", "cancelled"}
    assert _field(Batch, "status") == not_ended | set(OPENAI_BATCH_ENDED)


# --- OpenAI Responses -----------------------------------------------------------------------------

#: ``Response.status`` values that are no ending of this lane: an unknown ending, quoted.
RESPONSES_REFUSED_STATUS = {
    "failed": "its error member makes the attempt a failed one before an ending is read; "
    "without one, nothing says why it failed",
    "in_progress": "only a background response (never asked for) is answered unfinished",
    "queued": "only a background response (never asked for) is answered before it starts",
}

#: ``IncompleteDetails.reason`` → class of ``incomplete:<reason>``.
RESPONSES_INCOMPLETE = {
    "max_output_tokens": "truncated",
    "content_filter": "content_filter",
    # not documented beyond its name: which limit it is cannot be told
    "max_messages": UNKNOWN,
    # only after a WebSocket response.steer event, which this lane never sends
    "steered": UNKNOWN,
}

#: Output items this lane does not class: an unknown ending, quoted.
RESPONSES_REFUSED_ITEMS = {
    "compaction": "made only when the request asks for context compaction, which this lane "
    "never does",
    "additional_tools": "tools added part way through a turn; the lane offers none",
}


def test_every_response_status_and_incomplete_reason_is_complete_or_classed():
    statuses = _field(Response, "status")
    assert statuses == {"completed", "incomplete", "cancelled", *RESPONSES_REFUSED_STATUS}
    assert lost_class("responses", "completed") is None
    # OpenAI cancels only a background response (never asked for); vLLM answers a request its
    # engine aborted so (test_shapes_endings_responses.py): a server abort, retried
    assert lost_class("responses", "cancelled") == "server_abort"
    for status in RESPONSES_REFUSED_STATUS:
        assert lost_class("responses", status) == UNKNOWN, status
    assert _field(IncompleteDetails, "reason") == set(RESPONSES_INCOMPLETE)
    for why, cls in RESPONSES_INCOMPLETE.items():
        # 95 of 100: a budget cut reaches the budget's 90% (test_shapes_endings_responses.py)
        ending = f"incomplete:{why}"
        assert lost_class("responses", ending, output_tokens=95, budget=100) == cls, why


def _said(text: str, status: str = "completed", phase: str | None = "final_answer") -> dict:
    part = {"type": "output_text", "text": text, "annotations": []}
    return {"type": "message", "id": "m", "status": status, "role": "assistant",
            "phase": phase, "content": [part]}  # fmt: skip


def _response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {"object": "response", "status": "completed", "model": "gpt-x", "output": output}


@pytest.mark.parametrize("kind", sorted(_types(ResponseOutputItem) - {"message", "reasoning"}))
def test_every_responses_output_item_is_classed_or_refused(kind):
    reply = read_response(_response([_said("fix(http): 429"), {"type": kind, "id": "i"}]))
    assert reply.ending == f"completed:{kind}"
    if kind in RESPONSES_REFUSED_ITEMS:
        assert f"completed:{kind}" not in ENDING_TABLES["responses"].classes
        assert lost_class("responses", reply.ending) == UNKNOWN
    else:  # a tool's call, its output, or an MCP step: the turn used a tool
        assert lost_class("responses", reply.ending) == "tool_call"


def test_reasoning_items_and_message_phases_are_reasoning_or_the_answer():
    phases = _values(ResponseOutputMessage.model_fields["phase"].annotation)
    assert phases == {"commentary", "final_answer"}
    thought = {"type": "reasoning", "id": "r", "summary": [{"type": "summary_text", "text": "t"}]}
    out = [thought, _said("let me look", phase="commentary"), _said("fix(http): 429")]
    reply = read_response(_response(out))
    assert (reply.text, reply.ending, reply.unread) == ("fix(http): 429", "completed", None)
    assert reply.reasoning is not None and "let me look" in reply.reasoning
    untagged = read_response(_response([_said("fix(http): 429", phase=None)]))
    assert (untagged.text, lost_class("responses", untagged.ending)) == ("fix(http): 429", None)


@pytest.mark.parametrize("status", sorted(_field(ResponseOutputMessage, "status")))
def test_every_answer_message_status_is_complete_or_unfinished(status):
    reply = read_response(_response([_said("fix(http): 429", status)]))
    expected = None if status == "completed" else "unfinished_answer"
    assert lost_class("responses", reply.ending) == expected


def test_every_message_part_is_the_answer_or_a_refusal():
    content = ResponseOutputMessage.model_fields["content"].annotation
    assert _types(get_args(content)[0]) == set(MESSAGE_PARTS) == {"output_text", "refusal"}
    item = _said("fix(http): 429")
    item["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
    reply = read_response(_response([item]))
    assert reply.refusal == {"text": "I can't help with that.", "category": None}
