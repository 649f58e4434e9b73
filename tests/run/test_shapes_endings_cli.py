"""Recorded reply shapes of issue 33 on the CLI lanes (D-19), printed by the fake ``claude`` and
``codex`` executables (``FAKE_STDOUT``: the file printed as it is, ``@ANSWER@`` the scripted
answer), each with its receipt outcome asserted.

``claude -p --output-format json`` result envelopes follow Claude Code's SDK result message:
``subtype`` ``success`` | ``error_max_turns`` | ``error_during_execution`` |
``error_max_budget_usd``, ``is_error``, ``stop_reason``, ``usage``, ``total_cost_usd``. ``codex
exec --json`` events follow its JSONL stream: ``thread.started``, ``turn.started``,
``item.started`` / ``item.completed`` (``agent_message``, ``reasoning``, ``command_execution``,
``todo_list``, as codex-rs/exec's exec_events.rs gives them), ``turn.completed`` with ``usage``,
``turn.failed``, and the top-level ``error`` event it prints while it reconnects ("Reconnecting...
1/5").
"""

from __future__ import annotations

import json

import pytest
from shape_replies import _draws, _mini, printed_by_fake
from shape_replies import claude_result as _envelope


def _claude(tmp_path, monkeypatch, envelope: dict, *, code: int = 0) -> None:
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(envelope), code=code)


def test_claude_error_max_turns_is_a_tool_call_with_its_usage_kept(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    _claude(
        tmp_path,
        monkeypatch,
        _envelope(subtype="error_max_turns", is_error=True, result=None, stop_reason="tool_use"),
    )
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "tool_call"
        assert (d.tokens.input, d.tokens.output) == (900, 1544)
        assert d.attempts == []  # a finished session: never retried


def test_claude_result_that_does_not_say_success_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # a result whose subtype is missing (or no text): it never says the session succeeded
    env = _envelope()
    del env["subtype"]
    _claude(tmp_path, monkeypatch, env)
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert d.score is None and d.judge_samples == [] and d.lost.kind == "unknown_ending"
        assert d.lost.reason == (
            "unknown ending: the reply ended with no ending, not as a complete final answer"
        )


@pytest.mark.parametrize(
    ("given", "said"), [(["claude-haiku-4-5"], "an array"), ("claude-haiku-4-5", "a string"),
                        (None, "null")],
)  # fmt: skip
def test_claude_model_usage_that_is_not_an_object_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, given, said
):
    # an absent modelUsage is graded unchecked (the envelopes above); one given in another shape
    # names no model the answer can be checked against
    _claude(tmp_path, monkeypatch, _envelope(modelUsage=given))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, d.judge_samples) == (
            None, "error", "fatal", [],
        )  # fmt: skip
        assert len(d.attempts) == 1 and d.lost.reason == (
            f"claude's modelUsage is {said}, not an object naming the models used: which model "
            "answered cannot be checked, so there is nothing to grade; not retryable, 1 attempt"
        )
        assert (d.tokens.input, d.tokens.output) == (900, 1544)


def test_claude_success_cut_by_max_tokens_is_the_output_budget(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    _claude(tmp_path, monkeypatch, _envelope(stop_reason="max_tokens"))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert d.lost.kind == "truncated" and d.stop_reason == "max_tokens"
        assert "stop reason success:max_tokens" in d.lost.reason


def test_claude_success_with_an_unknown_stop_reason_is_lost_quoting_it(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    _claude(tmp_path, monkeypatch, _envelope(stop_reason="pause_turn"))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert d.lost.kind == "paused_turn" and "'success:pause_turn'" in d.lost.reason


@pytest.mark.parametrize(("given", "said"), [(None, "null"), (7, "7"), ({}, "{}")])
def test_claude_success_whose_stop_reason_is_no_text_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, given, said
):
    """Claude's Agent SDK documents a result's stop reason as the final assistant message's, and
    null as "no API response was received; for example, an error occurred before the first
    request, or the result was replayed from a cached session"
    (https://platform.claude.com/docs/en/agent-sdk/stop-reasons). A published ``claude -p
    --output-format json`` transcript shows one: subtype success, ``"stop_reason": null``, zero
    tokens, ``modelUsage: {}`` and the result "Unknown skill: …", Claude Code's own words, no
    model's. Found: read as a result with no stop reason (an older claude -p prints none) and
    graded as a complete answer."""
    _claude(tmp_path, monkeypatch, _envelope(stop_reason=given))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.judge_samples) == (None, "unknown_ending", [])
        assert d.lost.reason == (
            f"unknown ending: the reply ended with 'success:{said}', not as a complete final answer"
        )


