"""``anthropic`` × ``api``: the Messages API; a grade comes back as a forced tool call."""

from __future__ import annotations

import json
from operator import attrgetter
from typing import Any

from driftproof._json import json_kind, member_list, member_object, member_str
from driftproof.run.endings import lost_class
from driftproof.run.providers._sdk import GRADE_TOOL, SDKLane, anthropic_input, count, late_thought
from driftproof.run.providers.base import Call, Reply, Request
from driftproof.run.reply_text import (
    joined_reasoning,
    not_text,
    other_object,
    other_role,
    split_reasoning,
)


def build_request(r: Request) -> dict[str, Any]:
    """The Messages body; with ``r.schema`` the ``record_grade`` tool is forced."""
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
                "name": GRADE_TOOL,
                "description": "Record your grade of the answer.",
                "input_schema": r.schema,
            }
        ]
        req["tool_choice"] = {"type": "tool", "name": GRADE_TOOL}
    return req


#: The content blocks a Messages reply is read from: the answer, reasoning, and a call.
READ_BLOCKS = ("text", "thinking", "redacted_thinking", "tool_use")


def _unread_content(msg: dict[str, Any], ending: str | None, graded: bool) -> str | None:
    """Why a Messages reply's content cannot be read (D-19), else ``None``.

    A body whose ``type`` is given and is not ``message`` (a stream event) or whose ``role`` is
    given and is not ``assistant``, ``content`` that is no list of blocks; and, when ``ending``
    is complete (on the judge's table when ``graded``), a block that is no object, not of a
    :data:`READ_BLOCKS` type, or (``graded``) a call of another tool than ``record_grade``, or (an
    answer) a thinking block after its last text block (interleaved thinking between text blocks
    is read). An incomplete ending says why on its own.
    """
    if other := other_object(msg.get("type"), "message") or other_role(msg.get("role")):
        return other
    content = msg.get("content")
    if not isinstance(content, list):
        found = "missing" if "content" not in msg else json_kind(content)
        why = "expected a list of blocks, so there is nothing to grade"
        return f"the reply's content is {found}, {why}"
    if lost_class("anthropic", ending, judge=graded) is not None:
        return None
    for b in content:
        kind = b.get("type") if isinstance(b, dict) else None
        if not isinstance(b, dict):
            what = json_kind(b)
        elif kind not in READ_BLOCKS:
            what = (
                f"a block of type {kind[:100]!r}"
                if isinstance(kind, str)
                else "a block with no type"
            )
        elif graded and kind == "tool_use" and b.get("name") != GRADE_TOOL:
            what = f"a call of the tool {str(b.get('name'))[:100]!r}, not the grade tool"
        else:
            continue
        why = "so its grade is not read" if graded else "so there is nothing to grade"
        return f"the reply's content holds {what}, which is not read, {why}"
    kinds = [b["type"] for b in content]  # interleaved thinking between texts is read
    after = kinds[len(kinds) - kinds[::-1].index("text") :] if "text" in kinds else []
    if not graded and ("thinking" in after or "redacted_thinking" in after):
        holds = "the reply's content holds a thinking block after its last text block"
        return late_thought(holds, kinds)
    return None


def read_message(msg: dict[str, Any], *, graded: bool = False) -> Reply:
    """A Messages ``message`` as a :class:`Reply`.

    Thinking blocks (an empty one too: display ``omitted``) and a leading ``<think>`` are reasoning
    (D-19), ``usage.output_tokens_details.thinking_tokens`` its part of the output; a ``tool_use``
    block under ``end_turn`` or ``stop_sequence`` ends as ``<stop_reason>:tool_use``; a grade is the
    ``record_grade`` tool's input (two different ones: :attr:`Reply.unread`). Content that cannot be
    read (:func:`_unread_content`) is :attr:`Reply.unread`.
    """
    content = [b for b in member_list(msg, "content") if isinstance(b, dict)]
    said = [b.get("text") for b in content if b.get("type") == "text"]
    text, think = split_reasoning("".join(x for x in said if isinstance(x, str)))
    thought = [
        str((b.get("thinking") if b.get("type") == "thinking" else b.get("data")) or "")
        for b in content
        if b.get("type") in ("thinking", "redacted_thinking")
    ]
    stop = member_str(msg, "stop_reason")
    ending = stop
    called = any(b.get("type") == "tool_use" for b in content)
    if called and stop in ("end_turn", "stop_sequence"):
        ending = f"{stop}:tool_use"  # a gateway's end_turn beside a call (a forced one: a grade)
    refusal = None
    if stop == "refusal":
        details = member_object(msg, "stop_details")
        refusal = {
            "text": text or member_str(details, "explanation"),
            "category": member_str(details, "category"),
        }
    # two identical calls are one grade, alike as JSON text: a score of true and one of 1 are
    # two grades, which Python's == holds equal
    grades: dict[str, Any] = {}
    for b in content:
        if b.get("type") == "tool_use" and b.get("name") == GRADE_TOOL:
            grades.setdefault(json.dumps(b.get("input"), sort_keys=True), b.get("input"))
    unread = not_text("a text block's text", said)
    if graded and len(grades) > 1:
        unread = f"{len(grades)} different grades are recorded, so none of them counts"
    unread = _unread_content(msg, ending, graded) or unread
    u = member_object(msg, "usage")
    total, cr, cc = anthropic_input(u)
    model = member_str(msg, "model")
    return Reply(
        text,
        input_tokens=total,
        output_tokens=count(u.get("output_tokens")),
        reasoning_output=count(member_object(u, "output_tokens_details").get("thinking_tokens")),
        reported_model=model,
        serving_model=model,
        stop_reason=stop,
        lane="anthropic",
        ending=ending,
        reasoning=joined_reasoning(*thought, think),
        refusal=refusal,
        cache_read=cr,
        cache_creation=cc,
        decision=next(iter(grades.values())) if graded and len(grades) == 1 else None,
        unread=unread,
        channel="tool_call" if graded else None,
    )


class AnthropicAPI(SDKLane):
    """``anthropic`` × ``api``: Messages API, SKILL.md as the ``system`` parameter."""

    name, surface, endings = "anthropic", "api", "anthropic"
    channel = "tool_call"
    keys = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    sdk = ("anthropic", "Anthropic", "AnthropicError")

    def attempt(self, call: Call) -> Reply:
        """One Messages API call (see :meth:`Provider.attempt`)."""
        create = attrgetter("messages.with_raw_response.create")
        msg, body, handoff = self.post(create, build_request(call), call)
        reply = read_message(msg, graded=call.schema is not None)
        reply.handoff = handoff
        return self.kept(reply, body)
