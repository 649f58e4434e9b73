"""``openai`` × ``api``: the Responses or Chat Completions API, any compatible server too.

Chat's output budget is sent in one spelling per host (``--budget-param``): ``auto`` sends
``max_completion_tokens`` to OpenAI and ``max_tokens`` elsewhere, and a 400 naming the
spelling is retried once with the other, kept from then on (``run.budget_param``).
"""

from __future__ import annotations

import json
from operator import attrgetter
from typing import Any

from driftproof._json import json_kind, member_list, member_object, member_str
from driftproof.run.endings import ENDING_TABLES, NATIVE_COMPLETE
from driftproof.run.providers._sdk import GRADE_TOOL, SDKLane, count, late_thought, said
from driftproof.run.providers.base import AttemptError, Call, Reply, Request
from driftproof.run.reply_text import (
    joined_reasoning,
    json_or_none,
    not_text,
    other_object,
    other_role,
    split_reasoning,
)

OPENAI_HOST = "api.openai.com"
HINT_404 = "the endpoint has no Responses API; run with --openai-api chat (Chat Completions)"


#: The two spellings of Chat Completions' output budget.
BUDGET_PARAMS = ("max_tokens", "max_completion_tokens")


def build_chat(r: Request, *, budget_param: str = "max_completion_tokens") -> dict[str, Any]:
    """The Chat Completions body, the budget sent as ``budget_param`` only."""
    msgs: list[dict[str, str]] = [{"role": "system", "content": r.system}] if r.system else []
    msgs.append({"role": "user", "content": r.prompt})
    req: dict[str, Any] = {"model": r.model, "messages": msgs, budget_param: r.max_tokens}
    if r.schema is not None:
        req["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": GRADE_TOOL, "strict": True, "schema": r.schema},
        }
    return req


def build_responses(r: Request) -> dict[str, Any]:
    """The Responses API request body."""
    req: dict[str, Any] = {"model": r.model, "input": r.prompt, "max_output_tokens": r.max_tokens}
    if r.system:
        req["instructions"] = r.system
    if r.schema is not None:
        grade = {"name": GRADE_TOOL, "strict": True, "schema": r.schema}
        req["text"] = {"format": {"type": "json_schema", **grade}}
    return req


#: Per API: the usage members counting input and output tokens (each with its ``*_details``
#: member holding the cached and the reasoning tokens), and the channel a grade comes back on.
_API = {
    "chat": ("prompt_tokens", "completion_tokens", "json_schema"),
    "responses": ("input_tokens", "output_tokens", "responses_format"),
}


def output_counts(u: dict[str, Any], inp: int | None, key: str) -> tuple[int | None, int | None]:
    """(output tokens, their reasoning part) of ``usage`` ``u``: output ``key``, ``inp`` input.

    OpenAI counts reasoning within the output; xAI outside it (its ``total_tokens`` is input,
    output and reasoning: reasoning "counted separately from completion_tokens, but … in the
    total_tokens"). When the total is exactly that sum, and not input plus output, the output
    given is the answer's only: the whole output is it plus the reasoning.
    """
    out = count(u.get(key))
    thought = count(member_object(u, f"{key}_details").get("reasoning_tokens"))
    total = count(u.get("total_tokens"))
    if out is None or not thought or inp is None or total is None:
        return out, thought
    if total == inp + out + thought:  # thought > 0, so never also input plus output
        return count(out + thought), thought
    return out, thought


def _reply(
    api: str,
    body: dict[str, Any],
    text: str,
    stop: str | None,
    *,
    lane: str,
    reasoning: str | None,
    refused: str | None,
    graded: bool,
    unread: str | None,
) -> Reply:
    """A Chat or Responses ``body`` as a :class:`Reply`; a grade: ``text`` parsed unless refused.

    Cached input tokens are kept only as a part of a reported input they do not exceed; the
    output is read by :func:`output_counts`.
    """
    refusal = None if refused is None else {"text": refused, "category": None}
    tokens_in, tokens_out, channel = _API[api]
    u = member_object(body, "usage")
    model = member_str(body, "model")
    inp = count(u.get(tokens_in))
    cached = count(member_object(u, f"{tokens_in}_details").get("cached_tokens"))
    out, thought = output_counts(u, inp, tokens_out)
    return Reply(
        text,
        input_tokens=inp,
        output_tokens=out,
        reported_model=model,
        serving_model=model,
        stop_reason=stop,
        lane=lane,
        ending=stop,
        reasoning=reasoning,
        refusal=refusal,
        # a cached part larger than the input it is part of is no count of it
        cache_read=cached if inp is not None and cached is not None and cached <= inp else None,
        reasoning_output=thought,
        decision=json_or_none(text) if graded and refusal is None else None,
        channel=channel if graded else None,
        unread=unread,
    )


