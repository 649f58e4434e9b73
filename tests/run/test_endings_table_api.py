"""The API lanes' rows of the endings table (D-19) not driven elsewhere, end to end through the
official ``openai`` SDK against the loopback server.

Shapes: ``Choice.finish_reason`` of openai-python's ``ChatCompletion`` (``function_call``, the
deprecated call ending; ``length``, ``content_filter``, ``tool_calls``), which compatible servers
send as OpenAI does; every output item type of its ``ResponseOutputItem`` union (the item's
``type`` and ``id``), after the answer message of a ``completed`` response; OpenAI's own Chat
Completions table against the output budget (the loopback read as OpenAI's service), and a budget
ending whose usage gives no output tokens (a compatible server's omission).
"""

from __future__ import annotations

from typing import get_args

import pytest
from openai.types.responses import ResponseOutputItem
from shape_replies import _answers, _chat, _draws, _message, _mini, _response

from driftproof.run.providers import make_provider

_SAID = "{}: the reply ended with {}, not as a complete final answer"
_FN = {"id": "call_1", "type": "function", "function": {"name": "git_status", "arguments": "{}"}}


def _lane(compatible: bool):
    lane = make_provider("openai", "api", api="chat")
    if not compatible:  # the loopback read as OpenAI's own service, its table
        lane.compatible, lane.budget_param = False, "max_completion_tokens"
    return lane


@pytest.mark.parametrize(
    ("compatible", "finish", "member", "words"),
    [
        (False, "function_call", {"function_call": _FN["function"]}, "tool call with no answer"),
        (True, "function_call", {"function_call": _FN["function"]}, "tool call with no answer"),
        (True, "tool_calls", {"tool_calls": [_FN]}, "tool call with no answer"),
        (True, "content_filter", {}, "content filter"),
        (True, None, {}, "unknown ending"),  # null: a compatible server's unfinished choice
    ],
    ids=["openai-function_call", "compatible-function_call", "compatible-tool_calls",
         "compatible-content_filter", "compatible-null"],
)  # fmt: skip
def test_a_chat_ending_is_lost_in_the_tables_words(
    loopback, suite_file, tmp_path, compatible, finish, member, words
):
    def shape(path, body, text):
        c = _chat(None, finish=finish)
        c["choices"][0]["message"].update(member)
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(compatible))
    for d in _draws(r):
        assert (d.score, d.judge_samples) == (None, [])
        said = "no ending" if finish is None else repr(finish)
        assert d.lost.reason == _SAID.format(words, said)


def test_a_compatible_servers_length_at_its_budget_is_the_output_budget(
    loopback, suite_file, tmp_path
):
    usage = {"prompt_tokens": 120, "completion_tokens": 64, "total_tokens": 184}
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(t[:10], finish="length", usage=usage), {})
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(True), max_tokens=64)
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "truncated")
        assert d.lost.reason == (
            "cut off at 64 output tokens (stop reason length; budget 64); the suite does not "
            "accept truncation"
        )


#: The SDK's output item types but the answer's and reasoning's, and those driven elsewhere
#: (test_shapes_endings_responses.py); compaction and additional_tools are no tool's call or
#: output, and the lane asks for neither: not in the table, an unknown ending.
_ITEMS = sorted(
    {v for m in get_args(get_args(ResponseOutputItem)[0]) for v in get_args(
        m.model_fields["type"].annotation)}
    - {"message", "reasoning", "function_call", "web_search_call", "shell_call",
       "tool_search_output"}
)  # fmt: skip
_UNKNOWN = {"compaction", "additional_tools"}


@pytest.mark.parametrize("kind", _ITEMS)
def test_a_responses_item_after_the_answer_is_lost_as_the_table_says(
    loopback, suite_file, tmp_path, kind
):
    def shape(path, body, text):
        part = {"type": "output_text", "text": text, "annotations": []}
        answer = {"type": "message", "id": "m", "status": "completed", "role": "assistant",
                  "content": [part]}  # fmt: skip
        return 200, _response([answer, {"type": kind, "id": "i_1"}]), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    words = "unknown ending" if kind in _UNKNOWN else "tool call with no answer"
    for d in _draws(r):
        assert (d.score, d.judge_samples) == (None, [])
        assert d.lost.reason == _SAID.format(words, repr(f"completed:{kind}"))


_BUDGET = 64  # 90% of it is 57.6 tokens


@pytest.mark.parametrize(
    ("finish", "out", "kind", "said"),
    [
        ("stop", 20, None, None),
        ("length", _BUDGET, "truncated",
         "cut off at 64 output tokens (stop reason length; budget 64); the suite does not accept "
         "truncation"),
        ("length", 6, "context_window",
         "context window: the reply ended with 'length' after 6 output tokens, well below the "
         "output budget of 64, not as a complete final answer"),
        ("length", None, "length_unknown", None),
        ("stop", _BUDGET, "truncated",
         "cut off at 64 output tokens (stop reason stop; budget 64), the budget exactly, though "
         "the server called the answer finished; the suite does not accept truncation"),
    ],
    ids=["stop", "length_at_budget", "length_far_below", "length_no_usage", "stop_at_budget"],
)  # fmt: skip
def test_openais_own_chat_endings_against_the_budget(
    loopback, suite_file, tmp_path, finish, out, kind, said
):
    def shape(path, body, text):
        c = _chat(text if kind is None else text[:10], finish=finish)
        if out is None:
            del c["usage"]
        else:
            c["usage"] = {**c["usage"], "completion_tokens": out, "total_tokens": 120 + out}
        return 200, c, {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane(False), max_tokens=_BUDGET)
    skill, base = _draws(r)
    if kind is None:
        assert (skill.score, base.score, skill.lost) == (0.9, 0.5, None)
        return
    for d in (skill, base):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], kind)
        assert d.lost.reason == said if said else d.lost.reason.startswith("length stop (")


@pytest.mark.parametrize("lane", ["anthropic", "responses"])
def test_a_budget_ending_reporting_no_output_tokens_is_an_unknown_length_stop(
    loopback, suite_file, tmp_path, lane
):
    def shape(path, body, text):
        if lane == "anthropic":
            return 200, _message(text[:10], stop="max_tokens", usage={"input_tokens": 120}), {}
        r = _response([], status="incomplete", incomplete={"reason": "max_output_tokens"})
        r["usage"] = {k: v for k, v in r["usage"].items() if k == "input_tokens"}
        return 200, r, {}

    loopback.script.shape = _answers(shape)
    opts = {} if lane == "anthropic" else {"api": "responses", "judge": "openai"}
    r, _ = _mini(tmp_path, suite_file, "anthropic" if lane == "anthropic" else "openai", "api",
                 **opts)  # fmt: skip
    for d in _draws(r):
        assert (d.score, d.judge_samples, d.lost.kind) == (None, [], "length_unknown")
        assert d.lost.reason.startswith("length stop (the context window or the output budget")
