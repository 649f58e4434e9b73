"""Reply shapes a lane cannot read as a complete final answer (D-19), each served by the loopback
server through the real SDKs: the reply is a lost draw (or an invalid judge sample) quoting what
was found, never graded from the part the reader happened to know.

Shapes: a ``ChatCompletion`` with more than one choice or a choice whose ``index`` is not 0
(the run asks for one choice; the SDK type numbers choices from 0), ``tool_calls`` that is no
list, a streamed ``chat.completion.chunk`` sent to the non-streaming client; a Responses message
holding a content part that is neither ``output_text`` nor ``refusal`` (the two
``ResponseOutputMessage.content`` types); a Messages reply whose ``content`` is a string, or
that holds a block the reader does not know beside its answer or its grade.

Each run is one case, one draw per arm, one judge sample per draw; the scripted judge gives 0.9
to the skill's answer and 0.5 to the baseline's (run_helpers).
"""

from __future__ import annotations

import json

import pytest
from shape_replies import _answers, _chat, _draws, _message, _mini, _response

from driftproof.run.providers import make_provider


def _chat_lane():
    return make_provider("openai", "api", api="chat")


def _lost_chat(loopback, suite_file, tmp_path, shape, reason):
    """Run the Chat lane with answers reshaped by ``shape(chat, text)``; both draws are lost
    with ``reason``, no judge asked."""

    def reply(path, body, text):
        c = _chat(text)
        shape(c, text)
        return 200, c, {}

    loopback.script.shape = _answers(reply)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_chat_lane())
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], "no_answer")
        assert d.lost.reason == reason
    return r


# --- OpenAI Chat Completions: choices -------------------------------------------------------------


def test_a_chat_reply_with_two_choices_is_lost_naming_them(loopback, suite_file, tmp_path):
    # Found: only choices[0] was read; a second (n=2 answered though one was asked for) was
    # dropped without a word and the first graded
    def two(c, text):
        c["choices"].append({**c["choices"][0], "index": 1})

    _lost_chat(
        loopback, suite_file, tmp_path, two,
        "the reply holds 2 choices where one was asked for, so there is nothing to grade",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("index", "said"),
    [
        (1, "has index 1"),
        ("0", 'has index "0"'),
        (False, "has index false"),
        (None, "gives no index"),
    ],
)
def test_a_chat_choice_whose_index_is_not_0_is_lost_naming_it(
    loopback, suite_file, tmp_path, index, said
):
    def renumber(c, text):
        if index is None:
            del c["choices"][0]["index"]
        else:
            c["choices"][0]["index"] = index

    _lost_chat(
        loopback, suite_file, tmp_path, renumber,
        f"the reply's one choice {said}, not 0, so there is nothing to grade",
    )  # fmt: skip


def test_a_chat_chunk_sent_to_the_non_streaming_client_is_lost_naming_its_type(
    loopback, suite_file, tmp_path
):
    # the last chunk of a stream: finish_reason "stop", its text in a delta, no message
    def chunk(c, text):
        c["object"] = "chat.completion.chunk"
        c["choices"][0]["delta"] = c["choices"][0].pop("message")

    _lost_chat(
        loopback, suite_file, tmp_path, chunk,
        "the reply is a 'chat.completion.chunk' object, not a chat.completion, so there is "
        "nothing to grade",
    )  # fmt: skip


# --- OpenAI Chat Completions: calls ---------------------------------------------------------------

_CALL = {"id": "call_1", "type": "function", "function": {"name": "git_status", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("member", "value", "kind", "expected"),
    [
        ("tool_calls", _CALL, "an object", "a list of calls"),  # one call, not in a list
        ("tool_calls", "git_status", "a string", "a list of calls"),
        ("function_call", "git_status", "a string", "an object"),
    ],
)
def test_malformed_calls_beside_a_stop_are_never_graded(
    loopback, suite_file, tmp_path, member, value, kind, expected
):
    # Found: tool_calls given as an object beside finish_reason "stop" read as no call at all,
    # and the text beside it was graded
    def call(c, text):
        c["choices"][0]["message"][member] = value

    _lost_chat(
        loopback, suite_file, tmp_path, call,
        f"the message's {member} is {kind}, not {expected}; whether it calls a tool cannot be "
        "told, so there is nothing to grade",
    )  # fmt: skip


@pytest.mark.parametrize("value", [[], None])
def test_an_empty_or_null_tool_calls_is_no_call(loopback, suite_file, tmp_path, value):
    # vLLM sends "tool_calls": [] with every plain answer; OpenAI sends null or leaves it out
    def reply(path, body, text):
        c = _chat(text)
        c["choices"][0]["message"]["tool_calls"] = value
        return 200, c, {}

    loopback.script.shape = _answers(reply)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_chat_lane())
    assert [d.score for d in _draws(r)] == [0.9, 0.5]


