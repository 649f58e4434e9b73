"""A prompt longer than the model's context window loses that draw as the context window (D-19),
never retried and never stopping the run: the same prompt fails the same way, and the other
cases and arms can still be measured. Error bodies as the providers document them."""

from __future__ import annotations

import json

import pytest
from shape_replies import _draws, _mini


def _once(status, body):
    sent = []

    def fn(path, req, is_judge, text):
        if is_judge or sent:
            return None
        sent.append(1)
        return status, body, {}

    return fn


# Anthropic: https://docs.anthropic.com/en/api/errors (invalid_request_error);
# OpenAI: the error object's code context_length_exceeded (vLLM words it the same way)
ANTHROPIC = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 215000 tokens > 200000 maximum",
    },
}
OPENAI = {
    "error": {
        "message": "This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 130512 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}

# Anthropic's words when the prompt and max_tokens together pass the window (as in
# anthropics/claude-code#408); llama.cpp's server (exceed_context_size_error, status 400)
ANTHROPIC_BUDGET = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "input length and `max_tokens` exceed context limit: 189136 + 20000 > "
        "204648, decrease input length or `max_tokens` and try again",
    },
}
LLAMA_CPP = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
    }
}
# Anthropic's 413 for a request past the window (anthropics/claude-code#6368, #6364 quote it)
ANTHROPIC_413 = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "Request size exceeds model context window",
    },
    "request_id": "req_011CSPWKXCRRY6RUpJykZ77v",
}
# SGLang and Together's words; Gemini's OpenAI-compatible endpoint (both as quoted in public
# gateways' overflow tests)
SGLANG = {
    "error": {
        "message": "The input (516368 tokens) is longer than the model's context length "
        "(262144 tokens).",
        "type": "BadRequestError",
        "code": 400,
    }
}
GEMINI = {
    "error": {
        "code": 400,
        "message": "The input token count (1300000) exceeds the maximum number of tokens allowed "
        "(1048575).",
        "status": "INVALID_ARGUMENT",
    }
}
_OPENAI = {"provider": "openai", "api": "chat", "judge": "openai"}
# Groq names the window by its code alone (OpenHands/OpenHands#1902, ScrapeGraphAI/
# Scrapegraph-ai#411 quote this body); Together sends TGI's validation words with status 400
# (as quoted in public gateways' overflow tests); LM Studio's words, status 400
# (lmstudio-ai/lmstudio-bug-tracker#237, #546), its error a string
GROQ = {
    "error": {
        "message": "Please reduce the length of the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
TOGETHER = {
    "error": {
        "message": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8193. "
        "Given: 9000 `inputs` tokens and 512 `max_new_tokens`",
        "type": "invalid_request_error",
    }
}
LM_STUDIO = {
    "error": "Trying to keep the first 15857 tokens when context the overflows. However, the "
    "model is loaded with context length of only 4096 tokens, which is not enough. Try to load "
    "the model with a larger context length, or provide a shorter input"
}
# Hugging Face TGI: router/src/validation.rs's MaxTotalTokens and InputLength, sent by
# router/src/server.rs as {"error", "error_type": "validation"} with status 422
# (InferError::ValidationError => StatusCode::UNPROCESSABLE_ENTITY)
TGI_TOTAL = {
    "error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. "
    "Given: 4000 `inputs` tokens and 8192 `max_new_tokens`",
    "error_type": "validation",
}
TGI_INPUT = {
    "error": "Input validation error: `inputs` must have less than 4095 tokens. Given: 5000",
    "error_type": "validation",
}


@pytest.mark.parametrize(
    "body,kw",
    [
        (ANTHROPIC, {}),
        (OPENAI, _OPENAI),
        (ANTHROPIC_BUDGET, {}),
        (LLAMA_CPP, _OPENAI),
        (SGLANG, _OPENAI),
        (GEMINI, _OPENAI),
        (GROQ, _OPENAI),
        (TOGETHER, _OPENAI),
        (LM_STUDIO, _OPENAI),
        (TGI_TOTAL, {**_OPENAI, "status": 422}),
        (TGI_INPUT, {**_OPENAI, "status": 422}),
        (ANTHROPIC_413, {"status": 413}),
    ],
    ids=[
        "anthropic", "openai-chat", "anthropic-budget", "llama-cpp", "sglang", "gemini", "groq",
        "together", "lm-studio", "tgi-total", "tgi-input", "anthropic-413",
    ],
)  # fmt: skip
def test_a_400_for_a_prompt_past_the_context_window_loses_that_draw_only(
    loopback, suite_file, tmp_path, body, kw
):
    kw = dict(kw)
    status = kw.pop("status", 400)
    loopback.script.shape = _once(status, body)
    provider = kw.pop("provider", "anthropic")
    r, _ = _mini(tmp_path, suite_file, provider, "api", **kw)
    skill, base = _draws(r)
    assert (skill.score, skill.lost.kind, skill.lost.status) == (None, "context_window", status)
    words = body["error"] if isinstance(body["error"], str) else body["error"]["message"]
    assert skill.lost.reason.startswith(f"HTTP {status}: ") and words in skill.lost.reason
    assert len(skill.attempts) == 1  # never retried: the same prompt fails the same way
    assert base.score == 0.5  # the run went on


def test_codex_turn_failed_past_the_context_window_is_not_retried(
    loopback, fake_bin, suite_file, tmp_path, monkeypatch
):
    # codex-rs's words for ContextWindowExceeded
    said = "Your input exceeds the context window of this model. Please adjust your input."
    f = tmp_path / "codex-out.jsonl"
    events = [{"type": "turn.started"}, {"type": "turn.failed", "error": {"message": said}}]
    f.write_text("".join(json.dumps(e) + "\n" for e in events))
    monkeypatch.setenv("FAKE_STDOUT", str(f))
    monkeypatch.setenv("FAKE_EXIT", "1")
    r, _ = _mini(tmp_path, suite_file, "openai", "cli")
    for d in _draws(r):
        assert (d.score, d.lost.kind) == (None, "context_window")
        assert d.lost.reason.startswith(f"codex reported an error: {said}")
        assert len(d.attempts) == 1
