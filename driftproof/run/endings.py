"""Which endings of a reply mean a complete final answer, per lane, and the class of every other.

This is data (D-19): ``run --help`` and the README print :func:`table_lines`; :func:`lost_class`
reads it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.wording import ENDING_WORDS

#: Lost-draw kind of an ending no table names.
UNKNOWN = "unknown_ending"

#: Classes a retry may cure: the attempt fails as transient and is retried within the
#: attempt budget (vLLM's ``abort`` after a server-side preemption or timeout, its Responses
#: API's ``cancelled`` for the same, DeepSeek's ``insufficient_system_resource``: the request
#: interrupted for want of inference resources).
TRANSIENT = frozenset({"server_abort"})

#: Lanes that send the output budget and report output tokens against it (:func:`lost_class`).
#: Their output-budget ending is read against the reported output tokens: a server may lower
#: the budget to what its context window leaves and end as for the budget (vLLM's ``length``;
#: its Responses API's ``incomplete`` with reason ``max_output_tokens``, vllm-project/vllm
#: entrypoints/openai/responses/serving.py; its Messages API's ``max_tokens``,
#: entrypoints/anthropic/serving.py). And a complete ending whose reply reports exactly the
#: budget as output tokens is the output budget, as servers hide a budget cut behind a finished
#: ending (Ollama's ``/v1/responses`` said ``completed``: ollama/ollama#17239; vLLM's Responses
#: before vllm-project/vllm#24561; a LiteLLM proxy over Ollama said ``stop``, ``end_turn`` on its
#: Messages route: BerriAI/litellm#25825).
BUDGET_CHECKED = frozenset({"anthropic", "chat", "compatible", "responses"})

#: Lanes whose output tokens may hold reasoning the reply neither shows nor counts: no answer
#: count is read from them unless the reply counts its reasoning (D-19). Claude Code thinks by
#: default on some models ("Sonnet 4.5 and Opus 4.5 have thinking enabled by default") and
#: ``claude -p`` reports no thinking tokens; ``codex exec --json`` reports input, cached input
#: and output tokens only (codex-rs/exec exec_events.rs), its reasoning items being summaries.
HIDDEN_REASONING = frozenset({"claude-cli", "codex-cli"})

#: An output-budget stop on :data:`BUDGET_CHECKED` lanes is the output budget only when the reply
#: reported at least this share of the budget as output tokens (a budget cut reports the budget
#: itself, less a special token; a full context window reports far less).
BUDGET_REACHED_SHARE = 0.9


@dataclass(frozen=True)
class EndingTable:
    """One lane's table: ``complete`` and ``judge_complete`` endings, and ``classes``.

    ``classes`` maps every other ending the lane documents to a lost-draw kind (receipt
    ``lost.kind``, a key of :data:`~driftproof.wording.ENDING_WORDS`).
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
    "stop:tool_calls": "tool_call",
    "stop:function_call": "tool_call",
}

#: The Responses API's output items of a turn that calls a tool: a call (the model's, or a
#: hosted tool's the server ran), a call's output, or an MCP approval step (``ResponseOutputItem``).
RESPONSES_TOOL_ITEMS = (
    *(
        "function_call custom_tool_call web_search_call file_search_call computer_call"
        " code_interpreter_call image_generation_call local_shell_call mcp_call mcp_list_tools"
        " mcp_approval_request mcp_approval_response shell_call apply_patch_call tool_search_call"
        " program"
    ).split(),
    *(
        f"{call}_output"
        for call in (
            "function_call custom_tool_call computer_call local_shell_call shell_call"
            " apply_patch_call tool_search program"
        ).split()
    ),
)

