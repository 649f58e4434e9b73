"""A CLI harness's answer is graded only from its one last word (D-19): ``claude -p`` printing
two result objects, or an event after its result; a ``codex exec`` turn started after the one
that completed. The shapes are printed by the fake executables (``FAKE_STDOUT``, see
test_shapes_endings_cli)."""

from __future__ import annotations

import json

import pytest
from shape_replies import _draws, _mini, printed_by_fake
from shape_replies import claude_result as _result

from driftproof.errors import ProviderError

ERROR = _result(subtype="error_during_execution", is_error=True, result="API Error: 529 Overloaded")
TURN = {"type": "assistant", "message": {"content": [{"type": "text", "text": "more"}]}}
TWO = "claude printed 2 result objects; which one ends the session cannot be told"
AFTER = "claude printed 1 event after its result (assistant first): the result is not the "
AFTER += "session's last word"


@pytest.mark.parametrize(
    ("printed", "why"),
    [
        (
            json.dumps([ERROR, _result()]),
            TWO,
        ),  # an error, then a success: the success was graded
        (json.dumps([_result(result="another answer"), _result()]), TWO),
        (
            json.dumps(_result()) + "\n" + json.dumps(_result()) + "\n",
            TWO,
        ),  # JSON lines
        (json.dumps([{"type": "system", "subtype": "init"}, _result(), TURN]), AFTER),
        (json.dumps(_result()) + "\n" + json.dumps(TURN) + "\n", AFTER),
    ],
)
def test_claude_printing_no_one_last_result_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, printed, why
):
    # Found: the last result object was read whatever came before or after it, so an error
    # result followed by a success one was graded, as was a result followed by another turn
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", printed)
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, d.judge_samples) == (
            None, "error", "transient", [],
        )  # fmt: skip
        assert d.lost.reason == f"{why}; transient, 3 attempts, retried after 0.01 s and 0.02 s"
        assert (d.tokens.input, d.tokens.output) == (900, 1544)  # the last result's usage


@pytest.mark.parametrize(
    ("printed", "stray"),
    [
        # a wrapper's banner before the result
        ("Now using node v20.11.0 (npm v10.2.4)\n" + json.dumps(_result()) + "\n",
         "Now using node v20.11.0 (npm v10.2.4)"),
        # a line that may be the answer's own last line, after an init event and the result
        (
            json.dumps({"type": "system", "subtype": "init"}) + "\n" + json.dumps(_result())
            + "\n42\n",
            "42",
        ),
    ],
)  # fmt: skip
def test_claude_lines_that_are_no_event_beside_one_result_stop_the_run(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, printed, stray
):
    # Found: a line that is no JSON event beside the one result was skipped and the result
    # graded, though the line may be part of the answer or report a fault. What prints it (a
    # shell start-up file, a wrapper) prints it at every call: the run stops at the first, so
    # no further draw is paid for and lost alike
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", printed)
    with pytest.raises(ProviderError) as info:
        _mini(tmp_path, suite_file, "anthropic", "cli")
    assert str(info.value).startswith(
        f"the run stopped: claude printed a line that is not part of its JSON output: {stray!r}; "
        "whether it belongs to the answer or reports a fault cannot be told, so there is nothing "
        "to grade; stop what prints it beside claude's output; 0 finished draws are kept in "
    ), str(info.value)


def test_claude_notice_of_a_config_file_parallel_runs_broke_is_retried_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # Claude Code's own words when claude processes running at once broke ~/.claude.json
    # (anthropics/claude-code#12007, #15608): a race of the moment, retried; printed at every
    # attempt here, so the draw is lost after three, and the run goes on
    said = "Config file corrupted, resetting to defaults: JSON Parse error: Unexpected EOF"
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", said + "\n" + json.dumps(_result()))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.error_class, len(d.attempts), d.judge_samples) == (
            None, "transient", 3, [],
        )  # fmt: skip
        assert d.lost.reason.startswith(
            f"claude printed a line that is not part of its JSON output: {said!r}; "
        ), d.lost.reason


def test_codex_answer_of_a_turn_that_never_completed_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # Found: a turn.completed anywhere made the last agent message the answer, even one of a
    # turn started after it that never completed
    usage = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", _two_turns(usage, None))
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, d.judge_samples) == (
            None, "error", "transient", [],
        )  # fmt: skip
        assert d.lost.reason == (
            "codex reported no completed turn; its last error: another turn started after one "
            "completed, and it did not complete; transient, 3 attempts, retried after 0.01 s and "
            "0.02 s"
        )


