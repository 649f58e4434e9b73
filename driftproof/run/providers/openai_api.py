"""``openai`` × ``api``: the Responses or Chat Completions API.

Through the official ``openai`` SDK, and any OpenAI-compatible server (vLLM, llama.cpp's server,
Ollama, gateways) through ``--base-url``.

SDK retries are off (``max_retries=0``) so that every attempt is the runner's own, counted
when made; the base URL is the SDK's (``OPENAI_BASE_URL``) unless given, and is recorded,
credentials stripped, for every arm. The key (``OPENAI_API_KEY``) is checked when the lane is
built, before the first call; a local server that wants none takes any value.

Output budget: the Responses API takes ``max_output_tokens``. Chat Completions is sent one
spelling, chosen per host (``budget_param``, ``--budget-param``): ``auto`` sends
``max_completion_tokens`` to OpenAI's own service (its reasoning models refuse ``max_tokens``)
and ``max_tokens`` to any other base URL (OpenAI-compatible servers often honour only that
one); under ``auto`` a 400 whose error names the spelling sent is retried once, within the
same attempt, with the other, which the lane then keeps (an Azure-style endpoint refuses
``max_tokens``). The spelling used is recorded (``run.budget_param``). A reply with more
output tokens than the budget is flagged ``over_budget``.

Endings (D-19): Chat ``finish_reason`` is read against the ``chat`` table on OpenAI's service
and the ``compatible`` table elsewhere (vLLM's ``abort``); Responses ``status`` against
``responses``. Reasoning is kept apart from the answer: Chat ``reasoning_content`` (DeepSeek,
older vLLM) and ``reasoning`` (vLLM, Ollama) members and a leading ``<think>`` block of
``content``; Responses ``reasoning`` items and message items whose ``phase`` is not
``final_answer`` (a preamble such as ``commentary``). A grade is read from the final answer
only.

A 404 on the Responses API that is not an unknown model names ``--openai-api chat`` as the
fix: most compatible servers have only Chat Completions.

Request building (:func:`build_chat`, :func:`build_responses`: a :class:`Request` in, a request
body out) and reply reading (:func:`read_chat`, :func:`read_response`: a reply body in, a
:class:`Reply` out) are plain functions so the batch transport reuses them. The judge grades through
``response_format`` json_schema strict (Chat, channel ``json_schema``) or ``text.format``
(Responses, channel ``responses_format``).
"""

from __future__ import annotations

from typing import Any

from driftproof.run.providers._sdk import SDKLane, count, member_dict, member_list, member_str
from driftproof.run.providers.base import AttemptError, Call, Reply, Request
from driftproof.run.reply_text import joined_reasoning, json_or_none, split_reasoning

__all__ = ["OpenAIAPI", "build_chat", "build_responses", "read_chat", "read_response"]

SCHEMA_NAME = "record_grade"
OPENAI_HOST = "api.openai.com"
HINT_404 = "the endpoint has no Responses API; run with --openai-api chat (Chat Completions)"


#: The two spellings of Chat Completions' output budget.
BUDGET_PARAMS = ("max_tokens", "max_completion_tokens")


def build_chat(r: Request, *, budget_param: str = "max_completion_tokens") -> dict[str, Any]:
    """The Chat Completions request body.

    The output budget sent as ``budget_param`` (one of :data:`BUDGET_PARAMS`) only.
    """
    msgs: list[dict[str, str]] = [{"role": "system", "content": r.system}] if r.system else []
    msgs.append({"role": "user", "content": r.prompt})
    req: dict[str, Any] = {"model": r.model, "messages": msgs, budget_param: r.max_tokens}
    if r.schema is not None:
        req["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": r.schema},
        }
    return req


def build_responses(r: Request) -> dict[str, Any]:
    """The Responses API request body."""
    req: dict[str, Any] = {"model": r.model, "input": r.prompt, "max_output_tokens": r.max_tokens}
    if r.system:
        req["instructions"] = r.system
    if r.schema is not None:
        req["text"] = {
            "format": {
                "type": "json_schema",
                "name": SCHEMA_NAME,
                "strict": True,
                "schema": r.schema,
            }
        }
    return req


#: Per API: the usage members counting input and output tokens (each with its ``*_details``
#: member holding the cached and the reasoning tokens), and the channel a grade comes back on.
_API = {
    "chat": ("prompt_tokens", "completion_tokens", "json_schema"),
    "responses": ("input_tokens", "output_tokens", "responses_format"),
}


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
) -> Reply:
    """The :class:`Reply` of a Chat Completions or Responses ``body``.

    The ending is ``stop`` on ``lane``'s table; a refusal with the ``refused`` text (no category);
    ``reasoning`` kept apart; the usage counts read under ``api``'s names; the decision parsed
    from the final answer ``text`` when ``graded`` and not refused.
    """
    refusal = None if refused is None else {"text": refused, "category": None}
    tokens_in, tokens_out, channel = _API[api]
    u = member_dict(body, "usage")
    model = member_str(body, "model")
    return Reply(
        text,
        input_tokens=count(u.get(tokens_in)),
        output_tokens=count(u.get(tokens_out)),
        reported_model=model,
        serving_model=model,
        stop_reason=stop,
        lane=lane,
        ending=stop,
        reasoning=reasoning,
        refusal=refusal,
        cache_read=count(member_dict(u, f"{tokens_in}_details").get("cached_tokens")),
        reasoning_output=count(member_dict(u, f"{tokens_out}_details").get("reasoning_tokens")),
        decision=json_or_none(text) if graded and refusal is None else None,
        channel=channel if graded else None,
    )