# --- OpenAI Responses: message content parts ------------------------------------------------------


def _message_item(*parts: dict) -> dict:
    return {
        "type": "message",
        "id": "msg_1",
        "status": "completed",
        "role": "assistant",
        "content": list(parts),
    }


_AUDIO = {"type": "output_audio", "data": "UklGRg==", "transcript": "Fixed it."}


@pytest.mark.parametrize(
    ("odd", "said"),
    [
        (_AUDIO, "a part of type 'output_audio', not an output_text or refusal part"),
        ("Fixed it.", "a string, not an output_text or refusal part"),
    ],
)
def test_a_responses_message_part_of_an_unknown_type_loses_the_draw(
    loopback, suite_file, tmp_path, odd, said
):
    # Found: parts of any type but output_text were passed over and the output_text beside them
    # graded, though the part left out may hold the rest of the answer
    def shape(path, body, text):
        part = {"type": "output_text", "text": text, "annotations": []}
        return 200, _response([_message_item(part, odd)]), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], "no_answer")
        assert d.lost.reason == f"a message of the reply holds {said}, so there is nothing to grade"


def test_a_responses_refusal_part_is_still_read_as_a_refusal(loopback, suite_file, tmp_path):
    refused = {"type": "refusal", "refusal": "I can't help with that."}
    loopback.script.shape = _answers(lambda p, b, t: (200, _response([_message_item(refused)]), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "refusal")
        assert d.refusal.text == "I can't help with that."


# --- Anthropic Messages API -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "found"), [("fix(http): retry 429", "a string"), (None, "null")]
)
def test_anthropic_content_that_is_no_list_of_blocks_is_lost_naming_it(
    loopback, suite_file, tmp_path, content, found
):
    # Found: a content string read as no blocks at all, lost as "the reply holds no answer"
    loopback.script.shape = _answers(lambda p, b, t: (200, {**_message(t), "content": content}, {}))
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], "no_answer")
        assert d.lost.reason == (
            f"the reply's content is {found}, expected a list of blocks, so there is nothing "
            "to grade"
        )


def test_an_anthropic_stream_event_is_lost_naming_its_type(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(
        lambda p, b, t: (200, {"type": "message_start", "message": _message(t)}, {})
    )
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "no_answer")
        assert d.lost.reason == (
            "the reply is a 'message_start' object, not a message, so there is nothing to grade"
        )


_SEARCH = {
    "type": "server_tool_use",
    "id": "srvtoolu_1",
    "name": "web_search",
    "input": {"query": "HTTP 429"},
}


def test_an_unknown_block_beside_a_finished_answer_is_never_graded(loopback, suite_file, tmp_path):
    def shape(path, body, text):
        return 200, {**_message(text), "content": [_SEARCH, {"type": "text", "text": text}]}, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], "no_answer")
        assert d.lost.reason == (
            "the reply's content holds a block of type 'server_tool_use', which is not read, so "
            "there is nothing to grade"
        )


@pytest.mark.parametrize(
    ("extra", "what"),
    [
        (_SEARCH, "a block of type 'server_tool_use'"),
        ({"type": "tool_use", "id": "t2", "name": "search", "input": {}},
         "a call of the tool 'search', not the grade tool"),
    ],
)  # fmt: skip
def test_a_grade_beside_a_block_the_judge_reader_does_not_know_is_an_invalid_sample(
    loopback, suite_file, tmp_path, extra, what
):
    # Found: a record_grade call beside a server_tool_use block was read as the grade; the
    # judge was offered one tool and no server tool, so what else it did cannot be told
    def shape(path, body, is_judge, text):
        if not is_judge:
            return None
        grade = {"type": "tool_use", "id": "t", "name": "record_grade", "input": json.loads(text)}
        msg = _message("", model="claude-haiku-4-5-20251001", stop="tool_use")
        return 200, {**msg, "content": [extra, grade]}, {}

    loopback.script.shape = shape
    r, _ = _mini(tmp_path, suite_file)
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "unscored")
        assert d.judge_samples[0].invalid_reason == (
            f"the judge's reply: the reply's content holds {what}, which is not read, so its "
            "grade is not read"
        )