#: Lane key → table. Keys: ``anthropic`` (Messages API and its batches), ``chat`` (OpenAI Chat
#: Completions), ``responses`` (OpenAI Responses), ``compatible`` (Chat Completions on any other
#: base URL: vLLM, Ollama, llama.cpp's server, DeepSeek, gateways), ``claude-cli``, ``codex-cli``.
ENDING_TABLES: dict[str, EndingTable] = {
    "anthropic": EndingTable(
        "Anthropic Messages API (and its batches)",
        ("end_turn", "stop_sequence"),
        # the forced grade tool's call; a server that forces it as OpenAI's named tool choice
        # ends it as OpenAI does, "stop", sent as end_turn (vLLM's Messages endpoint)
        ("tool_use", "end_turn:tool_use", "stop_sequence:tool_use"),
        {**_ANTHROPIC, "end_turn:tool_use": "tool_call", "stop_sequence:tool_use": "tool_call"},
    ),
    "chat": EndingTable("OpenAI Chat Completions", ("stop",), ("stop",), _CHAT),
    "responses": EndingTable(
        "OpenAI Responses",
        ("completed",),
        ("completed",),
        {
            "incomplete:max_output_tokens": "truncated",
            "incomplete:content_filter": "content_filter",
            **{f"completed:{item}": "tool_call" for item in RESPONSES_TOOL_ITEMS},
            "completed:message_incomplete": "unfinished_answer",
            "completed:message_in_progress": "unfinished_answer",
            # vLLM's status for a request its engine aborted (its Chat Completions' "abort")
            "cancelled": "server_abort",
        },
    ),
    "compatible": EndingTable(
        "OpenAI-compatible servers (vLLM, Ollama, llama.cpp, TGI, DeepSeek, Mistral, Together)",
        ("stop", "eos_token", "eos"),  # TGI's natural end before it spelled it "stop"; Together's
        ("stop", "eos_token", "eos"),
        {
            **_CHAT,
            "model_length": "context_window",  # Mistral's: the model's context window is full
            "abort": "server_abort",
            "insufficient_system_resource": "server_abort",
        },
    ),
    "claude-cli": EndingTable(
        "claude -p",
        ("success", "success:end_turn", "success:stop_sequence"),
        ("success", "success:end_turn", "success:stop_sequence", "success:tool_use"),
        {
            **{f"success:{k}": v for k, v in _ANTHROPIC.items()},
            "error_max_turns": "tool_call",
            "terminal_reason:max_turns": "tool_call",
            "terminal_reason:prompt_too_long": "context_window",
        },
    ),
    "codex-cli": EndingTable(
        "codex exec --json",
        ("turn.completed",),
        ("turn.completed",),
        {
            f"turn.completed:{item}": "tool_call"
            for item in (
                "command_execution file_change mcp_tool_call collab_tool_call web_search todo_list"
            ).split()
        },
    ),
}


#: A gateway's native ending, beside the one it sends in OpenAI's words, that also says the answer
#: is complete: OpenRouter's ``native_finish_reason`` ("the raw finish_reason string returned by
#: the model", its API reference) is the upstream's own: a complete ending of the API tables above
#: but ``stop_sequence`` (a run sends none), or Gemini's ``STOP`` ("natural stop point of the
#: model or provided stop sequence"), or Cohere's ``COMPLETE`` (its Chat API reference: "the
#: model sent back a finished reply"). Any other (``MAX_TOKENS``, ``length``) ends the reply as
#: ``<ending>:<native>`` (reVrost/go-openrouter#43: ``stop`` beside ``MAX_TOKENS``).
NATIVE_COMPLETE = frozenset(
    {"stop", "eos", "eos_token", "end_turn", "completed", "STOP", "COMPLETE"}
)


#: The word a command-line harness ends a finished turn with (its ending, alone or before ``:``).
HARNESS_FINISHED = {"claude-cli": "success", "codex-cli": "turn.completed"}


def harness_ending(lane: str, after: str | None) -> str:
    """The ending of a finished turn on the harness ``lane``, ``after`` it when said.

    ``after`` is claude -p's stop reason, or codex's last item type when not a message.

    Raises:
        KeyError: ``lane`` is not a key of :data:`HARNESS_FINISHED`.
    """
    return HARNESS_FINISHED[lane] if after is None else f"{HARNESS_FINISHED[lane]}:{after}"


def lost_class(
    lane: str,
    ending: str | None,
    *,
    judge: bool = False,
    output_tokens: int | None = None,
    budget: int | None = None,
) -> str | None:
    """The class of ``ending`` on ``lane``, ``None`` when complete (for ``judge``, its channel's).

    A missing ending is ``unknown_ending``. On :data:`BUDGET_CHECKED` lanes a complete ending
    with ``output_tokens`` equal to ``budget`` is ``truncated``, and ``truncated`` needs
    ``output_tokens`` to reach :data:`BUDGET_REACHED_SHARE` of ``budget`` (tokens); below it is
    ``context_window``, unknown is ``length_unknown``.

    Raises:
        KeyError: ``lane`` is not a key of :data:`ENDING_TABLES`.
    """
    t = ENDING_TABLES[lane]
    if ending is not None and ending in (t.judge_complete if judge else t.complete):
        at_budget = budget is not None and output_tokens == budget
        return "truncated" if lane in BUDGET_CHECKED and at_budget else None
    cls = t.classes.get(ending or "", UNKNOWN)
    if cls == "truncated" and lane in BUDGET_CHECKED:
        if output_tokens is None or budget is None:
            return "length_unknown"
        if output_tokens < BUDGET_REACHED_SHARE * budget:
            return "context_window"
    return cls


