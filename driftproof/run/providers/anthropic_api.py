"""``anthropic`` × ``api``: the Messages API through the official ``anthropic`` SDK.

SDK retries are off (``max_retries=0``) so that every attempt is the runner's own, counted
when made; the base URL is the SDK's (``ANTHROPIC_BASE_URL``) unless given. The key is
checked when the lane is built, before the first call (``ANTHROPIC_API_KEY``, or
``ANTHROPIC_AUTH_TOKEN``).

Request building (:func:`build_request`: a :class:`Request` in, a request body out) and reply
reading (:func:`read_message`: a reply body in, a :class:`Reply` out) are plain functions so the
batch transport reuses them.
The judge grades through a forced tool call (channel ``tool_call``).
"""

from __future__ import annotations

from typing import Any

from driftproof.run.providers._sdk import SDKLane, count, member_dict, member_list, member_str
from driftproof.run.providers.base import Call, Reply, Request
from driftproof.run.reply_text import joined_reasoning, split_reasoning

__all__ = ["AnthropicAPI", "build_request", "read_message"]

TOOL_NAME = "record_grade"


def build_request(r: Request) -> dict[str, Any]:
    """The Messages API request body.

    With ``r.schema`` the reply must be a call of the ``record_grade`` tool whose input follows
    it (``tool_choice`` forces the tool).
    """
    req: dict[str, Any] = {
        "model": r.model,
        "max_tokens": r.max_tokens,
        "messages": [{"role": "user", "content": r.prompt}],
    }
    if r.system:
        req["system"] = r.system
    if r.schema is not None:
        req["tools"] = [
            {
                "name": TOOL_NAME,
                "description": "Record your grade of the answer.",
                "input_schema": r.schema,
            }
        ]
        req["tool_choice"] = {"type": "tool", "name": TOOL_NAME}
    return req


def read_message(msg: dict[str, Any], *, graded: bool = False) -> Reply:
    """A Messages API ``message`` object (as JSON) as a :class:`Reply`.

    Text blocks joined, a leading ``<think>`` block split off; ``thinking`` /
    ``redacted_thinking`` blocks kept apart as reasoning (D-19); ``stop_reason`` kept and read
    as the ending (lane ``anthropic``); ``refusal`` with ``stop_details.category`` and its
    explanation; input tokens = input + cache read + cache creation, parts kept; the
    ``record_grade`` tool input as the decision.
    """
    content = [b for b in member_list(msg, "content") if isinstance(b, dict)]
    text, think = split_reasoning(
        "".join(str(b.get("text") or "") for b in content if b.get("type") == "text")
    )
    thought = [
        str((b.get("thinking") if b.get("type") == "thinking" else b.get("data")) or "")
        for b in content
        if b.get("type") in ("thinking", "redacted_thinking")
    ]
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
            if b.get("type") == "tool_use" and b.get("name") == TOOL_NAME:
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
        lane="anthropic",
        ending=stop,
        reasoning=joined_reasoning(*thought, think),
        refusal=refusal,
        cache_read=cr,
        cache_creation=cc,
        decision=decision,
        channel=channel,
    )


class AnthropicAPI(SDKLane):
    """``anthropic`` × ``api``: Messages API, SKILL.md as the ``system`` parameter."""

    name, surface = "anthropic", "api"
    channel = "tool_call"
    keys = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

    @staticmethod
    def sdk() -> tuple[Any, type[Exception]]:
        """The ``anthropic`` client class and error base."""
        import anthropic

        return anthropic.Anthropic, anthropic.AnthropicError

    def attempt(self, call: Call) -> Reply:
        """One Messages API call (see :meth:`Provider.attempt`)."""
        create = self.client.messages.with_raw_response.create
        msg, body = self.post(create, build_request(call), call)
        return self.kept(read_message(msg, graded=call.schema is not None), body)
