"""``claude -p`` puts only the session's last assistant message in ``result``: after a tool call
that can be a closing line, the answer written before the call (monarch-initiative/
deep-research-client#60: ``num_turns`` 2, ``result`` "done", the essay lost; razzant/claudexor#307,
openclaw/openclaw#115890), or a first fragment of the answer (anthropics/claude-code#78686). The
lane asks for ``--verbose``, which makes ``--output-format json`` print every message of the
session, the result last (anthropics/claude-code#84784); a text answer is graded only when its
result is the whole of the last message and holds every text an earlier message wrote (D-19).
Assistant events follow ``stream-json``: one per content block, a message's blocks sharing its
``message.id``. Printed by the fake executable (``FAKE_STDOUT``, see test_shapes_endings_cli)."""

from __future__ import annotations

import json

import pytest
from shape_replies import _draws, _mini, printed_by_fake
from shape_replies import claude_result as _result

from driftproof.errors import ProviderError

INIT = {"type": "system", "subtype": "init", "session_id": "s", "tools": ["Read", "WebSearch"]}
#: the 1,411-character essay written before the search (12 + 55 × 25 + 24 characters)
ESSAY = "## Findings\n" + "Retry-After is honoured. " * 55 + "Retry-After is honoured."
FULL = "fix(http): retry 429 responses\n\nRetry-After is honoured."
#: the essay quoted as JSON, cut to 80 characters: the quote, 13 of the heading, 2 × 25, 16 more
ESSAY_SAID = (
    "claude's session wrote \"## Findings\\nRetry-After is honoured. Retry-After is honoured. "
    'Retry-After is h… in an earlier message, which its result ("done") does not hold'
)
NOTHING = ": whether it is the whole answer cannot be told, so there is nothing to grade"
#: what the reader can do about a session that writes before calling a tool, in plain words
WRITES_FIRST = (
    "; the claude lane grades the session's last message, so a session that writes text before "
    "calling a tool cannot be graded in text capture"
)


def _said(mid: str, *blocks: dict) -> list[dict]:
    """One assistant message as ``--verbose`` prints it: an event per content block."""
    return [
        {
            "type": "assistant",
            "message": {"id": mid, "type": "message", "role": "assistant", "content": [b]},
            "parent_tool_use_id": None,
            "session_id": "s",
        }
        for b in blocks
    ]


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def _tool(name: str) -> list[dict]:
    """A ``tool_use`` block and the user event carrying its result."""
    use = {"type": "tool_use", "id": "toolu_01", "name": name, "input": {"query": "429"}}
    done = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "8 results"}
    user = {"type": "user", "message": {"role": "user", "content": [done]}, "session_id": "s"}
    return [use, user]


USE, USER = _tool("WebSearch")
CLOSER = [
    INIT,
    *_said("msg_01", _text(ESSAY), USE),
    USER,
    *_said("msg_02", _text("done")),
    _result(num_turns=2, result="done"),
]
FIRST_CHUNK = [INIT, *_said("msg_01", _text(FULL)), _result(result="fix(http): retry 429 res")]


@pytest.mark.parametrize(
    ("printed", "why"),
    [
        (
            json.dumps(CLOSER),
            ESSAY_SAID + NOTHING + WRITES_FIRST,
        ),
        (
            json.dumps(FIRST_CHUNK),
            "claude's result (\"fix(http): retry 429 res\") is not the whole text of the session's "
            'last message ("fix(http): retry 429 responses\\n\\nRetry-After is honoured.")'
            + NOTHING,
        ),
        (  # JSON lines as stream-json prints them: the same session, the same reading
            "".join(json.dumps(e) + "\n" for e in CLOSER),
            ESSAY_SAID + NOTHING + WRITES_FIRST,
        ),
    ],
)
def test_claude_result_not_known_to_be_the_whole_answer_is_never_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch, printed, why
):
    # Found: the result was graded as the answer whatever the session wrote before it
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", printed)
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.error_class, d.judge_samples) == (
            None, "error", "fatal", [],
        )  # fmt: skip
        assert d.lost.reason == f"{why}; not retryable, 1 attempt"
        assert (d.tokens.input, d.tokens.output) == (900, 1544)  # the session's usage kept


def test_claude_printing_no_message_of_the_session_stops_the_run(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # a claude that does not print the session --verbose asks for does so at every call: no
    # result it prints can be told whole, so the run stops before paying for more
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps([INIT, _result()]))
    with pytest.raises(ProviderError) as info:
        _mini(tmp_path, suite_file, "anthropic", "cli")
    # it says what mends it (a claude printing its session, so a newer one), not only to resume
    assert str(info.value).startswith(
        "the run stopped: claude printed its result but none of the session's messages, so "
        "whether the result is the whole answer cannot be told: the claude lane needs a claude "
        "that prints them with --verbose; upgrade claude; 0 finished draws are kept in "
    )


def test_claude_session_whose_last_message_holds_all_its_text_is_graded(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # a Read before the answer wrote no text; the answer's message is a thinking block and a text
    # block (two events sharing msg_02): the result is that message's whole text
    use, user = _tool("Read")
    thinking = {"type": "thinking", "thinking": "Check the file.", "signature": "sig"}
    session = [
        INIT,
        *_said("msg_01", use),
        user,
        *_said("msg_02", thinking, _text("@ANSWER@")),
        _result(num_turns=2),
    ]
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(session))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    skill, base = _draws(r)
    assert (skill.score, base.score, skill.lost, base.lost) == (0.9, 0.5, None, None)


def test_claude_one_result_object_is_read_as_a_one_turn_session(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # the lane passes --verbose (so the fake prints the session before a recorded result)
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(_result()))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli")
    assert tuple(d.score for d in _draws(r)) == (0.9, 0.5)
    argv = [json.loads(x)["argv"] for x in (tmp_path / "cli.log").read_text().splitlines()]
    assert all(a[:4] == ["-p", "--output-format", "json", "--verbose"] for a in argv[1:])


def test_files_capture_grades_the_files_whatever_the_result_says(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # capture files: the answer is answer.md, written by the Write tool; the closing line after
    # it is no part of the answer, so the session is graded
    monkeypatch.setenv("FAKE_MODE", "files")
    use, user = _tool("Write")
    session = [
        INIT,
        *_said("msg_01", _text("I'll write the commit message."), use),
        user,
        *_said("msg_02", _text("Done — the commit message is in answer.md.")),
        _result(num_turns=2, result="Done — the commit message is in answer.md."),
    ]
    printed_by_fake(tmp_path, monkeypatch, "claude-out.json", json.dumps(session))
    r, _ = _mini(tmp_path, suite_file, "anthropic", "cli", capture="files")
    skill, base = _draws(r)
    assert (skill.score, base.score, skill.lost, base.lost) == (0.9, 0.5, None, None)
    assert [f.path for f in skill.captured_files] == ["answer.md"]