def hidden_cut(lane: str | None, ending: str | None, *, judge: bool = False) -> bool:
    """Whether a ``truncated`` reply on ``lane`` ended as complete (its budget reported exactly).

    True when ``lane`` is in :data:`BUDGET_CHECKED` and ``ending`` is complete on its table (the
    judge's when ``judge``): the server called the reply finished, :func:`lost_class` a cut.
    """
    return lane in BUDGET_CHECKED and lost_class(lane, ending, judge=judge) is None


#: The widest line of :func:`table_lines`: ``run --help`` indents its epilog 2, and 77 + 2 fit
#: an 80-column terminal with a column to spare (79), as the README's text block does.
TABLE_WIDTH = 77


def _wrapped(head: str, endings: Sequence[str] = ()) -> list[str]:
    """``head`` then ``endings`` comma-separated, wrapped at :data:`TABLE_WIDTH` at spaces.

    The endings continue under the first of them; a line with no list, or whose list starts too
    far in for its longest ending, continues four spaces further in than the line.
    """
    body = head.lstrip(" ")
    indent = len(head) - len(body)
    hang = len(head)
    if not endings or hang + max(len(e) + 1 for e in endings) > TABLE_WIDTH:
        hang = indent + 4
    return textwrap.wrap(
        body + ", ".join(endings),
        width=TABLE_WIDTH,
        initial_indent=" " * indent,
        subsequent_indent=" " * hang,
        break_long_words=False,
        break_on_hyphens=False,
    )


def table_lines() -> list[str]:
    """The endings table in plain words, one entry per lane and class (``run --help``, README).

    Each entry is wrapped at :data:`TABLE_WIDTH` characters, its endings under the first.
    """
    out = []
    for key, t in ENDING_TABLES.items():
        out += _wrapped(f"{t.title}: complete on ", t.complete)
        if t.judge_complete != t.complete:
            out += _wrapped("  a judge's grade: complete on ", t.judge_complete)
        by_class: dict[str, list[str]] = {}
        for ending, cls in t.classes.items():
            by_class.setdefault(cls, []).append(ending)
        for cls, endings in by_class.items():
            out += _wrapped(f"  {ENDING_WORDS[cls]}: ", endings)
        if key in BUDGET_CHECKED:
            out += _wrapped(
                "  a complete ending is the output budget when the reply reports exactly the "
                "budget as output tokens (a server that hides its budget cut; an answer "
                "that ends on the budget's last token is lost with it)"
            )
            cut = ", ".join(e for e, cls in t.classes.items() if cls == "truncated")
            out += _wrapped(
                f"  {cut} is the output budget only when the reply reports at least "
                f"{BUDGET_REACHED_SHARE:.0%} of the budget as output tokens; well below it, the "
                "context window; with no output tokens reported, an unknown length stop"
            )
        if key in ("chat", "compatible"):
            out += _wrapped(
                "  a gateway's own ending for the model beside it (OpenRouter's) must be "
                "complete too: " + ", ".join(sorted(NATIVE_COMPLETE)) + "; another is added "
                "after a colon (stop:MAX_TOKENS)"
            )
        out.append("  any other ending: unknown ending, the provider's value quoted")
    return out


def ending_reason(
    cls: str, ending: str | None, *, output_tokens: int | None = None, budget: int | None = None
) -> str:
    """Why a reply of class ``cls`` is lost, quoting ``ending`` (untrusted, clipped to 100 chars).

    An output-budget ending read as the context window states ``output_tokens`` against ``budget``.
    """
    said = "no ending" if ending is None else repr(ending[:100])
    why = f"{ENDING_WORDS[cls]}: the reply ended with {said}"
    cut = any(t.classes.get(ending or "") == "truncated" for t in ENDING_TABLES.values())
    if cls == "context_window" and cut and output_tokens is not None and budget:
        why += f" after {output_tokens:,} output tokens, well below the output budget of {budget:,}"
    return why + ", not as a complete final answer"
