"""A gateway's native ending is read beside the one it sends in OpenAI's words (D-19).

OpenRouter's non-streaming choice carries ``finish_reason`` (normalized) and
``native_finish_reason: string | null``, "the raw finish_reason string returned by the model"
(its API reference, ``NonStreamingChoice``). Its normalized ``stop`` came beside a native
``MAX_TOKENS`` (Gemini's cut at the output budget) in reVrost/go-openrouter#43: the text was cut.
Gemini's complete native ending is ``STOP`` ("Natural stop point of the model or provided stop
sequence", its ``Candidate.FinishReason``); Anthropic's ``end_turn``; OpenAI's ``stop``.
"""

from __future__ import annotations

import pytest
from shape_replies import _answers, _chat, _draws, _mini

from driftproof.run.providers import make_provider


def _openrouter(native):
    def shape(path, body, text):
        c = _chat(text)
        c["choices"][0]["native_finish_reason"] = native
        return 200, c, {}

    return _answers(shape)


@pytest.mark.parametrize(
    ("native", "said", "kind"),
    [
        ("MAX_TOKENS", "'stop:MAX_TOKENS'", "unknown_ending"),
        ("length", "'stop:length'", "unknown_ending"),
        ("SAFETY", "'stop:SAFETY'", "unknown_ending"),
        (5, "'stop:5'", "unknown_ending"),
        ("tool_calls", "'stop:tool_calls'", "tool_call"),
    ],
)
def test_a_native_ending_that_is_not_complete_loses_the_draw_in_its_own_words(
    loopback, suite_file, tmp_path, native, said, kind
):
    loopback.script.shape = _openrouter(native)
    lane = make_provider("openai", "api", api="chat")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane)
    words = {"unknown_ending": "unknown ending", "tool_call": "tool call with no answer"}[kind]
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == kind
        assert d.lost.reason == (
            f"{words}: the reply ended with {said}, not as a complete final answer"
        )


@pytest.mark.parametrize("native", [None, "stop", "STOP", "COMPLETE", "end_turn", "eos"])
def test_a_complete_native_ending_or_none_is_graded(loopback, suite_file, tmp_path, native):
    loopback.script.shape = _openrouter(native)
    lane = make_provider("openai", "api", api="chat")
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=lane)
    assert [(d.score, d.lost) for d in _draws(r)] == [(0.9, None), (0.5, None)]