def _content_parts(content: Any) -> tuple[str, list[str], str | None]:
    """A Chat message's ``content`` as (answer, reasoning pieces, why it cannot be read).

    A string is the answer, null an empty one; a list of Mistral's parts is ``thinking`` parts
    (reasoning, D-19) then ``text`` parts (the answer); any other part, or order, cannot be read.
    """
    if not isinstance(content, list):
        said = content if isinstance(content, str) else ""
        return said, [], None if content is None else not_text("the message's content", [content])
    texts, thought, kinds = [], [], []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            texts.append(part.get("text"))
        elif kind == "thinking":
            thought += [x for t in member_list(part, "thinking") if (x := member_str(t, "text"))]
        else:
            what = f"a part of type {kind[:100]!r}" if isinstance(kind, str) else json_kind(part)
            why = f"the message's content holds {what}, not a text or thinking part, so there is"
            return "", [], why + " nothing to grade"
        kinds.append(kind)
    answer_from = kinds.index("text") if "text" in kinds else len(kinds)
    if "thinking" in kinds[answer_from:]:
        holds = "the message's content holds a text part before a thinking part"
        return "", [], late_thought(holds, kinds)
    said = "".join(x for x in texts if isinstance(x, str))
    return said, thought, not_text("a text part's text", texts)


