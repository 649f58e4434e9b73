"""Replies of hosted OpenAI-compatible endpoints, served by the loopback server through the
official SDK.

Gemini's OpenAI endpoint (generativelanguage.googleapis.com/v1beta/openai) and Vertex AI's send
an error as a list of one Google error, ``[{"error": {"code", "message", "status"}}]``;
Cloudflare's API sends ``{"success": false, "errors": [{"code", "message"}], ...}`` (Workers AI's
code 3040, "Capacity temporarily exceeded"); Hugging Face's router and TGI send ``{"error":
"<words>"}``, a string.
"""

from __future__ import annotations

import pytest
from shape_replies import _answers, _draws, _mini

from driftproof.run.providers import make_provider


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
