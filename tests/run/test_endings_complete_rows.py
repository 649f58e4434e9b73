"""Complete endings of the endings table (D-19) that a grade or an answer is read under, each
through its lane's reply reader, with the handling worked out from the provider's reference.

* OpenAI Chat Completions: ``Choice.finish_reason`` ``stop`` (openai-python's ``Literal``) is
  "the model hit a natural stop point": a judge's grade sent back as its structured output
  under it is read, and counts.
* Compatible servers: TGI's ``eos_token`` (its ``FinishReason::EndOfSequenceToken`` before it
  spelled it ``stop``) and Together's ``eos`` are its natural end: a judge's grade under either
  is read, as an answer is.
* ``claude -p --output-format json``: a ``success`` result of a ``claude -p`` older than the
  ``stop_reason`` member (none given) is a finished answer; the ``result`` text is graded. A
  judge's grade (the result's ``structured_output``) under it, or under ``stop_sequence`` (the
  Messages API's "one of your custom stop sequences was generated", a complete ending:
  https://platform.claude.com/docs/en/agent-sdk/stop-reasons), counts.
"""

from __future__ import annotations

import json
from typing import get_args

import pytest
from openai.types.chat.chat_completion import Choice
from shape_replies import _draws, _mini, claude_result, printed_by_fake

from driftproof.run.providers import make_provider
from driftproof.run.providers.claude_cli import read_claude
from driftproof.run.providers.openai_api import read_chat

GRADE = {"score": 0.5, "reason": "a conventional subject"}


def _chat(finish: str) -> dict:
    msg = {"role": "assistant", "content": json.dumps(GRADE)}
    choice = {"index": 0, "finish_reason": finish, "message": msg}
    usage = {"prompt_tokens": 40, "completion_tokens": 12}
    return {"object": "chat.completion", "model": "m", "choices": [choice], "usage": usage}


@pytest.mark.parametrize(
    ("compatible", "finish"), [(False, "stop"), (True, "stop"), (True, "eos_token"), (True, "eos")]
)
def test_a_judges_grade_under_a_natural_end_is_read(compatible, finish):
    if finish == "stop":
        assert finish in get_args(Choice.model_fields["finish_reason"].annotation)
    reply = read_chat(_chat(finish), graded=True, compatible=compatible)
    assert (reply.decision, reply.unread) == (GRADE, None)
    assert reply.ending_class(100) is None  # 12 of 100 output tokens: no budget cut


def test_a_claude_success_with_no_stop_reason_is_a_finished_answer():
    env = claude_result(result="fix(http): retry 429 responses")
    del env["stop_reason"]
    reply = read_claude(0, json.dumps(env), "", "claude-sonnet-4-5")
    assert (reply.text, reply.ending, reply.ending_class(None)) == (
        "fix(http): retry 429 responses",
        "success",
        None,
    )


@pytest.mark.parametrize("stop", [None, "stop_sequence"], ids=["no_stop_reason", "stop_sequence"])
def test_a_claude_judges_grade_under_a_finished_result_counts(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, stop
):
    env = claude_result(stop_reason=stop, structured_output={"score": 0.7, "reason": "graded"})
    if stop is None:
        del env["stop_reason"]
    printed_by_fake(tmp_path, monkeypatch, "c.json", json.dumps(env))
    r, _ = _mini(tmp_path, suite_file, judge_lane=make_provider("anthropic", "cli"))
    for d in _draws(r):
        assert (d.score, [(s.score, s.invalid_reason) for s in d.judge_samples]) == (
            0.7,
            [(0.7, None)],
        )


def test_a_codex_judges_grade_in_a_completed_turn_counts(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # codex exec --json: the turn's last agent_message is its final answer, here the grade
    grade = json.dumps({"score": 0.7, "reason": "graded"})
    said = {"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": grade}}
    usage = {"input_tokens": 1200, "cached_input_tokens": 0, "output_tokens": 30}
    events = [{"type": "turn.started"}, said, {"type": "turn.completed", "usage": usage}]
    printed_by_fake(tmp_path, monkeypatch, "x.jsonl", "".join(json.dumps(e) + "\n" for e in events))
    r, _ = _mini(tmp_path, suite_file, judge_lane=make_provider("openai", "cli"))
    for d in _draws(r):
        assert (d.score, [(s.score, s.invalid_reason) for s in d.judge_samples]) == (
            0.7,
            [(0.7, None)],
        )
