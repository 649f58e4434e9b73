"""Servers that hide a cut at the output budget behind a finished ending (D-19): the reply says
it is complete, but reports exactly the budget as output tokens.

Ollama's ``/v1/responses`` answered a reply cut at ``max_output_tokens`` with ``status``
``completed`` and ``incomplete_details`` null (ollama/ollama#17239: "responses.go … hardcodes
``IncompleteDetails: nil``"); vLLM's Responses did the same before vllm-project/vllm#24561
(vllm-project/vllm#24184). A LiteLLM proxy in front of Ollama's own API sent ``stop``, and
``end_turn`` on its Messages route, for a cut at ``num_predict`` (BerriAI/litellm#25825: output
tokens 20 at ``max_tokens`` 20).
"""

from __future__ import annotations

import pytest
from shape_replies import ONE, _answers, _chat, _draws, _message, _mini, _response, arm_usage

from driftproof.run.endings import lost_class
from driftproof.run.providers import make_provider

BUDGET = 20


def _ollama_responses(path, body, text):
    usage = {"input_tokens": 120, "output_tokens": BUDGET, "total_tokens": 140}
    part = {"type": "output_text", "text": text[:12], "annotations": []}
    item = {"type": "message", "id": "m", "status": "completed", "role": "assistant"}
    return 200, _response([{**item, "content": [part]}], usage=arm_usage(usage, path, body)), {}


def _litellm_chat(path, body, text):
    usage = {"prompt_tokens": 120, "completion_tokens": BUDGET, "total_tokens": 140}
    return 200, _chat(text[:12], usage=arm_usage(usage, path, body)), {}


def _litellm_messages(path, body, text):
    usage = {"input_tokens": 120, "output_tokens": BUDGET}
    return 200, _message(text[:12], usage=arm_usage(usage, path, body)), {}


SHAPES = {
    "ollama-responses": ("openai", {"api": "responses"}, _ollama_responses, "completed"),
    "litellm-chat": ("openai", {"api": "chat"}, _litellm_chat, "stop"),
    "litellm-messages": ("anthropic", {}, _litellm_messages, "end_turn"),
}


@pytest.mark.parametrize("who", list(SHAPES))
def test_a_finished_ending_at_exactly_the_budget_is_the_output_budget(
    loopback, suite_file, tmp_path, who
):
    provider, opts, shape, ending = SHAPES[who]
    loopback.script.shape = _answers(shape)
    lane = make_provider(provider, "api", **opts)
    r, _ = _mini(tmp_path, suite_file, provider, "api", lane=lane, max_tokens=BUDGET)
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "truncated"
        assert d.lost.reason == (
            f"cut off at 20 output tokens (stop reason {ending}; budget 20), the budget exactly, "
            "though the server called the answer finished; the suite does not accept truncation"
        )


def test_a_hidden_cut_is_graded_where_the_suite_accepts_truncation(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(_ollama_responses)
    lane = make_provider("openai", "api", api="responses")
    suite = {**ONE, "truncation": "accepted"}
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane, max_tokens=BUDGET, suite=suite)
    # graded: a budget cut, accepted (the judge reads the cut answers as the baseline's, 0.5)
    assert [(d.score, d.lost) for d in _draws(r)] == [(0.5, None), (0.5, None)]


@pytest.mark.parametrize(
    ("lane", "ending"),
    [
        ("anthropic", "end_turn"),
        ("chat", "stop"),
        ("responses", "completed"),
        ("compatible", "stop"),
    ],
)
def test_only_exactly_the_budget_reads_as_a_cut(lane, ending):
    # one below is a finished answer; above it, a server that ignored the budget (flagged over
    # budget, graded); no count, nothing to read
    assert lost_class(lane, ending, output_tokens=BUDGET, budget=BUDGET) == "truncated"
    for out in (BUDGET - 1, BUDGET + 1, None):
        assert lost_class(lane, ending, output_tokens=out, budget=BUDGET) is None


def test_a_judge_reply_finished_at_exactly_its_budget_is_a_cut_not_a_missing_grade():
    # a hidden cut may still carry a grade the server parsed: it is not counted, and the reason
    # says the server called the reply finished rather than that no grade was recorded
    from driftproof.run.judge import judge_verdict
    from driftproof.run.providers.base import Reply

    jr = Reply(
        text='{"score": 0.8}',
        output_tokens=BUDGET,
        lane="responses",
        ending="completed",
        channel="responses_format",
        decision={"score": 0.8},
    )
    v = judge_verdict(None, jr, BUDGET)
    assert v.score is None
    assert v.invalid_reason == (
        "the judge was cut off at 20 output tokens (budget 20), the budget exactly, though the "
        "server called the reply finished; its grade is not counted"
    )
