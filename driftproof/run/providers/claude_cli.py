"""``anthropic`` × ``cli``: ``claude -p`` (Claude Code), isolated.

No user settings, MCP server, slash command or kept session; capture ``text`` allows only
Read, WebFetch and WebSearch, capture ``files`` adds Write, Edit and NotebookEdit (never a tool
that runs code). SKILL.md goes in through ``--system-prompt-file``. ``--verbose`` makes
``--output-format json`` print every message of the session, the result last: a text answer is
graded only when its result is known to be the whole answer (:func:`cut_short`).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from driftproof._json import json_kind, member_list, member_object, member_str
from driftproof.receipt._bounds import quote
from driftproof.run.endings import harness_ending
from driftproof.run.providers._sdk import anthropic_input, count
from driftproof.run.providers.base import (
    CONTEXT_WINDOW,
    CONTEXT_WINDOW_STATUSES,
    AttemptError,
    Call,
    Reply,
    classify_status,
    same_model,
)
from driftproof.run.providers.cli import FATAL, CLILane, status_of, stray_words
from driftproof.run.reply_text import json_or_none, split_reasoning
from driftproof.run.suite_fields import is_number

ISOLATION = [
    "--setting-sources",
    "project",
    "--strict-mcp-config",
    "--disable-slash-commands",
    "--no-session-persistence",
]
READ_TOOLS = ["Read", "WebFetch", "WebSearch"]
FILE_TOOLS = ["Write", "Edit", "NotebookEdit"]


def claude_envelope(
    out: str,
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], str | None, str | None]:
    """The last ``type: "result"`` element ``claude -p`` printed, the other events, a doubt, a line.

    Reads one JSON object, an array (``--verbose``) or JSON lines (``stream-json``); the result
    is ``None`` when there is none; the events are ``{type, subtype}``. The doubt (else ``None``)
    says why the result is not the session's one last word: two or more results, or an event
    printed after it. The line (else ``None``) is the first non-blank line of JSON lines that is
    no JSON object with a text ``type`` (a warning, or text that may be part of the answer).
    """
    items, stray = _items(out)
    if len(items) == 1 and isinstance(items[0], dict) and "result" in items[0]:
        return items[0], [], None, None  # one object: the result whatever its type
    typed = [k for k, it in enumerate(items) if _typed(it)]
    at = [k for k in typed if items[k]["type"] == "result"]
    doubt = None
    if len(at) > 1:
        doubt = (
            f"claude printed {len(at)} result objects; which one ends the session cannot be told"
        )
    elif at and (later := [items[k]["type"][:100] for k in typed if k > at[-1]]):
        doubt = (
            f"claude printed {len(later)} event{'s' if len(later) > 1 else ''} after its "
            f"result ({later[0]} first): the result is not the session's last word"
        )
    result, events = (items.pop(at[-1]) if at else None), []
    for it in items[:1000]:
        if _typed(it):
            sub = it.get("subtype")
            events.append(
                {"type": it["type"][:100], "subtype": sub[:100] if isinstance(sub, str) else None}
            )
    return result, events, doubt, stray


def _items(out: str) -> tuple[list[Any], str | None]:
    """The JSON values ``claude -p`` printed (one, an array's elements, or one a line), a line.

    The line (else ``None``) is the first non-blank line of JSON lines that is no event.
    """
    whole = json_or_none(out)
    if whole is not None:
        return (whole if isinstance(whole, list) else [whole]), None
    lines = [line for line in out.splitlines() if line.strip()]
    items = [json_or_none(line) for line in lines]
    return items, next((ln for ln, it in zip(lines, items, strict=True) if not _typed(it)), None)


def _typed(item: Any) -> bool:
    """Whether ``item`` is an event or result of ``claude -p``: an object with a text ``type``."""
    return isinstance(item, dict) and isinstance(item.get("type"), str)


#: ``claude -p`` error subtypes that end a finished session: read as the reply's ending (a
#: lost draw of its class, usage and cost kept), never retried.
SESSION_ENDINGS = ("error_max_turns", "error_max_budget_usd")
#: ``terminal_reason`` values of a result that mean its session's model call failed: an error,
#: classed by ``api_error_status`` (none: transient), even on a ``success`` subtype.
FAILED_TERMINALS = ("api_error", "model_error")


def _said(obj: dict[str, Any]) -> str:
    """An error envelope's own words: its ``result`` text, else its ``errors`` (300 characters)."""
    text = obj.get("result")
    if isinstance(text, str) and text.strip():
        return text[:300]
    said = [e for e in member_list(obj, "errors") if isinstance(e, str)]
    return "; ".join(said)[:300]


def _unreadable(obj: dict[str, Any]) -> str | None:
    """Why ``obj`` has nothing to grade (D-19): a ``modelUsage`` or ``result`` of another kind."""
    if "modelUsage" in obj and not isinstance(obj["modelUsage"], dict):  # absent: not checked
        return (
            f"claude's modelUsage is {json_kind(obj['modelUsage'])}, not an object naming the "
            "models used: which model answered cannot be checked, so there is nothing to grade"
        )
    if "result" in obj and obj["result"] is not None and not isinstance(obj["result"], str):
        return f"claude's result is {json_kind(obj['result'])}, not text: nothing to grade"
    return None


def read_claude(code: int, out: str, err: str, model: str) -> Reply:
    """One ``claude -p`` invocation as a :class:`Reply` (lane ``claude-cli``, D-19).

    The ending is ``success`` (``success:<stop_reason>``, one that is not text as JSON:
    ``success:null``, no model's answer), ``terminal_reason:<reason>`` for a ``success`` whose
    ``terminal_reason`` is given and is not ``completed``, a :data:`SESSION_ENDINGS` subtype, or
    none; a leading ``<think>`` block is reasoning; usage and cost are kept on every envelope.

    Raises:
        AttemptError: no result element, two or more, or an event printed after it (each
            transient, the last result's usage kept), or ``is_error``, an ``api_error_status``,
            a :data:`FAILED_TERMINALS` reason or another error subtype (the draw lost to the
            context window, never retried, when its words read as :data:`.base.CONTEXT_WINDOW`
            with no status or one of :data:`.base.CONTEXT_WINDOW_STATUSES`, or its terminal
            reason is ``prompt_too_long``; fatal when they read as :data:`.cli.FATAL`; else
            classed by the status it carries), quoting its ``result`` (else its ``errors``), with
            the envelope's usage and cost; or (fatal, usage kept) a line beside the JSON that is
            no JSON event (:func:`.cli.stray_words`); or (lost, not retried, usage kept) as
            :func:`_unreadable` says.
    """
    obj, events, doubt, stray = claude_envelope(out)
    if obj is None:
        said = err.strip()[-300:] or (
            f"stdout began {out.strip()[:200]!r}" if out.strip() else "it printed nothing"
        )
        raise AttemptError(f"claude exited with status {code} and no result object: {said}")
    subtype = member_str(obj, "subtype")
    reply = _claude_usage(obj, model, out, events)
    if doubt is not None:  # D-19: no one final result
        raise AttemptError(doubt, reply=reply)
    if subtype in SESSION_ENDINGS:
        reply.ending = subtype
        return reply
    terminal = member_str(obj, "terminal_reason")
    api_status = status_of({"status": obj.get("api_error_status")}, "")
    if (
        obj.get("is_error")
        or subtype not in (None, "success")
        or api_status is not None
        or terminal in FAILED_TERMINALS
    ):
        msg = _said(obj)
        status = status_of(obj, msg)
        named = f", terminal reason {terminal[:100]}" if terminal not in (None, "completed") else ""
        what = (
            "claude reported an error "
            f"({obj.get('subtype')}{named}{f', status {status}' if status else ''}): {msg}"
        )
        window = CONTEXT_WINDOW.search(msg) and status in (None, *CONTEXT_WINDOW_STATUSES)
        if terminal == "prompt_too_long" or window:  # this prompt only; a 5xx is retried
            raise AttemptError(
                what, retryable=False, status=status, kind="context_window", reply=reply
            )
        if FATAL.search(msg):  # every further call would meet it, whatever status it came with
            raise AttemptError(what, fatal=True, status=status, reply=reply)
        if status is not None or "overloaded_error" in msg:
            raise classify_status(status, what, reason=what, reply=reply)
        raise AttemptError(what, reply=reply)
    if stray is not None:  # printed beside every call alike (a banner, a wrapper): stop at once,
        # but Claude Code's own notice of a config file that parallel runs broke is retried
        raced = _CONFIG_RACE.match(stray.strip()) is not None
        raise AttemptError(stray_words("claude", stray), fatal=not raced, reply=reply)
    if (why := _unreadable(obj)) is not None:
        raise AttemptError(why, retryable=False, reply=reply)
    reply.text, reply.reasoning = split_reasoning(str(obj.get("result") or ""))
    if subtype == "success":  # an envelope that does not say success has no ending
        # absent: a claude -p older than the member; null: no model reply was received (Agent
        # SDK, "Stop reasons"); another kind, nothing it documents: each but text quoted as JSON
        stop = reply.stop_reason
        if "stop_reason" in obj and not isinstance(given := obj["stop_reason"], str):
            stop = json.dumps(given)[:100]
        reply.ending = harness_ending("claude-cli", stop)
        if terminal not in (None, "completed"):  # the session's loop ended another way
            reply.ending = f"terminal_reason:{terminal}"
    if "structured_output" in obj:
        reply.decision = obj.get("structured_output")
    return reply


#: :func:`cut_short` on a ``claude -p`` that printed no assistant message: as at every call, so
#: the run stops at once, saying what would mend it.
NO_SESSION = (
    "claude printed its result but none of the session's messages, so whether the result is the "
    "whole answer cannot be told: the claude lane needs a claude that prints them with --verbose; "
    "upgrade claude"
)

#: Why a result :func:`cut_short` cannot tell whole is not graded.
_NOTHING = ": whether it is the whole answer cannot be told, so there is nothing to grade"

#: What a session that wrote text in an earlier message can do: nothing marks it as no answer.
WRITES_FIRST = (
    "the claude lane grades the session's last message, so a session that writes text before "
    "calling a tool cannot be graded in text capture"
)


def cut_short(out: str) -> str | None:
    """Why the one result ``claude -p --verbose`` printed is not known whole (D-19), else ``None``.

    It is whole when it is, spaces aside, the text of the session's last assistant message (its
    events sharing one ``message.id``) and every text an earlier assistant message wrote is in
    it: ``result`` holds the last message only, so a closing line after a tool call, or a first
    fragment, would otherwise be graded as the answer.
    """
    items, _ = _items(out)
    said = [
        (member_str(member_object(it, "message"), "id"), _texts(member_object(it, "message")))
        for it in items
        if _typed(it) and it["type"] == "assistant"
    ]
    if not said:
        return NO_SESSION
    k = len(said) - 1
    while k > 0 and said[k][0] is not None and said[k - 1][0] == said[k][0]:
        k -= 1
    last = "".join(t for _, texts in said[k:] for t in texts)
    result: dict[str, Any] = next((it for it in items if _typed(it) and it["type"] == "result"), {})
    text = result["result"].strip() if isinstance(result.get("result"), str) else ""
    if last.strip() != text:
        return (
            f"claude's result ({quote(text)}) is not the whole text of the session's last "
            f"message ({quote(last.strip())}){_NOTHING}"
        )
    earlier = next((t for _, ts in said[:k] for t in ts if t.strip() not in text), None)
    if earlier is None:
        return None
    return (
        f"claude's session wrote {quote(earlier.strip())} in an earlier message, which its "
        f"result ({quote(text)}) does not hold{_NOTHING}; {WRITES_FIRST}"
    )


def _texts(message: dict[str, Any]) -> list[str]:
    """The text of each ``text`` block of an assistant ``message``'s content."""
    blocks = [b for b in member_list(message, "content") if isinstance(b, dict)]
    return [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]


#: Claude Code's notice, on a call, that ~/.claude.json was broken by claude processes writing it
#: at once (anthropics/claude-code#15608, #28898): a race of the moment, not a banner.
_CONFIG_RACE = re.compile(
    r"Config file corrupted, resetting to defaults|Claude configuration file at .* is corrupted"
)


#: Claude Code's model aliases; each names whichever model of its family Claude Code picks.
ALIASES = ("sonnet", "opus", "haiku")


def is_model(model: str, key: str) -> bool:
    """Whether ``modelUsage`` key ``key`` names the requested ``model`` (context tags dropped).

    An alias (:data:`ALIASES`) is any Claude id of its family; any other id is held to
    :func:`.base.same_model`.
    """
    want, got = model.split("[", 1)[0], key.split("[", 1)[0]
    if want in ALIASES:  # claude-sonnet-4-5-…, claude-3-5-sonnet-…, us.anthropic.claude-…
        return re.search(rf"(?:^|\.)claude-(?:[0-9-]+)?{want}(?:[-@]|$)", got) is not None
    return same_model(want, got)


def _claude_usage(obj: dict[str, Any], model: str, out: str, events: list[dict[str, Any]]) -> Reply:
    """A result envelope's usage, cost, models and events as a textless :class:`Reply`."""
    usage = member_object(obj, "usage")
    inp = cr = cc = None
    if count(usage.get("input_tokens")) is not None:
        inp, cr, cc = anthropic_input(usage)
    mu = member_object(obj, "modelUsage")
    ours = [k for k in mu if model and is_model(model, k)]
    others = [
        {
            "model": k,
            "input": count(member_object(mu, k).get("inputTokens")),
            "output": count(member_object(mu, k).get("outputTokens")),
        }
        for k in mu
        if k not in ours
    ]
    handoff = None
    if mu and not ours:
        handoff = "; ".join(
            f"{o['model']} ({o['input']} input, {o['output']} output tokens)" for o in others
        )
    cost = obj.get("total_cost_usd")
    return Reply(
        "",
        input_tokens=inp,
        output_tokens=count(usage.get("output_tokens")),
        reported_model=ours[0] if ours else None,
        serving_model=ours[0] if ours else None,
        cost_usd=float(cost) if is_number(cost) and cost >= 0 else None,
        other_models=others,
        handoff=handoff,
        raw=out,
        stop_reason=member_str(obj, "stop_reason"),
        lane="claude-cli",
        cache_read=cr,
        cache_creation=cc,
        harness_events=events or None,
    )


class ClaudeCLI(CLILane):
    """``anthropic`` × ``cli``: ``claude -p``."""

    name, harness_name, binary, endings = "anthropic", "claude-code", "claude", "claude-cli"

    def argv(self, call: Call, sysdir: str, work: str) -> list[str]:
        """The ``claude -p`` command line, isolated, with the capture's tools (see the module)."""
        tools = ",".join(READ_TOOLS + (FILE_TOOLS if self.capture == "files" else []))
        argv = [self.path, "-p", "--output-format", "json", "--verbose", "--model", call.model]
        argv += ISOLATION
        argv += ["--tools", tools, "--allowedTools", tools]
        if call.system:
            argv += ["--system-prompt-file", os.path.join(sysdir, "system.md")]
        if call.schema is not None:
            argv += ["--json-schema", json.dumps(call.schema, separators=(",", ":"))]
        return argv

    #: an invocation read by :func:`read_claude`
    parse = staticmethod(read_claude)

    def attempt(self, call: Call) -> Reply:
        """One invocation (:meth:`.cli.CLILane.attempt`); a text answer needs a whole result.

        An answer in capture ``text`` is graded only when :func:`cut_short` finds its result whole.

        Raises:
            AttemptError: as :meth:`.cli.CLILane.attempt`, or (lost, not retried, usage kept)
                the result cannot be told to be the whole answer (fatal: :data:`NO_SESSION`).
        """
        reply = super().attempt(call)
        graded = reply.ending_class(None) in (None, "truncated")
        if self.capture == "files" or call.schema is not None or not graded:
            return reply
        if (why := cut_short(reply.raw or "")) is None:
            return reply
        raise AttemptError(why, retryable=False, fatal=why == NO_SESSION, reply=reply)
