"""Replies of hosted OpenAI-compatible endpoints, served by the loopback server through the
official SDK.

Gemini's OpenAI endpoint (generativelanguage.googleapis.com/v1beta/openai) and Vertex AI's send
an error as a list of one Google error, ``[{"error": {"code", "message", "status"}}]``;
Cloudflare's API sends ``{"success": false, "errors": [{"code", "message"}], ...}`` (Workers AI's
code 3040, "Capacity temporarily exceeded"); Hugging Face's router and TGI send ``{"error":
"<words>"}``, a string.

Amazon Bedrock's OpenAI-compatible Chat Completions sends gpt-oss's reasoning in ``content``, in
one or more ``<reasoning>…</reasoning>`` blocks before the answer (CherryHQ/cherry-studio#10225;
promptfoo/promptfoo#9587: "Bedrock … prepends the model reasoning wrapped in <reasoning>").
"""

from __future__ import annotations

import pytest
import run_helpers
from shape_replies import ONE, _answers, _chat, _draws, _mini, arm_usage

from driftproof.run.providers import make_provider
from driftproof.run.providers.openai_api import read_chat
from driftproof.run.reply_text import mixed_reasoning_at


def _lane():
    return make_provider("openai", "api", api="chat")


def _google(status, code, words):
    return [{"error": {"code": status, "message": words, "status": code}}]


_TRANSIENT = {
    "gemini-429": (429, _google(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. "
                   "check quota)."), "Resource has been exhausted (e.g. check quota)."),
    "gemini-503": (503, _google(503, "UNAVAILABLE", "The model is overloaded. Please try again "
                   "later."), "The model is overloaded. Please try again later."),
    "cloudflare-429": (
        429,
        {"success": False, "result": None, "messages": [],
         "errors": [{"code": 3040, "message": "Capacity temporarily exceeded, please try again."}]},
        "Capacity temporarily exceeded, please try again.",
    ),
    "hugging-face-503": (
        503,
        {"error": "Model too busy, unable to get response in less than 60 second(s)"},
        "Model too busy, unable to get response in less than 60 second(s)",
    ),
    # no message string: the error quoted as JSON (the SDK's words were "Error code: 503")
    "errors-of-strings": (503, {"success": False, "errors": ["busy"]},
                          '{"success": false, "errors": ["busy"]}'),
    "message-an-object": (503, {"error": {"message": {"detail": "busy"}}},
                          '{"message": {"detail": "busy"}}'),
}  # fmt: skip


@pytest.mark.parametrize("who", list(_TRANSIENT))
def test_an_error_body_of_a_hosted_endpoint_is_quoted_and_retried(
    loopback, suite_file, tmp_path, who
):
    status, body, words = _TRANSIENT[who]
    loopback.script.shape = _answers(lambda p, b, t: (status, body, {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    for d in _draws(r):
        assert d.score is None and d.judge_samples == []
        assert (d.lost.error_class, len(d.attempts)) == ("transient", 3)
        assert d.lost.reason == (
            f"HTTP {status}: {words}; transient, 3 attempts, retried after 0.01 s and 0.02 s"
        )


def test_geminis_context_window_400_in_a_list_loses_that_draw_and_the_run_goes_on(
    loopback, suite_file, tmp_path
):
    words = (
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    )

    def shape(path, body, text):
        if body["messages"][0]["role"] != "system":
            return None  # the baseline answers
        return 400, _google(400, "INVALID_ARGUMENT", words), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    skill, base = _draws(r)
    assert (skill.score, skill.lost.kind, len(skill.attempts)) == (None, "context_window", 1)
    assert skill.lost.reason == f"HTTP 400: {words}; not retryable, 1 attempt"
    assert base.score == 0.5


_SORRY = "The user wants a commit message. Say sorry first?"


def test_bedrocks_reasoning_blocks_are_kept_apart_and_the_answer_after_them_graded(
    loopback, suite_file, tmp_path
):
    def shape(path, body, is_judge, text):
        if is_judge:
            assert "sorry" not in body["messages"][-1]["content"]
            return None
        said = f"<reasoning>{_SORRY}</reasoning><reasoning>Plan: one line.</reasoning>{text}"
        return 200, _chat(said), {}

    loopback.script.shape = shape
    checks = [{"name": "no apology", "kind": "must_not_include", "pattern": "sorry"}]
    case = {**ONE["cases"][0], "checks": checks}
    r, _ = _mini(
        tmp_path, suite_file, "openai", "api", lane=_lane(), suite={**ONE, "cases": [case]},
        keep_transcripts=True,
    )  # fmt: skip
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert (skill.answer, base.answer) == (run_helpers.SKILL_ANSWER, run_helpers.BASE_ANSWER)
    # the two blocks joined by a blank line: 49 + 2 + 15 characters
    assert skill.reasoning.chars == 66 and [c.pass_ for c in skill.checks] == [True]


def test_an_unclosed_or_a_later_reasoning_block_is_never_the_answer():
    unclosed = read_chat(_chat("<reasoning>Say sorry first?"), compatible=True)
    assert (unclosed.text, unclosed.reasoning) == ("", "Say sorry first?")  # nothing to grade
    later = read_chat(_chat("Fixed it. <reasoning>sorry</reasoning>"), compatible=True)
    assert mixed_reasoning_at(later.text) == 10  # lost as reasoning mixed into the answer


def _xai_usage(completion, reasoning):
    """xAI's usage: reasoning counted apart from completion_tokens, within total_tokens."""
    return {
        "prompt_tokens": 120,
        "completion_tokens": completion,
        "total_tokens": 120 + completion + reasoning,
        "prompt_tokens_details": {"text_tokens": 120, "cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def test_xais_budget_cut_spent_on_reasoning_is_the_output_budget_not_the_context_window(
    loopback, suite_file, tmp_path
):
    # 300 answer tokens and 7,892 reasoning tokens fill the 8,192-token budget exactly
    def shape(path, body, text):
        usage = arm_usage(_xai_usage(300, 7892), path, body)
        return 200, _chat(text[:30], finish="length", usage=usage), {}

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    for d in _draws(r):
        assert d.score is None and d.lost.kind == "truncated"
        assert (d.tokens.output, d.tokens.reasoning_output, d.tokens.answer_output) == (
            8192,
            7892,
            300,
        )


def test_xais_finished_answer_counts_its_reasoning_as_output(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(
        lambda p, b, t: (200, _chat(t, usage=arm_usage(_xai_usage(20, 1200), p, b)), {})
    )
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    for d in _draws(r):
        assert d.score is not None
        assert (d.tokens.output, d.tokens.reasoning_output, d.tokens.answer_output) == (
            1220,
            1200,
            20,
        )


def test_openais_count_of_reasoning_within_the_output_is_kept():
    # OpenAI's total is input plus output, the reasoning a part of the output
    u = {"prompt_tokens": 120, "completion_tokens": 1220, "total_tokens": 1340,
         "completion_tokens_details": {"reasoning_tokens": 1200}}  # fmt: skip
    reply = read_chat(_chat("Done.", usage=u), compatible=True)
    assert (reply.output_tokens, reply.reasoning_output) == (1220, 1200)