def test_codex_counts_the_sessions_usage_once_not_each_turns_running_total(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # codex exec prints at each turn.completed the thread's total token usage so far
    # (codex-rs/exec event_processor_with_jsonl_output.rs, usage_from_last_total: usage.total),
    # so the second turn's 2,500 input tokens already hold the first's 1,200: the session used
    # 2,500 in, 70 out, 2,200 cached. Adding the turns read 3,700, 100 and 3,200.
    u1 = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}
    u2 = {"input_tokens": 2500, "cached_input_tokens": 2200, "output_tokens": 70}
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", _two_turns(u1, u2))
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert d.score is not None and d.lost is None
        assert (d.tokens.input, d.tokens.output, d.tokens.cache_read_input) == (2500, 70, 2200)


def _two_turns(first: dict[str, int], second: dict[str, int] | None) -> str:
    """codex's JSON lines of two turns: the first completes with usage ``first`` and the
    message "x"; the second answers and completes with usage ``second`` (``None``: never)."""
    msg = {"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": "x"}}
    answer = {
        "type": "item.completed",
        "item": {"id": "i2", "type": "agent_message", "text": "@ANSWER@"},
    }
    events = [
        {"type": "thread.started", "thread_id": "t"},
        *({"type": "turn.started"}, msg, {"type": "turn.completed", "usage": first}),
        *({"type": "turn.started"}, answer),
        *([{"type": "turn.completed", "usage": second}] if second is not None else []),
    ]
    return "".join(json.dumps(e) + "\n" for e in events)


def test_codex_line_that_is_no_event_beside_a_completed_turn_stops_the_run(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # Found: a line that is no JSON event was skipped and the completed turn graded. codex's own
    # words on stderr, "Reading prompt from stdin..." (openai/codex#36804 quotes its sibling),
    # reach stdout through a wrapper that merges the two, at every call: the run stops
    usage = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}
    events = _two_turns(usage, usage).splitlines(keepends=True)
    printed = "Reading prompt from stdin...\n" + "".join(events[:1] + events[4:])  # one turn
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", printed)
    with pytest.raises(ProviderError) as info:
        _mini(tmp_path, suite_file, "openai", "cli")
    assert str(info.value).startswith(
        "the run stopped: codex printed a line that is not part of its JSON output: 'Reading "
        "prompt from stdin...'; whether it belongs to the answer or reports a fault cannot be "
        "told, so there is nothing to grade; stop what prints it beside codex's output; 0 "
        "finished draws are kept in "
    ), str(info.value)


def test_codex_agent_message_after_the_turn_completed_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # Found: an agent message printed after turn.completed, with no turn started, replaced the
    # completed turn's answer and was graded, though no completion came after it. codex ends
    # its events at the turn's completion (codex-rs/exec event_processor_with_jsonl_output.rs:
    # turn.completed, then it shuts down): such a message is no answer of a completed turn
    usage = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}
    events = _two_turns(usage, usage).splitlines(keepends=True)
    # thread.started, turn.started, "x", turn.completed, then the second turn's answer alone
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", "".join(events[:4] + events[5:6]))
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], "unknown_ending")
        assert d.lost.reason == (
            "unknown ending: the reply ended with 'turn.completed:agent_message', not as a "
            "complete final answer"
        )


def test_codex_agent_message_only_after_the_turn_completed_is_not_said_to_be_none(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # Found: the only agent message came after turn.completed, and the lost draw read "its turn
    # completed with no agent message (its last item: agent_message)", a contradiction
    usage = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30}
    events = _two_turns(usage, usage).splitlines(keepends=True)
    # thread.started, turn.started, turn.completed, then the first turn's message "x"
    printed_by_fake(tmp_path, monkeypatch, "codex-out.jsonl", "".join(events[:2] + events[3:1:-1]))
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.judge_samples) == (None, "error", [])
        assert d.lost.reason == (
            "codex exited with status 0, its turn completed with no agent message before its "
            "completion (its last item: agent_message); transient, 3 attempts, retried after "
            "0.01 s and 0.02 s"
        )
