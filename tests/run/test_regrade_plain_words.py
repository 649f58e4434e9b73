"""A plain judge regrade says "regrade stopped", not "rubric regrade stopped"; a Chat Completions
reply to a Responses call says to run with --openai-api chat, as the 404 case does."""

from __future__ import annotations

import pytest
from run_helpers import run_lane

from driftproof.errors import RefusalError
from driftproof.regrade.rubric import rubric_regrade
from driftproof.run.providers import make_provider
from driftproof.run.providers.openai_api import read_response
from driftproof.run.suite import load_suite


def test_a_plain_judge_regrade_that_stops_says_regrade_stopped(loopback, suite_file, tmp_path):
    out = run_lane(tmp_path, "anthropic", "api", keep_transcripts=True)
    # a bad key: every further call would fail too, so the regrade stops at the first
    bad_key = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    loopback.script.shape = lambda path, body, is_judge, text: (401, bad_key, {})
    with pytest.raises(RefusalError) as exc:
        rubric_regrade(
            out,
            load_suite(suite_file),
            make_provider("anthropic", "api"),
            plain=True,
            judge_model="claude-haiku-4-5-20251001",
            out=tmp_path / "p.json",
            retry_delays=(0.01,),
        )
    assert str(exc.value).startswith("regrade stopped: ")
    assert str(exc.value).endswith("; nothing was written")


def test_a_chat_completion_reply_to_a_responses_call_names_the_chat_option() -> None:
    chat = {"object": "chat.completion", "choices": [], "model": "m"}
    assert read_response(chat, graded=False).unread == (
        "the reply is a 'chat.completion' object, not a response, so there is nothing to grade; "
        "the endpoint has no Responses API; run with --openai-api chat (Chat Completions)"
    )
    # another object keeps its words alone: the option would not help a streamed event
    event = {"object": "response.output_text.delta", "model": "m"}
    assert read_response(event, graded=False).unread == (
        "the reply is a 'response.output_text.delta' object, not a response, so there is "
        "nothing to grade"
    )
