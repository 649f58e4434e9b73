"""A batch result's error is worded as the same error from an interactive call, by one function."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from driftproof.run.batch_lanes import AnthropicBatches, OpenAIBatches, result_line
from driftproof.run.providers._sdk import sdk_error

INVALID = {"type": "invalid_request_error", "message": "max_tokens: 90000 > 64000"}
#: The interactive words for that 400, worked by hand: HTTP <status>: <type>: <message>
SAID = "HTTP 400: invalid_request_error: max_tokens: 90000 > 64000"


class _StatusError(Exception):
    """An SDK's status error as the SDKs raise it: ``status_code``, ``body``, ``response``."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code, self.body, self.response = status, body, None


def _interactive(body: Any) -> Any:
    return sdk_error(_StatusError(400, body), 60.0)


def _openai_batch(body: Any) -> Any:
    line = {"id": "r1", "custom_id": "a0-0-0", "error": None}
    line["response"] = {"status_code": 400, "request_id": "r1", "body": body}
    read = OpenAIBatches(SimpleNamespace())._outcome
    cid, got = result_line("batch_1", json.dumps(line).encode(), "l", read)
    assert cid == "a0-0-0"
    return got


def _anthropic_batch(error: Any) -> Any:
    result = {"type": "errored", "error": error}
    return AnthropicBatches(SimpleNamespace())._outcome("msgbatch_1", "a0-0-0", result)


@pytest.mark.parametrize(
    "interactive,batched,bid",
    [
        # the Anthropic SDK's body is the whole reply; a batch result's error is that reply
        (
            _interactive({"type": "error", "error": INVALID}),
            _anthropic_batch({"type": "error", "error": INVALID}),
            "msgbatch_1",
        ),
        # the OpenAI SDK's body is the reply's error member; a batch line's body the reply
        (_interactive(INVALID), _openai_batch({"error": INVALID}), "batch_1"),
    ],
    ids=["anthropic", "openai"],
)
def test_a_batch_results_error_reads_as_the_interactive_calls(interactive, batched, bid):
    # Found: a batch's 400 read "HTTP 400: <message>" (OpenAI) where the same error from an
    # interactive call reads "HTTP 400: <type>: <message>". An Anthropic batch result carries no
    # HTTP status: its own word, errored, stands where the interactive call's status does
    assert interactive.reason == SAID
    status = "errored" if bid.startswith("msgbatch") else "HTTP 400"
    assert (
        batched.reason == f"batch {bid}: {status}: invalid_request_error: max_tokens: 90000 > 64000"
    )
    got = [(e.retryable, e.fatal, e.status, e.kind) for e in (interactive, batched)]
    assert got == [(False, True, 400, "error")] * 2  # a 400 that is no draw's fault stops the run


@pytest.mark.parametrize(
    ("kind", "said"), [("expired", "the batch ended"), ("canceled", "the batch was cancelled")]
)
def test_a_request_a_batch_never_processed_is_retried_saying_why(kind: str, said: str) -> None:
    # the Message Batches API: a canceled or expired result was never processed, so it is sent
    # again (retryable); an unknown result type is no answer and is not retried
    got = AnthropicBatches(SimpleNamespace())._outcome("msgbatch_1", "a0-0-0", {"type": kind})
    assert str(got) == f"batch msgbatch_1: {kind}: {said} before this request was processed"
    assert got.retryable is True
    unknown = AnthropicBatches(SimpleNamespace())._outcome("msgbatch_1", "a0-0-0", {"type": "x"})
    assert (str(unknown), unknown.retryable) == ("batch msgbatch_1: unknown result type 'x'", False)
