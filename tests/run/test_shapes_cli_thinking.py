"""Reasoning a harness never shows is never counted as answer tokens (D-19).

Claude Code thinks by default on some models ("Sonnet 4.5 and Opus 4.5 have thinking enabled by
default", its common-workflows page) and ``claude -p --output-format json`` reports the session's
``usage.output_tokens``, thinking tokens billed in it, with no thinking text and no thinking
count: how much of the output is the answer's cannot be told. ``codex exec --json`` likewise: its
``turn.completed`` usage is ``input_tokens``, ``cached_input_tokens`` and ``output_tokens``
(codex-rs/exec exec_events.rs), reasoning billed in the output (openai/codex#5276: 1,590 output
tokens, 1,152 of them reasoning, in its session file only), and a ``reasoning`` item is a summary
that may not come. The envelopes are printed by the fake executables (``FAKE_STDOUT``, see
test_shapes_endings_cli).
"""

from __future__ import annotations

import json

from shape_replies import _draws, _mini, claude_result, printed_by_fake


def test_claude_output_tokens_are_never_read_as_the_answers_alone(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(claude_result()))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert d.score is not None and d.lost is None  # graded: a finished answer
        assert d.reasoning is None  # none shown
        # the session's 1,544 output tokens are kept; their answer part is unknown
        assert (d.tokens.output, d.tokens.reasoning_output, d.tokens.answer_output) == (
            1544,
            None,
            None,
        )


def test_codex_output_tokens_with_no_reasoning_count_are_never_read_as_the_answers_alone(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    usage = {"input_tokens": 26549, "cached_input_tokens": 22272, "output_tokens": 1590}
    events = [
        {"type": "thread.started", "thread_id": "th_1"},
        {"type": "turn.started"},
        {
            "type": "item.completed",
            "item": {"id": "i1", "type": "agent_message", "text": "@ANSWER@"},
        },
        {"type": "turn.completed", "usage": usage},
    ]
    text = "".join(json.dumps(e) + "\n" for e in events)
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", text)
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert d.score is not None and d.lost is None and d.reasoning is None
        assert (d.tokens.output, d.tokens.reasoning_output, d.tokens.answer_output) == (
            1590,
            None,
            None,
        )
