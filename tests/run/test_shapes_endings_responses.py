"""Recorded reply shapes on the OpenAI Responses lane (D-19): ``Response.status`` and
``incomplete_details.reason``, ``ResponseOutputMessage.phase`` (``commentary``,
``final_answer``) and ``reasoning`` items, each served by the loopback server through the real
``openai`` SDK and asserting its receipt outcome.

Each run is one case, one draw per arm, one judge sample per draw; the scripted judge gives 0.9
to the skill's answer and 0.5 to the baseline's (run_helpers).
"""

from __future__ import annotations

import pytest
import run_helpers
from shape_replies import ONE, _answers, _draws, _mini, _response, arm_usage

# --- OpenAI Responses -----------------------------------------------------------------------------


def _gpt5(text: str, *, final: bool = True) -> list[dict]:
    """A gpt-5.x Responses output: a reasoning item, a commentary preamble, the final answer."""
    out = [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Checking sorry cases."}],
        },
        {
            "type": "message",
            "id": "msg_0",
            "status": "completed",
            "role": "assistant",
            "phase": "commentary",
            "content": [{"type": "output_text", "text": "I'll check… sorry", "annotations": []}],
        },
    ]
    if final:
        out.append(
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "phase": "final_answer",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    return out


def test_responses_commentary_and_reasoning_are_apart_and_a_gpt5_judge_grades(
    loopback, suite_file, tmp_path
):
    def shape(path, body, is_judge, text):
        if is_judge:
            assert "I'll check" not in body["input"]
        return 200, _response(_gpt5(text), model=body["model"]), {}

    loopback.script.shape = shape
    checks = [{"name": "no apology", "kind": "must_not_include", "pattern": "sorry"}]
    case = {**ONE["cases"][0], "checks": checks}
    r, _ = _mini(
        tmp_path,
        suite_file,
        "openai",
        "api",
        api="responses",
        judge="openai",
        suite={**ONE, "cases": [case]},
        keep_transcripts=True,
    )
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert skill.answer == run_helpers.SKILL_ANSWER and [c.pass_ for c in skill.checks] == [True]
    assert skill.reasoning.chars == len("Checking sorry cases.\n\nI'll check… sorry")


@pytest.mark.parametrize(
    ("status", "incomplete", "output", "kind", "ending"),
    [
        ("incomplete", {"reason": "content_filter"}, [], "content_filter", None),
        ("failed", None, [], "unknown_ending", "'failed'"),
        ("in_progress", None, [], "unknown_ending", "'in_progress'"),
        ("incomplete", {"reason": "max_messages"}, [], "unknown_ending", None),
        (  # a whole-looking answer, but the body says both completed and why it was cut
            "completed",
            {"reason": "max_output_tokens"},
            [{"type": "message", "content": [{"type": "output_text", "text": "fix(http): 429"}]}],
            "unknown_ending",
            "'completed:max_output_tokens'",
        ),
        (
            "completed",
            None,
            [
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "lookup",
                    "arguments": "{}",
                    "status": "completed",
                }
            ],
            "tool_call",
            "'completed:function_call'",
        ),
        (  # a preamble, then the call: the turn is not over, the preamble no answer
            "completed",
            None,
            [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "fix(http): let me check 429"}],
                },
                {"type": "function_call", "call_id": "c", "name": "lookup", "arguments": "{}"},
            ],
            "tool_call",
            "'completed:function_call'",
        ),
        (  # the answer, then a hosted tool's call: the turn goes on, no final answer
            "completed",
            None,
            [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "fix(http): retry 429"}],
                },
                {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            ],
            "tool_call",
            "'completed:web_search_call'",
        ),
        (  # a shell tool's call (ResponseFunctionShellToolCall): the turn waits on it
            "completed",
            None,
            [
                {
                    "type": "shell_call",
                    "id": "sh_1",
                    "call_id": "c",
                    "status": "completed",
                    "action": {"commands": ["ls"], "max_output_length": None, "timeout_ms": None},
                }
            ],
            "tool_call",
            "'completed:shell_call'",
        ),
        (  # a hosted tool search, its output, then text: a turn that used a tool
            "completed",
            None,
            [
                {
                    "type": "tool_search_call",
                    "id": "ts_1",
                    "arguments": {},
                    "execution": "server",
                    "status": "completed",
                },
                {
                    "type": "tool_search_output",
                    "id": "to_1",
                    "execution": "server",
                    "tools": [],
                    "status": "completed",
                },
                {
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "fix(http): retry 429"}],
                },
            ],
            "tool_call",
            "'completed:tool_search_output'",
        ),
    ],
)
def test_responses_endings_other_than_completed_are_lost_by_class(
    loopback, suite_file, tmp_path, status, incomplete, output, kind, ending
):
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _response(output, status=status, incomplete=incomplete), {})
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    for d in _draws(r):
        assert d.score is None and d.lost.kind == kind and d.refusal is None
        if ending:
            assert f"the reply ended with {ending}" in d.lost.reason