def read_chat(c: dict[str, Any], *, graded: bool = False, compatible: bool = False) -> Reply:
    """A ``chat.completion`` (as JSON) as a :class:`Reply`.

    ``finish_reason`` kept as the ending (table ``compatible`` for a non-OpenAI base URL, else
    ``chat``); ``message.refusal`` a refusal; ``reasoning_content`` / ``reasoning`` and a
    leading ``<think>`` block of ``content`` kept apart as reasoning; input = ``prompt_tokens``
    with ``cached_tokens`` of it, reasoning tokens of the output kept.
    """
    choices = member_list(c, "choices")
    choice = choices[0] if choices and isinstance(choices[0], dict) else {}
    msg = member_dict(choice, "message")
    text, think = split_reasoning(member_str(msg, "content") or "")
    return _reply(
        "chat",
        c,
        text,
        member_str(choice, "finish_reason"),
        lane="compatible" if compatible else "chat",
        reasoning=joined_reasoning(
            member_str(msg, "reasoning_content"), member_str(msg, "reasoning"), think
        ),
        refused=member_str(msg, "refusal") or None,
        graded=graded,
    )


def _part_texts(item: dict[str, Any], kind: str, key: str) -> list[str]:
    return [
        p[key]
        for p in member_list(item, "content")
        if isinstance(p, dict) and p.get("type") == kind and isinstance(p.get(key), str)
    ]


def read_response(r: dict[str, Any], *, graded: bool = False) -> Reply:
    """A Responses API ``response`` (as JSON) as a :class:`Reply`.

    The ending is the ``status`` (``incomplete:<incomplete_details.reason>`` when incomplete;
    ``completed:<item type>`` when a completed response holds a ``function_call`` /
    ``custom_tool_call`` and no final answer); the answer is the ``output_text`` of message
    items whose ``phase`` is ``final_answer`` or unset, a leading ``<think>`` block split off;
    other messages (``commentary``) and ``reasoning`` items (summary and content text) are
    reasoning; a ``refusal`` content part a refusal; usage with ``cached_tokens`` and
    ``reasoning_tokens`` kept apart.
    """
    texts, refusals, thought, calls = [], [], [], []
    for item in member_list(r, "output"):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "reasoning":
            thought += [
                str(p.get("text") or "")
                for p in member_list(item, "summary") + member_list(item, "content")
                if isinstance(p, dict)
            ]
        elif kind == "message":
            said = _part_texts(item, "output_text", "text")
            if item.get("phase") in (None, "final_answer"):
                texts += said
            else:
                thought += said
            refusals += _part_texts(item, "refusal", "refusal")
        elif kind in ("function_call", "custom_tool_call"):
            calls.append(kind)
    text, think = split_reasoning("".join(texts))
    status = member_str(r, "status")
    why = member_dict(r, "incomplete_details").get("reason")
    stop = f"{status}:{why}" if status == "incomplete" and isinstance(why, str) else status
    if status == "completed" and calls and not text.strip() and not refusals:
        stop = f"completed:{calls[-1]}"
    return _reply(
        "responses",
        r,
        text,
        stop,
        lane="responses",
        reasoning=joined_reasoning(*thought, think),
        refused="".join(refusals) if refusals else None,
        graded=graded,
    )


class OpenAIAPI(SDKLane):
    """``openai`` × ``api``: the Responses API or Chat Completions, per ``api``.

    SKILL.md goes in as ``instructions`` (Responses) or a ``system`` message (Chat).
    """

    name, surface = "openai", "api"
    keys = ("OPENAI_API_KEY",)

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api: str = "responses",
        budget_param: str = "auto",
    ) -> None:
        """Build the client for ``api`` and the budget spelling ``budget_param``.

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
        self.channel = "responses_format" if api == "responses" else "json_schema"
        self.compatible = (self.client.base_url.host or "") != OPENAI_HOST
        self.auto_budget = budget_param == "auto"
        #: the Chat Completions budget spelling sent now (``run.budget_param``)
        self.budget_param = (
            ("max_tokens" if self.compatible else "max_completion_tokens")
            if self.auto_budget
            else budget_param
        )

    @staticmethod
    def sdk() -> tuple[Any, type[Exception]]:
        """The ``openai`` client class and error base."""
        import openai

        return openai.OpenAI, openai.OpenAIError

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        """The API and the output budget under the name it is sent as."""
        if self.api == "responses":
            return {"api": "responses", "max_output_tokens": max_tokens}
        return {"api": "chat", self.budget_param: max_tokens}

    def attempt(self, call: Call) -> Reply:
        """One Responses or Chat call (see :meth:`Provider.attempt`)."""
        graded = call.schema is not None
        if self.api == "responses":
            create = self.client.responses.with_raw_response.create
            obj, body = self.post(create, build_responses(call), call, hint_404=HINT_404)
            return self.kept(read_response(obj, graded=graded), body)
        create = self.client.chat.completions.with_raw_response.create
        sent = self.budget_param
        try:
            obj, body = self.post(create, build_chat(call, budget_param=sent), call)
        except AttemptError as exc:
            if not (self.auto_budget and exc.status == 400 and sent in exc.reason):
                raise
            # the host refuses this spelling: once more with the other, kept from now on
            other = BUDGET_PARAMS[1 - BUDGET_PARAMS.index(sent)]
            obj, body = self.post(create, build_chat(call, budget_param=other), call)
            self.budget_param = other
        return self.kept(read_chat(obj, graded=graded, compatible=self.compatible), body)
