"""The API lanes' request builders read one :class:`Request`; a :class:`Call` is one with its
timeout, so the lane and the batch transport build the same body (issue #18). Bodies written
out by hand from each API's request format."""

from __future__ import annotations

import pytest

from driftproof.run.providers.anthropic_api import build_request
from driftproof.run.providers.base import Call, Request
from driftproof.run.providers.openai_api import build_chat, build_responses

SCHEMA = {"type": "object"}
ANSWER = Request("m-1", "Be brief.", "What is 2+2?", 64)
GRADE = Request("j-1", None, "Grade this.", 32, SCHEMA)


def test_a_call_is_its_request_and_a_timeout() -> None:
    call = Call("m-1", "Be brief.", "What is 2+2?", 64, timeout=30.0)
    assert isinstance(call, Request)
    assert call.timeout == 30.0
    assert build_request(call) == build_request(ANSWER)
    with pytest.raises(TypeError):
        Call("m-1", None, "p", 64, None, 30.0)  # type: ignore[misc]  # timeout is keyword only


def test_anthropic_messages_body() -> None:
    assert build_request(ANSWER) == {
        "model": "m-1",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "What is 2+2?"}],
        "system": "Be brief.",
    }
    assert build_request(GRADE) == {
        "model": "j-1",
        "max_tokens": 32,
        "messages": [{"role": "user", "content": "Grade this."}],
        "tools": [
            {
                "name": "record_grade",
                "description": "Record your grade of the answer.",
                "input_schema": SCHEMA,
            }
        ],
        "tool_choice": {"type": "tool", "name": "record_grade"},
    }


def test_chat_completions_body_sends_the_one_budget_spelling_asked_for() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is 2+2?"},
    ]
    assert build_chat(ANSWER) == {"model": "m-1", "messages": messages, "max_completion_tokens": 64}
    assert build_chat(ANSWER, budget_param="max_tokens") == {
        "model": "m-1",
        "messages": messages,
        "max_tokens": 64,
    }
    assert build_chat(GRADE)["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "record_grade", "strict": True, "schema": SCHEMA},
    }


def test_responses_body() -> None:
    assert build_responses(ANSWER) == {
        "model": "m-1",
        "input": "What is 2+2?",
        "max_output_tokens": 64,
        "instructions": "Be brief.",
    }
    assert build_responses(GRADE) == {
        "model": "j-1",
        "input": "Grade this.",
        "max_output_tokens": 32,
        "text": {
            "format": {
                "type": "json_schema",
                "name": "record_grade",
                "strict": True,
                "schema": SCHEMA,
            }
        },
    }
