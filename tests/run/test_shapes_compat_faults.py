"""Errors of OpenAI-compatible servers and gateways that are one draw's fault, not the run's,
served by the loopback server through the official SDK.

Azure OpenAI refuses a prompt its content filter stops with status 400, ``code``
``content_filter`` and ``innererror.code`` ``ResponsibleAIPolicyViolation``
(https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter); a LiteLLM
proxy passes it on with ``code`` "400" and the inner error under ``provider_specific_fields``
(BerriAI/litellm#16231), or, before that, in its message only (meta-llama/PurpleLlama#109).
Groq sends 400 with ``code`` ``tool_use_failed`` and the model's ``failed_generation`` when a
model calls a tool it was not given (BerriAI/litellm#21242, groq/groq-typescript#28).
"""

from __future__ import annotations

import pytest
from shape_replies import _answers, _chat, _draws, _mini

from driftproof.run.providers import make_provider

_AZURE = (
    "The response was filtered due to the prompt triggering Azure OpenAI's content management "
    "policy. Please modify your prompt and retry."
)
_VERDICTS = {"hate": {"filtered": True, "severity": "high"}}
_INNER = {"code": "ResponsibleAIPolicyViolation", "content_filter_result": _VERDICTS}
_LITELLM = (
    f"litellm.BadRequestError: litellm.ContentPolicyViolationError: AzureException - {_AZURE}"
)

FILTERED = {
    "azure": (
        {"message": _AZURE, "type": None, "param": "prompt", "code": "content_filter",
         "status": 400, "innererror": _INNER},
        f"HTTP 400: {_AZURE} (content_filter)",
    ),
    "litellm": (
        {"message": "Bad request", "type": None, "param": None, "code": "400",
         "provider_specific_fields": {"innererror": _INNER}},
        "HTTP 400: Bad request (ResponsibleAIPolicyViolation)",
    ),
    "litellm-message-only": (
        {"message": _LITELLM, "type": None, "param": None, "code": "400"},
        f"HTTP 400: {_LITELLM}",
    ),
    # a LiteLLM proxy's ProxyException with no type sends the string "None" (BerriAI/litellm
    # #39540: "proxy_server.py answers "type": "None" on 63 error sites"): no type to name
    "litellm-type-none": (
        {"message": _LITELLM, "type": "None", "param": "None", "code": "400"},
        f"HTTP 400: {_LITELLM}",
    ),
}  # fmt: skip


def _skill_arm_fails(err, status=400):
    """The with-skill answer (sent with a system message) refused with ``err`` and ``status``."""

    def shape(path, body, text):
        if body["messages"][0]["role"] != "system":
            return None
        return status, {"error": err}, {}

    return _answers(shape)


def _lane():
    return make_provider("openai", "api", api="chat")


@pytest.mark.parametrize("who", list(FILTERED))
def test_a_prompt_a_content_filter_stops_loses_that_draw_and_the_run_goes_on(
    loopback, suite_file, tmp_path, who
):
    err, reason = FILTERED[who]
    loopback.script.shape = _skill_arm_fails(err)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    skill, base = _draws(r)
    assert skill.score is None and skill.judge_samples == []
    assert (skill.lost.kind, skill.lost.error_class, len(skill.attempts)) == (
        "content_filter",
        "fatal",  # a retry cannot cure it: not retried, but the run is not stopped
        1,
    )
    assert skill.lost.reason == f"{reason}; not retryable, 1 attempt"
    assert base.score == 0.5  # the other arm was drawn and graded


def test_groqs_tool_use_failed_loses_that_draw_as_a_tool_call(loopback, suite_file, tmp_path):
    err = {
        "message": "Tool choice is none, but model called a tool",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": '{"name": "repo_browser.open_file", "arguments": {}}',
    }
    loopback.script.shape = _skill_arm_fails(err)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    skill, base = _draws(r)
    assert skill.score is None and skill.judge_samples == []
    assert (skill.lost.kind, len(skill.attempts)) == ("tool_call", 1)
    assert skill.lost.reason == (
        "HTTP 400: invalid_request_error: Tool choice is none, but model called a tool "
        "(tool_use_failed); not retryable, 1 attempt"
    )
    assert base.score == 0.5


@pytest.mark.parametrize(
    "more",
    [{}, {"failed_generation": None}],  # a null failed_generation names no failed output
)
def test_another_400_still_stops_the_run(loopback, suite_file, tmp_path, more):
    # a 400 naming no one draw's fault is the request's: every call would fail too
    from driftproof.errors import ProviderError

    err = {"message": "Unrecognized request argument supplied: foo", "code": None, **more}
    loopback.script.shape = _skill_arm_fails(err)
    with pytest.raises(ProviderError, match="Unrecognized request argument supplied: foo"):
        _mini(tmp_path, suite_file, "openai", "api", lane=_lane())


def test_an_answer_is_still_graded(loopback, suite_file, tmp_path):
    loopback.script.shape = _answers(lambda p, b, t: (200, _chat(t), {}))
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    assert [d.score for d in _draws(r)] == [0.9, 0.5]


