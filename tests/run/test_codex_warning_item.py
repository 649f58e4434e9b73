"""``codex exec --json``: a warning item after the agent's answer (codex's non-fatal error item).

codex-rs/exec's exec_events.rs declares the item type ``error`` "a non-fatal error surfaced as
an item", and its JSONL processor writes every warning (a warning, a config warning, a
deprecation notice, a reroute) as an ``item.completed`` of that type with the turn still
running; its top-level ``error`` event is the unrecoverable one.
"""

from __future__ import annotations

import json

from shape_replies import _draws, _mini, printed_by_fake

ANSWER = {
    "type": "item.completed",
    "item": {"id": "i1", "type": "agent_message", "text": "@ANSWER@"},
}
HEADS_UP = (
    "Heads up: Long conversations and multiple compactions can cause the model to be less accurate."
)
USAGE = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}


def _codex_prints(tmp_path, monkeypatch, *after: dict) -> None:
    events = [
        {"type": "thread.started", "thread_id": "th_1"},
        {"type": "turn.started"},
        ANSWER,
        *after,
        {"type": "turn.completed", "usage": USAGE},
    ]
    lines = "".join(json.dumps(e) + "\n" for e in events)
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", lines)


def test_a_warning_item_after_the_answer_keeps_the_draw(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # Found: the warning item, the last item before turn.completed, made the ending
    # "turn.completed:error", an unknown ending, and the finished answer lost its draw
    warning = {"type": "item.completed", "item": {"id": "i2", "type": "error", "message": HEADS_UP}}
    _codex_prints(tmp_path, monkeypatch, warning)
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)  # the fake judge's grades of each arm
    assert [(e.type, e.subtype) for e in skill.harness_events] == [("item.completed", "error")]


def test_an_error_item_codex_never_writes_as_a_warning_still_loses_the_draw(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # codex writes its warnings as completed items only: a started one is no warning it marks
    started = {"type": "item.started", "item": {"id": "i2", "type": "error", "message": HEADS_UP}}
    _codex_prints(tmp_path, monkeypatch, started)
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "unknown_ending")
        assert d.lost.reason == (
            "unknown ending: the reply ended with 'turn.completed:error', not as a complete "
            "final answer"
        )
