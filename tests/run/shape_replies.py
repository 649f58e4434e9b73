"""Recorded response shapes for the issue 13 corpus (``test_shapes*.py``): Anthropic
``Message``, OpenAI ``ChatCompletion`` and ``Response`` bodies as the official references and
SDK types give them, and a one-case run through the loopback server (run_helpers)."""

from __future__ import annotations

import json

from run_helpers import COUNT_SYSTEM, SUITE, _texts, run_lane

from driftproof.receipt import read_receipt

ONE = {**SUITE, "cases": SUITE["cases"][:1]}


def _mini(tmp_path, suite_file, provider="anthropic", surface="api", *, suite=None, **cfg):
    suite_file.write_text(json.dumps(suite or ONE))
    cfg = {"min_draws": 1, "max_draws": 1, "judge_samples": 1, "concurrency": 1, **cfg}
    out = run_lane(tmp_path, provider, surface, **cfg)
    return read_receipt(out), json.loads(out.read_text())


def _draws(r):
    return r.cases[0].arms.with_skill.draws[0], r.cases[0].arms.baseline.draws[0]


def _message(text, *, stop="end_turn", usage=None, model="claude-sonnet-4-6", **extra):
    content = [{"type": "text", "text": text}] if text else []
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 120, "output_tokens": 20},
        **extra,
    } | ({} if usage else {COUNT_SYSTEM: True})


def _chat(content, *, finish="stop", usage=None, refusal=None):
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-5",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish,
                "logprobs": None,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
            }
        ],
        "usage": usage or {"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140},
    } | ({} if usage else {COUNT_SYSTEM: True})


def _response(output, *, status="completed", incomplete=None, usage=None, model="gpt-5"):
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "status": status,
        "model": model,
        "incomplete_details": incomplete,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage
        or {
            "input_tokens": 120,
            "output_tokens": 20,
            "total_tokens": 140,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    } | ({} if usage else {COUNT_SYSTEM: True})


#: Input tokens a baseline request reports fewer than the with-skill one under :func:`arm_usage`:
#: more than 80% of run_helpers.SKILL_TEXT's 22 o200k_base tokens, as a server that got the
#: skill in one arm only counts it.
BASELINE_FEWER = 25


def arm_usage(usage, path, body):
    """``usage`` for a with-skill request (a system prompt); a baseline request's has
    :data:`BASELINE_FEWER` fewer input tokens (its total too)."""
    if _texts(path, body)[0]:
        return usage
    key = "prompt_tokens" if "prompt_tokens" in usage else "input_tokens"
    out = {**usage, key: usage[key] - BASELINE_FEWER}
    if "total_tokens" in out:
        out["total_tokens"] -= BASELINE_FEWER
    return out


def _answers(fn):
    """A shape for answer calls only; judge calls get the normal (structured) grade."""
    return lambda path, body, is_judge, text: None if is_judge else fn(path, body, text)


def printed_by_fake(tmp_path, monkeypatch, name: str, text: str, *, code: int = 0) -> None:
    """The fake ``claude``/``codex`` executables print ``text`` (``@ANSWER@`` the scripted answer,
    a file ``name`` under ``tmp_path``) and exit ``code``."""
    f = tmp_path / name
    f.write_text(text)
    monkeypatch.setenv("FAKE_STDOUT", str(f))
    monkeypatch.setenv("FAKE_EXIT", str(code))


def claude_result(**over) -> dict:
    """A ``claude -p --output-format json`` success envelope, ``over`` replacing its members."""
    return {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 5,
        "num_turns": 1,
        "result": "@ANSWER@",
        "stop_reason": "end_turn",
        "session_id": "s",
        "total_cost_usd": 0.09,
        "usage": {"input_tokens": 900, "output_tokens": 1544},
        **over,
    }
