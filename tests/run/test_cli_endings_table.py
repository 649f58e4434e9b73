"""The command-line lanes' rows of the endings table (D-19) not driven elsewhere, end to end: the
fake ``claude`` / ``codex`` on PATH prints the shape, the run grades or loses each draw.

``claude -p --output-format json`` results: ``stop_reason`` is the final assistant message's, one
of the Messages API's (https://platform.claude.com/docs/en/agent-sdk/stop-reasons: end_turn,
max_tokens, stop_sequence, refusal, tool_use, null; error results such as ``error_max_turns`` and
``error_max_budget_usd`` carry it too); ``terminal_reason`` says why the query loop ended
("completed", "max_turns", "aborted_streaming", … : anthropics/claude-agent-sdk-python v0.2.126,
``ResultMessage.terminal_reason``). ``codex exec --json`` items follow codex-rs/exec's
exec_events.rs (openai/codex): ``file_change`` {id, changes, status}, ``mcp_tool_call`` {id,
server, tool, status}, ``web_search`` {id, query}, ``collab_tool_call``, ``todo_list`` {id, items},
sent as ``item.started`` / ``item.updated`` / ``item.completed``.
"""

from __future__ import annotations

import json

import pytest
from shape_replies import _draws, _mini, claude_result, printed_by_fake

_SAID = "{}: the reply ended with '{}', not as a complete final answer"


def test_claude_success_on_a_stop_sequence_is_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    env = claude_result(stop_reason="stop_sequence")
    printed_by_fake(tmp_path, monkeypatch, "c.json", json.dumps(env))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    assert [(d.score, d.lost) for d in _draws(r)] == [(0.9, None), (0.5, None)]


@pytest.mark.parametrize(
    ("over", "kind", "ending"),
    [
        ({"stop_reason": "refusal"}, "refusal", "success:refusal"),
        ({"stop_reason": "model_context_window_exceeded"}, "context_window",
         "success:model_context_window_exceeded"),
        ({"stop_reason": "tool_use"}, "tool_call", "success:tool_use"),
        ({"stop_reason": "tool_use", "terminal_reason": "max_turns"}, "tool_call",
         "terminal_reason:max_turns"),
        ({"subtype": "error_max_budget_usd", "is_error": True, "result": None}, "unknown_ending",
         "error_max_budget_usd"),
    ],
    ids=["refusal", "context_window", "tool_use", "max_turns", "error_max_budget_usd"],
)  # fmt: skip
def test_claude_result_ends_as_the_table_says(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, over, kind, ending
):
    printed_by_fake(tmp_path, monkeypatch, "c.json", json.dumps(claude_result(**over)))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    words = {"context_window": "context window", "tool_call": "tool call with no answer",
             "unknown_ending": "unknown ending"}.get(kind, kind)  # fmt: skip
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], kind)
        assert d.lost.reason == _SAID.format(words, ending)


_ANSWER = {"type": "item.completed", "item": {"id": "i1", "type": "agent_message",
                                               "text": "@ANSWER@"}}  # fmt: skip
_ITEMS = {
    "file_change": {"changes": [{"path": "src/http.py", "kind": "update"}], "status": "completed"},
    "mcp_tool_call": {"server": "docs", "tool": "search", "status": "completed"},
    "collab_tool_call": {"status": "completed"},
    "web_search": {"query": "HTTP 429 Retry-After"},
    "todo_list": {"items": [{"text": "Read the diff", "completed": False}]},
}


@pytest.mark.parametrize("kind", list(_ITEMS))
def test_codex_item_after_the_answer_is_a_tool_call_with_no_answer(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, kind
):
    # a to-do list updated after the answer: the turn's plan went on (its closing completion
    # alone leaves the answer final: test_shapes_endings_cli.py)
    event = "item.updated" if kind == "todo_list" else "item.completed"
    item = {"type": event, "item": {"id": "i2", "type": kind, **_ITEMS[kind]}}
    usage = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}
    events = [{"type": "turn.started"}, _ANSWER, item, {"type": "turn.completed", "usage": usage}]
    printed_by_fake(tmp_path, monkeypatch, "x.jsonl", "".join(json.dumps(e) + "\n" for e in events))
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], "tool_call")
        assert d.lost.reason == _SAID.format("tool call with no answer", f"turn.completed:{kind}")


@pytest.mark.parametrize("stop", ["end_turn", "tool_use", "refusal"])
def test_a_claude_judges_grade_ends_as_the_tables_judge_row_says(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, stop
):
    # a judge on claude -p (the library's lane; run's judge is an API lane): its grade comes back
    # as the result's structured_output, the final message a call of its output tool (tool_use)
    from driftproof.run.providers import make_provider

    grade = {"score": 0.7, "reason": "graded"}
    env = claude_result(stop_reason=stop, structured_output=grade)
    printed_by_fake(tmp_path, monkeypatch, "c.json", json.dumps(env))
    r, _ = _mini(tmp_path, suite_file, judge_lane=make_provider("anthropic", "cli"))
    for d in _draws(r):
        got = [(s.score, s.invalid_reason) for s in d.judge_samples]
        if stop == "refusal":
            assert d.score is None and got == [(None, "the judge's " + _SAID.format(
                "refusal", "success:refusal"))]  # fmt: skip
        else:
            assert d.score == 0.7 and got == [(0.7, None)]
