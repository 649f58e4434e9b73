"""Endings of both batch APIs' answers (D-19): the README's table for the Messages API "and its
batches" and for OpenAI's lanes holds for a result line as for an interactive reply. Each shape
is a succeeded result's ``message`` (Message Batches: ``MessageBatchSucceededResult.message`` is a
``Message``) or an output line's ``response.body`` (OpenAI Batch API: the body the endpoint
would return, a ``ChatCompletion`` or ``Response``), served by the batch fake through the
official SDKs; the with-skill arm's answers get the shape, the baseline's are graded.

The lost reasons are the table's words: "<class>: the reply ended with '<ending>', not as a
complete final answer"; a budget ending reporting 6 of the 8,192-token default budget is the
context window (at least 90% of the budget is needed for the output budget).
"""

from __future__ import annotations

import pytest
import run_helpers
from batch_runs import batched

from driftproof.receipt import read_receipt
from driftproof.run.providers import openai_api

_LOW = 6  # output tokens far below the 8,192-token budget
_CALL = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "429"}}
_FN = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}


def _said(cls: str, ending: str, after: str = "") -> str:
    return f"{cls}: the reply ended with '{ending}'{after}, not as a complete final answer"


#: a retried ending's words: batched() allows 3 attempts; a batch sends the next at once
_RETRIED = "; transient, 3 attempts, retried after 0 s and 0 s"
_WINDOW = f" after {_LOW} output tokens, well below the output budget of 8,192"


def _messages(stop, *, out=20, content=None):
    def shape(body):
        body = {**body, "stop_reason": stop, "usage": {**body["usage"], "output_tokens": out}}
        return body if content is None else {**body, "content": [*body["content"], content]}

    return shape


def _chat(finish, *, out=20, **member):
    def shape(body):
        choice = body["choices"][0]
        message = {**choice["message"], **member}
        usage = {**body["usage"], "completion_tokens": out}
        return {**body, "choices": [{**choice, "finish_reason": finish, "message": message}],
                "usage": usage}  # fmt: skip

    return shape


def _responses(status, *, reason=None, out=20, item=None, message_status="completed"):
    def shape(body):
        msg = {**body["output"][0], "status": message_status}
        return {**body, "status": status, "usage": {**body["usage"], "output_tokens": out},
                "incomplete_details": reason and {"reason": reason},
                "output": [msg, *([item] if item else [])]}  # fmt: skip

    return shape


CASES = {
    # Message Batches (anthropic.types.StopReason)
    "pause_turn": ("anthropic", None, _messages("pause_turn"), "paused_turn",
                   _said("paused turn", "pause_turn")),
    "window": ("anthropic", None, _messages("model_context_window_exceeded"), "context_window",
               _said("context window", "model_context_window_exceeded")),
    "max_tokens_low": ("anthropic", None, _messages("max_tokens", out=_LOW), "context_window",
                       _said("context window", "max_tokens", _WINDOW)),
    "max_tokens_at_budget": ("anthropic", None, _messages("max_tokens", out=8192), "truncated",
                             "cut off at 8192 output tokens (stop reason max_tokens; budget "
                             "8192); the suite does not accept truncation"),
    "end_turn_at_budget": ("anthropic", None, _messages("end_turn", out=8192), "truncated",
                           "cut off at 8192 output tokens (stop reason end_turn; budget 8192), "
                           "the budget exactly, though the server called the answer finished; "
                           "the suite does not accept truncation"),
    "tool_use": ("anthropic", None, _messages("end_turn", content=_CALL), "tool_call",
                 _said("tool call with no answer", "end_turn:tool_use")),
    "unknown": ("anthropic", None, _messages("compaction"), "unknown_ending",
                _said("unknown ending", "compaction")),
    # OpenAI Batch API, /v1/chat/completions (Choice.finish_reason)
    "content_filter": ("openai", "chat", _chat("content_filter"), "content_filter",
                       _said("content filter", "content_filter")),
    "tool_calls": ("openai", "chat", _chat("tool_calls", tool_calls=[_FN]), "tool_call",
                   _said("tool call with no answer", "tool_calls")),
    "length_low": ("openai", "chat", _chat("length", out=_LOW), "context_window",
                   _said("context window", "length", _WINDOW)),
    "abort": ("openai", "chat", _chat("abort"), "unknown_ending",  # vLLM's word, not OpenAI's
              _said("unknown ending", "abort")),
    # a compatible server's batch (the loopback as itself): vLLM's abort, retried, then lost
    "abort_compatible": ("compatible", "chat", _chat("abort"), "server_abort",
                         _said("aborted by the server", "abort") + _RETRIED),
    # OpenAI Batch API, /v1/responses (Response.status, incomplete_details.reason, output items)
    "incomplete_filter": ("openai", "responses",
                          _responses("incomplete", reason="content_filter"), "content_filter",
                          _said("content filter", "incomplete:content_filter")),
    "incomplete_low": ("openai", "responses",
                       _responses("incomplete", reason="max_output_tokens", out=_LOW),
                       "context_window",
                       _said("context window", "incomplete:max_output_tokens", _WINDOW)),
    "completed_at_budget": ("openai", "responses", _responses("completed", out=8192),
                            "truncated",
                            "cut off at 8192 output tokens (stop reason completed; budget 8192), "
                            "the budget exactly, though the server called the answer finished; "
                            "the suite does not accept truncation"),
    "function_call": ("openai", "responses", _responses("completed", item={
        "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "lookup",
        "arguments": "{}", "status": "completed"}), "tool_call",
        _said("tool call with no answer", "completed:function_call")),
    "cancelled": ("openai", "responses", _responses("cancelled"), "server_abort",
                  _said("aborted by the server", "cancelled") + _RETRIED),
    "message_incomplete": ("openai", "responses",
                           _responses("completed", message_status="incomplete"),
                           "unfinished_answer",
                           _said("answer message not finished", "completed:message_incomplete")),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_a_batch_answer_ends_as_the_lanes_table_says(fake, tmp_path, monkeypatch, name):
    import batch_fake_state

    provider, api, shape, kind, reason = CASES[name]
    ok = batch_fake_state._ok

    def shaped(path, model, text, body=None):
        reply = ok(path, model, text, body)
        system, prompt = run_helpers._texts(path, body or {})
        skill = system is not None and not run_helpers.is_judge_prompt(prompt)
        return shape(reply) if skill else reply

    monkeypatch.setattr(batch_fake_state, "_ok", shaped)
    # the loopback read as OpenAI's own service (its Chat Completions table, not a compatible
    # server's), as the Batch API is OpenAI's
    if provider == "openai":
        monkeypatch.setattr(openai_api, "OPENAI_HOST", "127.0.0.1")
    r = read_receipt(batched(tmp_path, provider.replace("compatible", "openai"), api=api, cases=1))
    arms = r.cases[0].arms
    for d in arms.with_skill.draws:
        assert (d.score, d.judge_samples, d.lost.kind, d.lost.reason) == (None, [], kind, reason)
    assert [d.score for d in arms.baseline.draws] == pytest.approx([0.5] * 3)
