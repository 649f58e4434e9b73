"""Which endings of a reply mean "a complete final answer", per lane (D-19).

And the classes of every other ending. This module is data: ``driftproof run --help`` and the README
print :func:`table_lines`, and a test holds the README to it.

A reply is graded only when its lane's ending is in :attr:`Lane.complete` (the judge's: in
:attr:`Lane.judge_complete`, the ending of its structured channel). Any other ending loses the
draw with a class (:data:`CLASSES`): the ending's own class where the lane's table names one,
else ``unknown_ending``, quoting the provider's value. The suite's ``truncation: accepted``
applies to the output-budget class (kind ``truncated``) only.

On Chat Completions (OpenAI's and compatible servers') ``length`` names any length stop: vLLM,
Ollama and llama.cpp also answer ``length`` when the prompt and the answer filled the context
window. There it is an output-budget cut only when the reported output tokens reach
:data:`BUDGET_REACHED_SHARE` of the requested budget; well below it, it is the context window;
with no output tokens reported it cannot be told apart and is lost as ``length_unknown``
(fail closed, D-19).

Ending strings are the provider's own values: Anthropic ``stop_reason``; Chat ``finish_reason``;
Responses ``status``, ``incomplete:<incomplete_details.reason>`` when incomplete, and
``completed:<item type>`` when a completed response holds a tool call and no final message;
``claude -p`` ``success`` (``success:<stop_reason>`` when the result names one) or its error
subtype; ``codex exec --json`` the event that ended the turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.wording import ENDING_WORDS

__all__ = [
    "BUDGET_REACHED_SHARE",
    "CLASSES",
    "LANES",
    "LENGTH_CHECKED",
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
CLASSES: dict[str, str] = ENDING_WORDS

#: Classes a retry may cure: the attempt fails as transient and is retried within the
#: attempt budget (vLLM's ``abort`` after a server-side preemption or timeout).
TRANSIENT = frozenset({"server_abort"})

#: Lanes whose ``length`` ending is read against the reported output tokens (see above).
LENGTH_CHECKED = frozenset({"chat", "compatible"})

#: A ``length`` stop on :data:`LENGTH_CHECKED` lanes is the output budget only when the reply
#: reported at least this share of the requested budget as output tokens. A server counts its
#: output against the budget it was sent with its own tokenizer, so a budget cut reports the
#: budget itself; the 10% margin absorbs servers that count a special token apart, and a
#: context-window stop (the prompt filled the window) reports far less.
BUDGET_REACHED_SHARE = 0.9


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


def lost_class(
    lane: str,
    ending: str | None,
    *,
    judge: bool = False,
    output_tokens: int | None = None,
    budget: int | None = None,
) -> str | None:
    """The class of ``ending`` on ``lane``.

    ``None`` when it means a complete final answer (for ``judge``, a complete structured
    decision), else a key of :data:`CLASSES`. A missing ending (``None``) is never complete:
    ``unknown_ending``. On :data:`LENGTH_CHECKED` lanes a ``truncated`` ending is the output
    budget only when ``output_tokens`` (reported) reach :data:`BUDGET_REACHED_SHARE` of
    ``budget`` (requested, tokens); below it ``context_window``; either unknown,
    ``length_unknown``.

    Raises:
        KeyError: ``lane`` is not a key of :data:`LANES`.
    """
    t = LANES[lane]
    if ending is not None and ending in (t.judge_complete if judge else t.complete):
        return None
    cls = t.classes.get(ending or "", UNKNOWN)
    if cls == "truncated" and lane in LENGTH_CHECKED:
        if output_tokens is None or budget is None:
            return "length_unknown"
        if output_tokens < BUDGET_REACHED_SHARE * budget:
            return "context_window"
    return cls


def table_lines() -> list[str]:
    """The endings table in plain words, one line per lane and class.

    ``run --help`` and the README print it.
    """
    out = []
    for key, t in LANES.items():
        out.append(f"{t.title}: complete on {', '.join(t.complete)}")
        if t.judge_complete != t.complete:
            out.append(f"  a judge's grade: complete on {', '.join(t.judge_complete)}")
        by_class: dict[str, list[str]] = {}
        for ending, cls in t.classes.items():
            by_class.setdefault(cls, []).append(ending)
        for cls, endings in by_class.items():
            out.append(f"  {CLASSES[cls]}: {', '.join(endings)}")
        if key in LENGTH_CHECKED:
            out.append(
                "  length is the output budget only when the reply reports at least "
                f"{BUDGET_REACHED_SHARE:.0%} of the budget as output tokens; well below it, the "
                "context window; with no output tokens reported, an unknown length stop"
            )
        out.append("  any other ending: unknown ending, the provider's value quoted")
    return out


def ending_reason(
    cls: str, ending: str | None, *, output_tokens: int | None = None, budget: int | None = None
) -> str:
    """Why a reply of class ``cls`` is lost, quoting the provider's ``ending``.

    The ending is untrusted and clipped to 100 characters. A ``length`` read as the context
    window states the reported ``output_tokens`` against the requested ``budget``.
    """
    said = "no ending" if ending is None else repr(ending[:100])
    why = f"{CLASSES[cls]}: the reply ended with {said}"
    if cls == "context_window" and ending == "length" and output_tokens is not None and budget:
        why += f" after {output_tokens:,} output tokens, well below the output budget of {budget:,}"
    return why + ", not as a complete final answer"