@pytest.mark.parametrize(
    ("over", "kind", "why"),
    [  # success results whose session did not complete (Claude Code's terminal_reason)
        ({"terminal_reason": "prompt_too_long", "stop_reason": "stop_sequence"}, "context_window",
         "context window: the reply ended with 'terminal_reason:prompt_too_long', not as a "
         "complete final answer"),
        ({"terminal_reason": "aborted_streaming", "stop_reason": None}, "unknown_ending",
         "unknown ending: the reply ended with 'terminal_reason:aborted_streaming', not as a "
         "complete final answer"),
        ({"terminal_reason": "model_error", "stop_reason": None,
          "result": "API Error: Connection error."}, "error",
         "claude reported an error (success, terminal reason model_error): API Error: "
         "Connection error.; transient, 3 attempts, retried after 0.01 s and 0.02 s"),
        ({"api_error_status": 429, "result": "API Error: Rate limit reached"}, "error",
         "claude reported an error (success, status 429): API Error: Rate limit reached; "
         "transient, 3 attempts, retried after 0.01 s and 0.02 s"),
        ({"subtype": "error_during_execution", "is_error": True, "result": None,
          "errors": ["Tool crashed", 7]}, "error",
         "claude reported an error (error_during_execution): Tool crashed; transient, "
         "3 attempts, retried after 0.01 s and 0.02 s"),
    ],
)  # fmt: skip
def test_claude_success_whose_session_did_not_complete_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, over, kind, why
):
    # Found: a success result was read by its subtype and stop reason only, so a session that
    # ended on "Prompt is too long", a model error or a rate limit had that text graded
    _claude(tmp_path, monkeypatch, _envelope(**over))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.judge_samples) == (None, kind, [])
        assert d.lost.reason == why and d.tokens.input == 900


def test_claude_result_whose_session_completed_is_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    done = {"terminal_reason": "completed", "api_error_status": None, "permission_denials": []}
    _claude(tmp_path, monkeypatch, _envelope(**done))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    assert [d.score for d in _draws(r)] == [0.9, 0.5]


