"""``anthropic`` × ``api``: the Messages API through the official ``anthropic`` SDK.

SDK retries are off (``max_retries=0``) so that every attempt is the runner's own, counted
when made; the base URL is the SDK's (``ANTHROPIC_BASE_URL``) unless given. The key is
checked when the lane is built, before the first call (``ANTHROPIC_API_KEY``, or
``ANTHROPIC_AUTH_TOKEN``).

Request building (:func:`build_request`) and reply reading (:func:`read_message`) are plain
functions (a request dict in, a :class:`Reply` out) so the batch transport reuses them.
The judge grades through a forced tool call (channel ``tool_call``).
"""

from __future__ import annotations

from typing import Any

from driftproof.run.providers._sdk import (
    count,
    member_dict,
    member_list,
    member_str,
    require_key,
    sdk_error,
)
from driftproof.run.providers._sdk import json_object as _json_object
from driftproof.run.providers.base import Call, Provider, Reply, strip_credentials

__all__ = ["AnthropicAPI", "build_request", "read_message"]

TOOL_NAME = "record_grade"
#: Stop reasons that mean the answer was cut off by a budget.
TRUNCATED = ("max_tokens", "model_context_window_exceeded")


def build_request(
    *,
    model: str,
    system: str | None,
    prompt: str,
    max_tokens: int,
    schema: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The Messages API request body. With ``schema`` the reply must be a call of the
    ``record_grade`` tool whose input follows it (``tool_choice`` forces the tool)."""
    req: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": prompt}],
    }
    if system:
        req["system"] = system
    if schema is not None:
        req["tools"] = [
            {
                "name": TOOL_NAME,
                "description": "Record your grade of the answer.",
                "input_schema": schema,
            }
        ]
        req["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
    return req


def read_message(msg: dict[str, Any], *, graded: bool = False) -> Reply:
    """A Messages API ``message`` object (as JSON) as a :class:`Reply`: text blocks joined;
    ``stop_reason`` kept; ``max_tokens`` / ``model_context_window_exceeded`` truncated;
    ``refusal`` with ``stop_details.category`` and its explanation; input tokens = input +
    cache read + cache creation, parts kept; the ``record_grade`` tool input as the decision."""
    content = member_list(msg, "content")
    text = "".join(
        str(b.get("text") or "") for b in content if isinstance(b, dict) and b.get("type") == "text"
    )
    stop = member_str(msg, "stop_reason")
    refusal = None
    if stop == "refusal":
        details = member_dict(msg, "stop_details")
        cat = details.get("category")
        refusal = {
            "text": text or member_str(details, "explanation"),
            "category": cat if isinstance(cat, str) else None,
        }
    decision, channel = None, None
    if graded:
        channel = "tool_call"
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == TOOL_NAME:
                decision = b.get("input")
                break
    u = member_dict(msg, "usage")
    inp, cr, cc = (
        count(u.get("input_tokens")),
        count(u.get("cache_read_input_tokens")),
        count(u.get("cache_creation_input_tokens")),
    )
    total = None if inp is None else inp + (cr or 0) + (cc or 0)
    model = member_str(msg, "model")
    return Reply(
        text,
        input_tokens=total,
        output_tokens=count(u.get("output_tokens")),
        reported_model=model,
        serving_model=model,
        stop_reason=stop,
        truncated=stop in TRUNCATED,
        refusal=refusal,
        cache_read=cr,
        cache_creation=cc,
        decision=decision,
        channel=channel,
    )


class AnthropicAPI(Provider):
    """``anthropic`` × ``api``: Messages API, SKILL.md as the ``system`` parameter."""

    name, surface = "anthropic", "api"
    channel = "tool_call"

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None) -> None:
        require_key(api_key, "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", lane="anthropic api")
        import anthropic

        self._errors = anthropic.AnthropicError
        self.client = anthropic.Anthropic(base_url=base_url, api_key=api_key, max_retries=0)
        self.service = strip_credentials(str(self.client.base_url))

    def attempt(self, call: Call) -> Reply:
        req = build_request(**call.request())
        try:
            # the raw response: its JSON is read as the API sent it, with no model built from it
            http = self.client.messages.with_raw_response.create(
                **req, timeout=call.timeout
            ).http_response
            body = http.text
        except self._errors as exc:
            raise sdk_error(exc, call.timeout) from exc
        reply = read_message(_json_object(body), graded=call.schema is not None)
        if self.keep_raw:
            reply.raw = body
        return reply

    def close(self) -> None:
        self.client.close()