def test_a_content_filtered_request_in_a_batch_loses_that_draw_only(fake, tmp_path, monkeypatch):
    # Azure OpenAI's batch output line for a filtered prompt: its response, status 400, holds
    # the same error body as the interactive API's
    import json

    import batch_fake_state
    from batch_runs import batched

    from driftproof.receipt import read_receipt

    files = batch_fake_state.FakeState._openai_files
    err, reason = FILTERED["azure"]

    def filtering(self, b):
        files(self, b)
        if b.output_file_id:
            lines = [json.loads(x) for x in self.files[b.output_file_id].splitlines()]
            for x in lines:
                if x["custom_id"] == "a0-0-0":
                    x["response"] = {"status_code": 400, "request_id": "r", "body": {"error": err}}
            self.files[b.output_file_id] = b"".join(json.dumps(x).encode() + b"\n" for x in lines)

    monkeypatch.setattr(batch_fake_state.FakeState, "_openai_files", filtering)
    r = read_receipt(batched(tmp_path, "openai", api="chat", cases=1))
    ws = r.cases[0].arms.with_skill.draws
    assert (ws[0].score, ws[0].lost.kind, len(ws[0].attempts)) == (None, "content_filter", 1)
    assert ws[0].lost.reason.startswith("batch ") and reason in ws[0].lost.reason
    assert [d.score for d in ws[1:]] == pytest.approx([0.9, 0.9])


@pytest.mark.parametrize(
    "err",
    [
        # DeepSeek (https://api-docs.deepseek.com/quick_start/error_codes: "402 - Insufficient
        # Balance ... You have run out of balance")
        {"message": "Insufficient Balance", "type": "unknown_error", "param": None,
         "code": "invalid_request_error"},
        # OpenRouter (https://openrouter.ai/docs/api-reference/errors: 402, insufficient credits)
        {"code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/settings/credits"},
    ],
)  # fmt: skip
def test_a_402_with_no_credit_left_stops_the_run_at_once(loopback, suite_file, tmp_path, err):
    # every further call would fail too: the run stops at its first, keeping its journal, rather
    # than losing every draw one by one
    from driftproof.errors import ProviderError

    loopback.script.shape = _answers(lambda p, b, t: (402, {"error": err}, {}))
    with pytest.raises(ProviderError, match=f"the run stopped: HTTP 402: .*{err['message'][:20]}"):
        _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    assert sum(loopback.script.requests.values()) == 1


def test_groqs_498_capacity_exceeded_is_retried(loopback, suite_file, tmp_path):
    # Groq's own status (https://console.groq.com/docs/errors: "498 Custom: Flex Tier Capacity
    # Exceeded ... You can try again later"; https://console.groq.com/docs/flex-processing:
    # "fail quickly with status 498 and error capacity_exceeded. Add jittered backoff and retries")
    err = {"message": "Flex tier capacity exceeded. Please try again later.",
           "type": "capacity_exceeded", "code": "capacity_exceeded"}  # fmt: skip
    seen = []

    def shape(path, body, text):
        seen.append(1)
        return (498, {"error": err}, {}) if len(seen) == 1 else None

    loopback.script.shape = _answers(shape)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    skill, base = _draws(r)
    assert (skill.score, base.score) == (0.9, 0.5)
    assert [(a.error, a.error_class, a.status) for a in skill.attempts] == [
        ("HTTP 498: capacity_exceeded: " + err["message"], "transient", 498)
    ]


@pytest.mark.parametrize(
    ("api", "path", "hint"),
    [
        ("chat", "/chat/completions", "check that the base URL ends in /v1"),
        (
            "responses",
            "/responses",
            "the endpoint has no Responses API; run with --openai-api chat",
        ),
    ],
)
def test_lm_studios_200_for_a_path_it_does_not_serve_stops_the_run(
    loopback, suite_file, tmp_path, api, path, hint
):
    # LM Studio answers a path it does not serve with status 200 and {"error": "Unexpected
    # endpoint or method. (POST /chat/completions)"} (lmstudio-ai/lmstudio-bug-tracker#618): a
    # base URL without /v1, where every call fails the same way; it was retried and lost draw by
    # draw, through the whole run
    from driftproof.errors import ProviderError

    said = f"Unexpected endpoint or method. (POST {path})"
    loopback.script.shape = _answers(lambda p, b, t: (200, {"error": said}, {}))
    lane = make_provider("openai", "api", api=api)
    with pytest.raises(ProviderError) as ei:
        _mini(tmp_path, suite_file, "openai", "api", lane=lane)
    assert (
        f'the run stopped: the reply is an error with status 200, not an answer: "{said}": the '
        f"server has no such endpoint; {hint}"
    ) in str(ei.value)
    assert sum(loopback.script.requests.values()) == 1


def test_a_498_that_is_not_groqs_capacity_is_not_retried(loopback, suite_file, tmp_path):
    # 498 is Groq's "capacity_exceeded" (retried above); elsewhere it can mean an invalid token
    # (Esri), which a retry never mends: that draw is lost after one attempt, the run goes on
    loopback.script.shape = _skill_arm_fails({"message": "Invalid token"}, status=498)
    r, _ = _mini(tmp_path, suite_file, "openai", "api", lane=_lane())
    skill, base = _draws(r)
    assert skill.score is None and len(skill.attempts) == 1 and base.score == 0.5