@pytest.mark.parametrize(("out", "kind"), [(6, "context_window"), (8192, None)])
def test_vllm_responses_cut_by_its_context_window_is_never_an_accepted_truncation(
    loopback, suite_file, tmp_path, out, kind
):
    # vLLM lowers max_output_tokens to what its context window leaves (get_max_tokens: the least
    # of max_model_len - prompt and the budget), and answers a "length" finish, budget or
    # window alike, with status incomplete, reason max_output_tokens (vllm-project/vllm
    # entrypoints/openai/responses/serving.py, ResponsesResponse.from_request): 4,090 prompt
    # tokens of a 4,096-token window leave 6 of the 8,192 asked for. A cut at the budget itself
    # reports the budget and is graded where the suite accepts truncation (D-19).
    usage = {"input_tokens": 4090, "output_tokens": out, "total_tokens": 4090 + out}
    cut = {"reason": "max_output_tokens"}

    def shape(path, body, text):
        item = _said("fix(http): retry 429 and the context ran o", "incomplete")
        said = arm_usage(usage, path, body)
        return 200, _response(item, status="incomplete", incomplete=cut, usage=said), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", api="responses", judge="openai",
        suite={**ONE, "truncation": "accepted"},
    )  # fmt: skip
    for d in _draws(r):
        assert d.lost is None if kind is None else d.lost.kind == kind
    if kind is not None:
        assert _draws(r)[0].lost.reason == (
            "context window: the reply ended with 'incomplete:max_output_tokens' after 6 output "
            "tokens, well below the output budget of 8,192, not as a complete final answer"
        )


def test_vllm_cancelled_response_is_retried_as_a_server_abort_then_graded(
    loopback, suite_file, tmp_path
):
    """vLLM's Responses server ends a request its engine aborted (finish reason ``abort``, which
    its Chat Completions sends as is) with status ``cancelled`` and what output came first
    (vllm-project/vllm entrypoints/openai/responses/serving.py, responses_full_generator), one of
    the API's documented statuses (openai-python types/responses/response_status.py): a
    transient server abort as Chat's ``abort``, retried, never graded."""
    said = _said("fix(http): ret", "in_progress")
    seen = []

    def shape(path, body, text):
        seen.append(1)
        return (200, _response(said, status="cancelled"), {}) if len(seen) <= 4 else None

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses")
    skill, base = _draws(r)  # the skill's three attempts cancelled, the baseline's first
    assert (skill.score, skill.lost.kind, skill.lost.error_class) == (
        None, "server_abort", "transient",
    )  # fmt: skip
    assert skill.lost.reason.startswith(
        "aborted by the server: the reply ended with 'cancelled', not as a complete final answer"
        "; transient, 3 attempts"
    )
    assert (base.score, len(base.attempts)) == (0.5, 1)


def test_responses_commentary_alone_is_no_final_answer(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(lambda p, b, t: (200, _response(_gpt5(t, final=False)), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "no_answer"


def _said(text: str, status: str) -> list[dict]:
    """A final answer message (``ResponseOutputMessage``) whose own ``status`` is ``status``."""
    part = {"type": "output_text", "text": text, "annotations": []}
    return [{"type": "message", "id": "msg_1", "status": status, "role": "assistant",
             "phase": "final_answer", "content": [part]}]  # fmt: skip


@pytest.mark.parametrize("status", ["incomplete", "in_progress"])
def test_a_completed_response_whose_answer_message_is_unfinished_is_not_graded(
    loopback, suite_file, tmp_path, status
):
    why = (
        f"answer message not finished: the reply ended with 'completed:message_{status}', not as"
        " a complete final answer"
    )
    loopback.script.shape = _answers(lambda p, b, t: (200, _response(_said(t, status)), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.reason) == (None, "unfinished_answer", why)
        assert d.judge_samples == [] and d.stop_reason == f"completed:message_{status}"

    grade = '{"score": 1, "reason": "names the 429 retry"}'
    loopback.script.shape = lambda p, b, is_judge, t: (
        (200, _response(_said(grade, status), model="gpt-5-mini"), {}) if is_judge else None
    )
    r, _ = _mini(tmp_path, suite_file, judge="openai", out=tmp_path / "judged.json")
    for d in _draws(r):
        assert d.score is None
        assert [s.invalid_reason for s in d.judge_samples] == [f"the judge's {why}"]


@pytest.mark.parametrize("given", [{}, {"status": None}])
def test_a_completed_response_whose_answer_message_gives_no_status_is_not_graded(
    loopback, suite_file, tmp_path, given
):
    # ResponseOutputMessage requires a status: a message without one was never said finished
    def unsaid(text: str) -> list[dict]:
        item = _said(text, "completed")[0]
        del item["status"]
        return [{**item, **given}]

    why = "the answer message does not say it is finished (it gives no status), so there is "
    why += "nothing to grade"
    loopback.script.shape = _answers(lambda p, b, t: (200, _response(unsaid(t)), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", api="responses", judge="openai")
    for d in _draws(r):
        assert (d.score, d.lost.kind, d.lost.reason) == (None, "no_answer", why)
        assert d.judge_samples == [] and d.stop_reason == "completed"

    grade = '{"score": 1, "reason": "names the 429 retry"}'
    loopback.script.shape = lambda p, b, is_judge, t: (
        (200, _response(unsaid(grade), model="gpt-5-mini"), {}) if is_judge else None
    )
    r, _ = _mini(tmp_path, suite_file, judge="openai", out=tmp_path / "judged.json")
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "unscored"
        assert [s.invalid_reason for s in d.judge_samples] == [f"the judge's reply: {why}"]