def test_claude_overloaded_envelope_keeps_its_usage_on_the_lost_draw(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    said = (
        'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    )
    _claude(
        tmp_path,
        monkeypatch,
        _envelope(is_error=True, result=said, usage={"input_tokens": 700, "output_tokens": 12}),
        code=1,
    )
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert d.lost.kind == "error" and d.lost.error_class == "transient" and d.lost.status == 529
        assert (d.tokens.input, d.tokens.output) == (700, 12)


def test_claude_result_with_a_think_block_grades_the_answer_only(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    _claude(tmp_path, monkeypatch, _envelope(result="<think>sorry, planning</think>\n@ANSWER@"))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.reasoning.chars == len("sorry, planning")


def _codex(tmp_path, monkeypatch, events: list[dict], *, code: int = 0) -> None:
    lines = "".join(json.dumps(e) + "\n" for e in events)
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", lines, code=code)


RECONNECT = {
    "type": "error",
    "message": "Reconnecting... 1/5 (stream disconnected before completion: error sending "
    "request for url (https://api.openai.com/v1/responses))",
}
ANSWER_ITEM = {"id": "i1", "type": "agent_message", "text": "@ANSWER@"}
USAGE = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}


def test_codex_reconnect_error_then_a_completed_turn_is_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    _codex(
        tmp_path,
        monkeypatch,
        [
            {"type": "thread.started", "thread_id": "th_1"},
            {"type": "turn.started"},
            RECONNECT,
            {"type": "item.completed", "item": {"id": "i0", "type": "reasoning", "text": "hm"}},
            {"type": "item.completed", "item": ANSWER_ITEM},
            {"type": "turn.completed", "usage": USAGE},
        ],
    )  # fmt: skip
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert [(e.type, e.subtype) for e in skill.harness_events] == [("error", None)]
    assert skill.reasoning.chars == 2 and skill.tokens.input == 1200


def test_codex_reconnect_errors_with_no_completed_turn_fail_the_call(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    _codex(
        tmp_path,
        monkeypatch,
        [{"type": "thread.started", "thread_id": "th_1"}, {"type": "turn.started"}, RECONNECT],
        code=1,
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert d.lost.kind == "error"
        assert d.lost.reason.startswith(
            "codex reported no completed turn; its last error: Reconnecting... 1/5"
        )


def test_codex_error_after_a_completed_turn_is_not_a_failure(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    _codex(
        tmp_path,
        monkeypatch,
        [
            {"type": "turn.started"},
            {"type": "item.completed", "item": ANSWER_ITEM},
            {"type": "turn.completed", "usage": USAGE},
            RECONNECT,
        ],
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    assert [d.score for d in _draws(r)] == [0.9, 0.5]


def test_codex_failed_turn_then_a_completed_turn_is_not_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # codex-rs/exec ends a turn with turn.completed or turn.failed, never both: a failed turn
    # is no complete final answer whatever follows it
    failed = {"type": "turn.failed", "error": {"message": "stream disconnected before completion"}}
    _codex(
        tmp_path,
        monkeypatch,
        [{"type": "turn.started"}, {"type": "item.completed", "item": ANSWER_ITEM}, failed,
         {"type": "turn.completed", "usage": USAGE}],
    )  # fmt: skip
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.judge_samples) == (None, "error", [])
        assert d.lost.reason == (
            "codex reported an error: stream disconnected before completion; transient, "
            "3 attempts, retried after 0.01 s and 0.02 s"
        )


def test_codex_agent_message_with_a_think_block_grades_the_answer_only(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    item = {**ANSWER_ITEM, "text": "<think>sorry</think>@ANSWER@"}
    _codex(
        tmp_path,
        monkeypatch,
        [{"type": "item.completed", "item": item}, {"type": "turn.completed", "usage": USAGE}],
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5) and skill.reasoning.chars == len("sorry")


RUN = {
    "id": "i2",
    "type": "command_execution",
    "command": "bash -lc 'git log -1'",
    "aggregated_output": "",
    "exit_code": None,
    "status": "in_progress",
}
DONE = {**RUN, "aggregated_output": "commit 1a2b\n", "exit_code": 0, "status": "completed"}
PLAN = {"id": "i0", "type": "todo_list", "items": [{"text": "Read the diff", "completed": True}]}
SAID = "the reply ended with 'turn.completed:{}', not as a complete final answer"


def _turn(*items: dict) -> list[dict]:
    """A completed turn: ``turn.started``, the events ``items``, ``turn.completed`` with usage."""
    return [{"type": "turn.started"}, *items, {"type": "turn.completed", "usage": USAGE}]


@pytest.mark.parametrize(
    ("after", "kind", "why"),
    [
        ([{"type": "item.started", "item": RUN}, {"type": "item.completed", "item": DONE}],
         "tool_call", "tool call with no answer: " + SAID.format("command_execution")),
        ([{"type": "item.completed", "item": {"id": "i3", "type": "reasoning", "text": "hm"}}],
         "unknown_ending", "unknown ending: " + SAID.format("reasoning")),
    ],
)  # fmt: skip
def test_codex_answer_followed_by_another_item_is_no_final_answer(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, after, kind, why
):
    _codex(tmp_path, monkeypatch, _turn({"type": "item.completed", "item": ANSWER_ITEM}, *after))
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.reason) == (None, kind, why)
        assert d.judge_samples == [] and d.tokens.input == 1200


@pytest.mark.parametrize(
    ("out", "why"),
    [  # Found: both said only "...: " with nothing after it (stderr was empty)
        (json.dumps({"type": "turn.started"}) + '\n{"type": "turn.compl',
         "codex reported no completed turn; its last error: none (exit status 0; its output "
         "ends in a line that is no JSON event: '{\"type\": \"turn.compl')"),
        ("".join(json.dumps(e) + "\n" for e in _turn({"type": "item.completed", "item": {
            "id": "i0", "type": "reasoning", "text": "hm"}})),
         "codex exited with status 0, its turn completed with no agent message before its "
         "completion (its last item: reasoning)"),
    ],
)  # fmt: skip
def test_codex_stream_cut_or_turn_with_no_message_says_what_it_held(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, out, why
):
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", out)
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.judge_samples) == (None, "error", [])
        assert d.lost.reason == why + "; transient, 3 attempts, retried after 0.01 s and 0.02 s"


def test_codex_todo_list_completed_as_the_turn_ends_leaves_the_answer_final(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # codex completes its running to-do list when the turn completes, after the last message
    events = _turn(
        {"type": "item.started", "item": PLAN},
        {"type": "item.completed", "item": ANSWER_ITEM},
        {"type": "item.completed", "item": PLAN},
    )
    _codex(tmp_path, monkeypatch, events)
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    assert [d.score for d in _draws(r)] == [0.9, 0.5]


@pytest.mark.parametrize(
    ("model", "served", "handoff"),
    [
        ("claude-sonnet-4", "claude-sonnet-4-5-20250929", True),  # another model: not ours
        ("claude-sonnet-4", "claude-sonnet-4-20250514", False),  # its dated snapshot
        ("claude-opus-4-6", "claude-opus-4-6[1m]", False),  # its 1M-token context tag
        ("sonnet", "claude-sonnet-4-5-20250929", False),  # Claude Code's alias
        ("haiku", "not-a-haiku-but-sonnet", True),  # no Claude id of the haiku family
    ],
)
def test_claude_model_usage_names_the_requested_model_or_hands_off(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, model, served, handoff
):
    monkeypatch.setenv("FAKE_SERVED", served)
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli", model=model)
    draws = r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws
    if handoff:
        assert len(draws) == 1 and (draws[0].lost.kind, draws[0].lost.reason) == (
            "handoff",
            f"another model gave the answer: {served} (100 input, 20 output tokens); the run stops",
        )
    else:
        assert [d.score for d in draws] == [0.9, 0.5]


@pytest.mark.parametrize(
    ("to", "stops"),
    [("gpt-5-mini", True), ("gpt-5-2025-08-07", False)],  # another model; gpt-5's dated snapshot
)
@pytest.mark.parametrize("said", ["model rerouted: gpt-5 -> {}", " Model rerouted: gpt-5 -> {}"])
def test_codex_turn_rerouted_to_another_model_stops_the_run(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, to, stops, said
):
    # codex-rs/exec writes a server's reroute as an error item and goes on with the turn; a
    # message worded with a capital or a leading space is read the same (fail closed)
    said = said.format(to) + " (HighRiskCyberActivity)"
    moved = {"type": "item.completed", "item": {"id": "i0", "type": "error", "message": said}}
    _codex(tmp_path, monkeypatch, _turn(moved, {"type": "item.completed", "item": ANSWER_ITEM}))
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    draws = r.cases[0].arms.with_skill.draws + r.cases[0].arms.baseline.draws
    if stops:
        assert len(draws) == 1 and (draws[0].lost.kind, draws[0].lost.reason) == (
            "handoff",
            "another model gave the answer: codex moved the turn from gpt-5 to gpt-5-mini; "
            "the run stops",
        )
    else:
        assert [d.score for d in draws] == [0.9, 0.5]


@pytest.mark.parametrize("lane", ["claude", "codex"])
def test_a_finished_answer_from_a_harness_exiting_with_a_failure_is_not_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, lane
):
    # Found: the exit status was never read once a success envelope or a completed turn was
    # printed, so a harness exiting 1 (or killed: 137) after its answer was graded
    if lane == "claude":
        _claude(tmp_path, monkeypatch, _envelope(), code=137)
    else:
        done = {"type": "turn.completed", "usage": USAGE}
        _codex(
            tmp_path, monkeypatch, [{"type": "item.completed", "item": ANSWER_ITEM}, done], code=1
        )
    r, _ = _mini(
        tmp_path, suite_file, *(("anthropic", "cli") if lane == "claude" else ("openai", "cli"))
    )
    status = 137 if lane == "claude" else 1
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, d.judge_samples) == (
            None,
            "error",
            "transient",
            [],
        )
        assert d.lost.reason == (
            f"{lane} exited with status {status} after it reported a finished answer; "
            "transient, 3 attempts, retried after 0.01 s and 0.02 s"
        )
        assert d.tokens.input == (900 if lane == "claude" else 1200)  # its usage kept