def _one_choice(c: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The one choice of a ``chat.completion`` ``c`` (``{}`` when none), and why it cannot be read.

    Not read (D-19): a body whose ``object`` is given and is not ``chat.completion`` (a streamed
    ``chat.completion.chunk``), more than one choice (the run asks for one), or a choice that is
    no object or whose ``index`` is not the integer 0.
    """
    nothing = "so there is nothing to grade"
    if other := other_object(c.get("object"), "chat.completion"):
        return {}, other
    choices = member_list(c, "choices")
    if len(choices) > 1:
        return {}, f"the reply holds {len(choices):,} choices where one was asked for, {nothing}"
    if not choices:
        return {}, None  # no choice, so no ending: an unknown ending
    choice = choices[0]
    if not isinstance(choice, dict):
        return {}, f"the reply's choice is {json_kind(choice)}, not an object, {nothing}"
    at = choice.get("index")
    if isinstance(at, bool) or not isinstance(at, int) or at != 0:
        said = "gives no index" if at is None else f"has index {json.dumps(at)[:40]}"
        return {}, f"the reply's one choice {said}, not 0, {nothing}"
    return choice, None


def _call_made(msg: dict[str, Any]) -> tuple[str | None, str | None]:
    """The call a Chat message makes (``tool_calls``, ``function_call`` or ``None``), and why not.

    Its calls cannot be read when ``tool_calls`` is not a list or null, or ``function_call`` not
    an object or null: whether it calls a tool cannot be told (D-19).
    """
    calls, fn = msg.get("tool_calls"), msg.get("function_call")
    why = "whether it calls a tool cannot be told, so there is nothing to grade"
    if calls is not None and not isinstance(calls, list):
        return None, f"the message's tool_calls is {json_kind(calls)}, not a list of calls; {why}"
    if fn is not None and not isinstance(fn, dict):
        return None, f"the message's function_call is {json_kind(fn)}, not an object; {why}"
    return ("tool_calls" if calls else "function_call" if fn is not None else None), None


def read_chat(c: dict[str, Any], *, graded: bool = False, compatible: bool = False) -> Reply:
    """A ``chat.completion`` as a :class:`Reply` (table ``compatible`` off OpenAI, else ``chat``).

    ``reasoning_content`` / ``reasoning``, thinking parts and a leading ``<think>`` are reasoning
    (D-19); a ``stop`` beside a tool or function call ends as ``stop:tool_calls`` /
    ``stop:function_call``; a complete ending beside a gateway's native one that is not in
    :data:`~driftproof.run.endings.NATIVE_COMPLETE` as ``<ending>:<native>``. A reply whose one
    choice (:func:`_one_choice`) or calls (:func:`_call_made`) cannot be read is
    :attr:`Reply.unread`.
    """
    choice, odd = _one_choice(c)
    msg = member_object(choice, "message")
    call, odd_call = _call_made(msg)
    said, parts_thought, unread = _content_parts(msg.get("content"))
    unread = odd or odd_call or other_role(msg.get("role")) or unread
    text, think = split_reasoning(said)
    stop = member_str(choice, "finish_reason")
    if stop == "stop" and call is not None:
        stop = f"stop:{call}"  # a call sent with "stop" (OpenAI's forced calls, older Ollama)
    native = choice.get("native_finish_reason")  # a gateway's upstream ending (OpenRouter's)
    if stop in ENDING_TABLES["compatible"].complete and native not in (None, *NATIVE_COMPLETE):
        stop = f"{stop}:{native if isinstance(native, str) else json.dumps(native)}"
    return _reply(
        "chat",
        c,
        text,
        stop,
        lane="compatible" if compatible else "chat",
        reasoning=joined_reasoning(
            member_str(msg, "reasoning_content"),
            member_str(msg, "reasoning"),
            *parts_thought,
            think,
        ),
        refused=member_str(msg, "refusal") or None,
        graded=graded,
        unread=unread,
    )


def _part_texts(item: dict[str, Any], kind: str, key: str) -> list[Any]:
    """The ``key`` member of each ``kind`` part of ``item``, whatever it holds."""
    return [
        p.get(key)
        for p in member_list(item, "content")
        if isinstance(p, dict) and p.get("type") == kind
    ]


#: The content part types of a Responses output message (``ResponseOutputMessage.content``).
MESSAGE_PARTS = ("output_text", "refusal")


def _odd_part(item: dict[str, Any]) -> str | None:
    """What a Responses message holds that is not a list of :data:`MESSAGE_PARTS`, in words."""
    content = item.get("content")
    if not isinstance(content, list):
        return f"content that is {json_kind(content)}, not a list of parts"
    for p in content:
        kind = p.get("type") if isinstance(p, dict) else None
        if kind not in MESSAGE_PARTS:
            if isinstance(kind, str):
                return f"a part of type {kind[:100]!r}, not an output_text or refusal part"
            return f"{json_kind(p)}, not an output_text or refusal part"
    return None


def read_response(r: dict[str, Any], *, graded: bool = False) -> Reply:
    """A Responses ``response`` as a :class:`Reply` (D-19).

    The ending is ``status``, ``<status>:<incomplete reason>``, ``completed:<item type>`` for any
    item but a message or reasoning, else ``completed:message_<status>`` for an unfinished answer
    message (one with no ``status`` is :attr:`Reply.unread`). The answer is the text of messages
    whose ``phase`` is ``final_answer`` or unset; other messages, reasoning items and a leading
    ``<think>`` are reasoning. A completed reply with a message part that is not one of
    :data:`MESSAGE_PARTS`, or a reasoning item after its last answer message (or a body whose
    ``object`` is not ``response``; a ``chat.completion`` adds :data:`HINT_404`) is
    :attr:`Reply.unread`.
    """
    texts, refusals, thought, calls, unfinished, odd, roles = [], [], [], [], [], [], []
    unread, answered, late = None, False, False
    for item in member_list(r, "output"):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "reasoning":
            late = answered  # until another answer message follows
            thought += [
                str(p.get("text") or "")
                for p in member_list(item, "summary") + member_list(item, "content")
                if isinstance(p, dict)
            ]
        elif kind == "message":
            roles.append(other_role(item.get("role")))
            said = _part_texts(item, "output_text", "text")
            if item.get("phase") in (None, "final_answer"):
                texts += said
                answered, late = True, False
                if item.get("status") != "completed":  # still being written, or not said
                    unfinished.append(item.get("status"))
            else:
                thought += [x for x in said if isinstance(x, str)]
            refusals += [x for x in _part_texts(item, "refusal", "refusal") if isinstance(x, str)]
            odd += [what for what in (_odd_part(item),) if what is not None]
        else:  # a tool call, or an item this lane does not know: no final answer (D-19)
            calls.append(str(kind))
    text, think = split_reasoning("".join(x for x in texts if isinstance(x, str)))
    status = member_str(r, "status")
    why = member_object(r, "incomplete_details").get("reason")
    stop = f"{status}:{why}" if isinstance(why, str) else status  # "completed:<why>" unknown
    if stop == "completed" and calls:  # the turn waits on the call, whatever text came first
        stop = f"completed:{calls[-1]}"
    elif stop == "completed" and odd:  # a part this lane does not read may hold the answer
        unread = f"a message of the reply holds {odd[0]}, so there is nothing to grade"
    elif stop == "completed" and late:  # the model reasoned again after its answer
        kinds = [str(i.get("type")) for i in member_list(r, "output") if isinstance(i, dict)]
        holds = "the reply's output holds a reasoning item after its last answer message"
        unread = late_thought(holds, kinds, "reasoning")
    elif stop == "completed" and None in unfinished:  # the server never said it is finished
        unsaid = "the answer message does not say it is finished (it gives no status), so there"
        unread = unsaid + " is nothing to grade"
    elif stop == "completed" and unfinished:
        stop = f"completed:message_{unfinished[-1]}"
    other = other_object(r.get("object"), "response")
    if other and r.get("object") == "chat.completion":  # the endpoint answered as Chat
        other = f"{other}; {HINT_404}"
    return _reply(
        "responses",
        r,
        text,
        stop,
        lane="responses",
        reasoning=joined_reasoning(*thought, think),
        refused="".join(refusals) if refusals else None,
        graded=graded,
        unread=other
        or not_text("an output_text part's text", texts)
        or next(filter(None, roles), None)
        or unread,
    )


def choice_error(c: dict[str, Any]) -> AttemptError | None:
    """The failed attempt a ``chat.completion`` ``c`` is when its first choice holds an ``error``.

    A gateway that lost its upstream part way sends the failure on the choice, status 200, beside
    what text came first (OpenRouter's ``choices[].error``, with ``finish_reason`` ``error`` or
    another): transient, quoting the error, the reply (its usage) kept. ``None`` otherwise.
    """
    first = (member_list(c, "choices") or [None])[0]
    err = first.get("error") if isinstance(first, dict) else None
    if err is None:
        return None
    why = f"the reply's choice is an error with status 200, not an answer: {said(err)}"
    return AttemptError(why, reply=read_chat(c))


class OpenAIAPI(SDKLane):
    """``openai`` × ``api``; SKILL.md as ``instructions`` (Responses) or a system message."""

    name, surface = "openai", "api"
    keys = ("OPENAI_API_KEY",)
    sdk = ("openai", "OpenAI", "OpenAIError")

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api: str = "responses",
        budget_param: str = "auto",
    ) -> None:
        """Build the client for ``api`` with budget spelling ``budget_param``.

        Raises:
            ValueError: an unknown ``api`` or ``budget_param``.
            MissingCredentials: no key.
        """
        if api not in ("responses", "chat"):
            raise ValueError("api must be 'responses' or 'chat'")
        if budget_param not in ("auto", *BUDGET_PARAMS):
            raise ValueError("budget_param must be 'auto', 'max_tokens' or 'max_completion_tokens'")
        super().__init__(base_url=base_url, api_key=api_key)
        self.api = api
        self.channel = _API[api][2]
        self.compatible = (self.client.base_url.host or "") != OPENAI_HOST
        self.endings = api if api == "responses" else "compatible" if self.compatible else "chat"
        self.auto_budget = budget_param == "auto"
        auto = "max_tokens" if self.compatible else "max_completion_tokens"
        #: the Chat Completions budget spelling sent now (``run.budget_param``)
        self.budget_param = auto if self.auto_budget else budget_param

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        """The API and the output budget under the name it is sent as."""
        if self.api == "responses":
            return {"api": "responses", "max_output_tokens": max_tokens}
        return {"api": "chat", self.budget_param: max_tokens}

    def attempt(self, call: Call) -> Reply:
        """One Responses or Chat call (see :meth:`Provider.attempt`)."""
        graded = call.schema is not None
        if self.api == "responses":
            create = attrgetter("responses.with_raw_response.create")
            obj, body, handoff = self.post(create, build_responses(call), call, hint_404=HINT_404)
            reply = read_response(obj, graded=graded)
            reply.handoff = handoff
            return self.kept(reply, body)
        create = attrgetter("chat.completions.with_raw_response.create")
        sent = self.budget_param
        try:
            obj, body, handoff = self.post(create, build_chat(call, budget_param=sent), call)
        except AttemptError as exc:
            if not (self.auto_budget and exc.status == 400 and sent in exc.reason):
                raise
            # the host refuses this spelling: once more with the other, kept from now on
            other = BUDGET_PARAMS[1 - BUDGET_PARAMS.index(sent)]
            obj, body, handoff = self.post(create, build_chat(call, budget_param=other), call)
            self.budget_param = other
        if (failed := choice_error(obj)) is not None:
            raise failed
        reply = read_chat(obj, graded=graded, compatible=self.compatible)
        reply.handoff = handoff
        return self.kept(reply, body)
