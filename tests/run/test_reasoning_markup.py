"""Reasoning markup other than a leading ``<think>`` block, sent as text, is never graded (D-19).

The markers are the reasoning parsers' own: SGLang's ``KimiDetector`` (``◁think▷`` …
``◁/think▷``, python/sglang/srt/parser/reasoning_parser.py; sgl-project/sglang#7432); vLLM's
Cohere Command parser (``<|START_THINKING|>`` … ``<|END_THINKING|>``,
vllm/reasoning/cohere_command_reasoning_parser.py); vLLM's Granite parser ("Here is my thought
process:" or "Here's my thought process:", then "Here is my response:",
vllm/reasoning/granite_reasoning_parser.py); and gpt-oss's Harmony channels
``<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…`` decoded
with the special tokens skipped, which leaves ``analysis…assistantfinal…`` (oobabooga/textgen#7374
quotes ``"analysisUser says \\"Hello World!\\" Probably greeting. Should respond
politely.assistantfinalHello! 👋 How can I help you today?"``; sgl-project/sglang#9244). A block
left open holds no answer either. The same text is read alike on the command-line lanes.
"""

from __future__ import annotations

import json

import pytest
from shape_replies import _answers, _chat, _draws, _mini, claude_result, printed_by_fake

from driftproof.run.providers import make_provider

_THOUGHT = "The user wants a commit message."  # 32 characters
_WHY = (
    " (the model's reasoning markup sent as text: the server parsed no reasoning); reasoning is "
    "never graded"
)

SHAPES = [
    (f"\u25c1think\u25b7{_THOUGHT}\u25c1/think\u25b7{{}}", "\u25c1think\u25b7"),
    (f"\u25c1think\u25b7{_THOUGHT} First the subject, then", "\u25c1think\u25b7"),  # left open
    (
        f"<|START_THINKING|>{_THOUGHT}<|END_THINKING|><|START_RESPONSE|>{{}}<|END_RESPONSE|>",
        "<|START_THINKING|>",
    ),
    (f"<|START_THINKING|>{_THOUGHT} First the subject", "<|START_THINKING|>"),
    (
        f"Here is my thought process:\n{_THOUGHT}\n\nHere is my response:\n{{}}",
        "Here is my thought process:",
    ),
    (f"Here's my thought process:\n{_THOUGHT} First the", "Here's my thought process:"),
    (f"analysis{_THOUGHT} Let's draft.assistantfinal{{}}", "analysis…"),
    (f"analysis{_THOUGHT} First the subject", "analysis…"),  # its final channel never reached
]


def _compatible():
    return make_provider("openai", "api", api="chat")


@pytest.mark.parametrize(("said", "tag"), SHAPES)
def test_reasoning_markup_sent_as_text_is_never_graded(loopback, suite_file, tmp_path, said, tag):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(said.format(t)), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "reasoning_mixed"
        assert d.lost.reason == (
            f"reasoning mixed into the answer: {tag} at character 0 of the answer{_WHY}"
        )


def test_an_answer_that_only_mentions_such_words_is_graded(loopback, suite_file, tmp_path):
    # plain words, not markup: "analysis" opening a reply with no "assistantfinal" after it, and
    # Granite's phrases anywhere but at its start
    lead = (
        "analysis of the failure: the client gave up on 429. Here is my thought process: retry "
        "after the Retry-After header. Here is my response:\n"
    )
    code = 'analysis, final = raw.split("assistantfinal", 1)\nprint(final)\n'  # a real answer
    for text in (lead, code):
        loopback.script.shape = _answers(lambda p, b, t, text=text: (200, _chat(text + t), {}))
        r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_compatible())
        assert [(d.score, d.lost) for d in _draws(r)] == [(0.9, None), (0.5, None)]


def test_kimi_markup_is_never_graded_on_the_claude_cli_lane(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    said = f"\u25c1think\u25b7{_THOUGHT}\u25c1/think\u25b7@ANSWER@"
    printed_by_fake(tmp_path, monkeypatch, "out.json", json.dumps(claude_result(result=said)))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "reasoning_mixed"
        assert d.lost.reason == (
            f"reasoning mixed into the answer: \u25c1think\u25b7 at character 0 of the answer{_WHY}"
        )
