"""Which endings of a reply mean "a complete final answer", per lane (D-19), and the classes
of every other ending. This module is data: ``driftproof run --help`` and the README print
:func:`table_lines`, and a test holds the README to it.

A reply is graded only when its lane's ending is in :attr:`Lane.complete` (the judge's: in
:attr:`Lane.judge_complete`, the ending of its structured channel). Any other ending loses the
draw with a class (:data:`CLASSES`): the ending's own class where the lane's table names one,
else ``unknown_ending``, quoting the provider's value. The suite's ``truncation: accepted``
applies to the output-budget class (kind ``truncated``) only.

Ending strings are the provider's own values: Anthropic ``stop_reason``; Chat ``finish_reason``;
Responses ``status``, ``incomplete:<incomplete_details.reason>`` when incomplete, and
``completed:<item type>`` when a completed response holds a tool call and no final message;
``claude -p`` ``success`` (``success:<stop_reason>`` when the result names one) or its error
subtype; ``codex exec --json`` the event that ended the turn.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CLASSES",
    "LANES",
    "Lane",
    "TRANSIENT",
    "UNKNOWN",
    "ending_reason",
    "lost_class",
    "table_lines",
]

#: Lost-draw kind of an ending no table names.
UNKNOWN = "unknown_ending"

#: Lost-draw kind of each class → its words (receipt ``lost.kind``; ``truncated`` is the
#: output budget, the one class ``truncation: accepted`` applies to).
CLASSES: dict[str, str] = {
    "truncated": "output budget",
    "context_window": "context window",
    "paused_turn": "paused turn",
    "server_abort": "aborted by the server",
    "content_filter": "content filter",
    "refusal": "refusal",
    "tool_call": "tool call with no answer",
    UNKNOWN: "unknown ending",
}

#: Classes a retry may cure: the attempt fails as transient and is retried within the
#: attempt budget (vLLM's ``abort`` after a server-side preemption or timeout).
TRANSIENT = frozenset({"server_abort"})


@dataclass(frozen=True)
class Lane:
    """One lane's table.

    Attributes:
        title: the lane in words.
        complete: endings of a complete final answer.
        judge_complete: endings of a complete judge decision (its structured channel).
        classes: every other ending this lane documents → its class (a key of
            :data:`CLASSES`); an ending in none of these is ``unknown_ending``.
    """

    title: str
    complete: tuple[str, ...]
    judge_complete: tuple[str, ...]
    classes: dict[str, str]


_ANTHROPIC = {
    "max_tokens": "truncated",
    "model_context_window_exceeded": "context_window",
    "pause_turn": "paused_turn",
    "refusal": "refusal",
    "tool_use": "tool_call",
}
_CHAT = {
    "length": "truncated",
    "content_filter": "content_filter",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
}

#: Lane key → table. Keys: ``anthropic`` (Messages API and its batches), ``chat`` (OpenAI Chat
#: Completions), ``responses`` (OpenAI Responses), ``compatible`` (Chat Completions on any other
#: base URL: vLLM, Ollama, llama.cpp's server, gateways), ``claude-cli``, ``codex-cli``.
LANES: dict[str, Lane] = {
    "anthropic": Lane(
        "Anthropic Messages API (and its batches)",
        ("end_turn", "stop_sequence"),
        ("tool_use",),
        _ANTHROPIC,
    ),
    "chat": Lane("OpenAI Chat Completions", ("stop",), ("stop",), _CHAT),
    "responses": Lane(
        "OpenAI Responses",
        ("completed",),
        ("completed",),
        {
            "incomplete:max_output_tokens": "truncated",
            "incomplete:content_filter": "content_filter",
            "completed:function_call": "tool_call",
            "completed:custom_tool_call": "tool_call",
        },
    ),
    "compatible": Lane(
        "OpenAI-compatible servers (vLLM, Ollama, llama.cpp)",
        ("stop",),
        ("stop",),
        {**_CHAT, "abort": "server_abort"},
    ),
    "claude-cli": Lane(
        "claude -p",
        ("success", "success:end_turn", "success:stop_sequence"),
        ("success", "success:end_turn", "success:stop_sequence", "success:tool_use"),
        {
            **{f"success:{k}": v for k, v in _ANTHROPIC.items()},
            "error_max_turns": "tool_call",
        },
    ),
    "codex-cli": Lane("codex exec --json", ("turn.completed",), ("turn.completed",), {}),
}


def lost_class(lane: str, ending: str | None, *, judge: bool = False) -> str | None:
    """The class of ``ending`` on ``lane``: ``None`` when it means a complete final answer
    (for ``judge``, a complete structured decision), else a key of :data:`CLASSES`.
    A missing ending (``None``) is never complete: ``unknown_ending``.

    Raises:
        KeyError: ``lane`` is not a key of :data:`LANES`.
    """
    t = LANES[lane]
    if ending is not None and ending in (t.judge_complete if judge else t.complete):
        return None
    return t.classes.get(ending or "", UNKNOWN)


def table_lines() -> list[str]:
    """The endings table in plain words, one line per lane and class (printed by
    ``run --help`` and the README)."""
    out = []
    for t in LANES.values():
        out.append(f"{t.title}: complete on {', '.join(t.complete)}")
        if t.judge_complete != t.complete:
            out.append(f"  a judge's grade: complete on {', '.join(t.judge_complete)}")
        by_class: dict[str, list[str]] = {}
        for ending, cls in t.classes.items():
            by_class.setdefault(cls, []).append(ending)
        for cls, endings in by_class.items():
            out.append(f"  {CLASSES[cls]}: {', '.join(endings)}")
        out.append("  any other ending: unknown ending, the provider's value quoted")
    return out


def ending_reason(cls: str, ending: str | None) -> str:
    """Why a reply of class ``cls`` is lost, quoting the provider's ``ending`` (untrusted:
    clipped to 100 characters)."""
    said = "no ending" if ending is None else repr(ending[:100])
    return f"{CLASSES[cls]}: the reply ended with {said}, not as a complete final answer"
