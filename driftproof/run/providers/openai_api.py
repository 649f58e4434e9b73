"""``openai`` × ``api``: the Responses or Chat Completions API through the official ``openai``
SDK, and any OpenAI-compatible server (vLLM, llama.cpp's server, Ollama, gateways) through
``--base-url`` (issue 13, item 6).

SDK retries are off (``max_retries=0``) so that every attempt is the runner's own, counted
when made; the base URL is the SDK's (``OPENAI_BASE_URL``) unless given, and is recorded,
credentials stripped, for every arm. The key (``OPENAI_API_KEY``) is checked when the lane is
built, before the first call; a local server that wants none takes any value.

Output budget: the Responses API takes ``max_output_tokens``. Chat Completions on OpenAI's
own service takes ``max_completion_tokens`` (its reasoning models refuse ``max_tokens``);
OpenAI-compatible servers often honour only ``max_tokens``, so any other base URL is sent
both. A reply with more output tokens than the budget is flagged ``over_budget``.

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
from driftproof.run.providers.base import Call, Reply, Request, json_or_none

__all__ = ["OpenAIAPI", "build_chat", "build_responses", "read_chat", "read_response"]

SCHEMA_NAME = "record_grade"
OPENAI_HOST = "api.openai.com"
HINT_404 = "the endpoint has no Responses API; run with --openai-api chat (Chat Completions)"


def build_chat(r: Request, *, compatible: bool = False) -> dict[str, Any]:
    """The Chat Completions request body; ``compatible`` (a non-OpenAI base URL) sends the
    budget as ``max_tokens`` too."""
    msgs: list[dict[str, str]] = [{"role": "system", "content": r.system}] if r.system else []
    msgs.append({"role": "user", "content": r.prompt})
    req: dict[str, Any] = {
        "model": r.model,
        "messages": msgs,
        "max_completion_tokens": r.max_tokens,
    }
    if compatible:
        req["max_tokens"] = r.max_tokens
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
    refused: str | None,
    filtered: bool,
    truncated: bool,
    graded: bool,
    decided: bool = True,
) -> Reply:
    """The :class:`Reply` of a Chat Completions or Responses ``body``: a refusal with the
    ``refused`` text (no category), else one of category ``content_filter`` when ``filtered``;
    the usage counts read under ``api``'s names; the decision parsed from ``text`` when
    ``graded``, not refused and ``decided`` (the Responses API reads none from a cut-off reply)."""
    refusal = None
    if refused is not None:
        refusal = {"text": refused, "category": None}
    elif filtered:
        refusal = {"text": text or None, "category": "content_filter"}
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
        truncated=truncated,
        refusal=refusal,
        cache_read=count(member_dict(u, f"{tokens_in}_details").get("cached_tokens")),
        reasoning_output=count(member_dict(u, f"{tokens_out}_details").get("reasoning_tokens")),
        decision=json_or_none(text) if graded and decided and refusal is None else None,
        channel=channel if graded else None,
    )


def read_chat(c: dict[str, Any], *, graded: bool = False) -> Reply:
    """A ``chat.completion`` (as JSON) as a :class:`Reply`: ``finish_reason`` kept (``length``
    truncated; ``content_filter`` a refusal of that category); ``message.refusal`` a refusal;
    input = ``prompt_tokens`` with ``cached_tokens`` of it, reasoning tokens of the output kept."""
    choices = member_list(c, "choices")
    choice = choices[0] if choices and isinstance(choices[0], dict) else {}
    msg = member_dict(choice, "message")
    text = member_str(msg, "content") or ""
    stop = member_str(choice, "finish_reason")
    return _reply(
        "chat",
        c,
        text,
        stop,
        refused=member_str(msg, "refusal") or None,
        filtered=stop == "content_filter",
        truncated=stop == "length",
        graded=graded,
    )


def read_response(r: dict[str, Any], *, graded: bool = False) -> Reply:
    """A Responses API ``response`` (as JSON) as a :class:`Reply`: the stop reason is the
    ``status`` (``incomplete:<incomplete_details.reason>`` when incomplete; ``max_output_tokens``
    truncated, ``content_filter`` a refusal of that category); a ``refusal`` content part a
    refusal; usage with ``cached_tokens`` and ``reasoning_tokens`` kept apart."""
    texts, refusals = [], []
    for item in member_list(r, "output"):
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        for part in member_list(item, "content"):
            if (
                isinstance(part, dict)
                and part.get("type") == "output_text"
                and isinstance(part.get("text"), str)
            ):
                texts.append(part["text"])
            elif (
                isinstance(part, dict)
                and part.get("type") == "refusal"
                and isinstance(part.get("refusal"), str)
            ):
                refusals.append(part["refusal"])
    text = "".join(texts)
    status = member_str(r, "status")
    why = member_dict(r, "incomplete_details").get("reason")
    stop = f"{status}:{why}" if status == "incomplete" and isinstance(why, str) else status
    truncated = status == "incomplete" and why == "max_output_tokens"
    return _reply(
        "responses",
        r,
        text,
        stop,
        refused="".join(refusals) if refusals else None,
        filtered=why == "content_filter",
        truncated=truncated,
        graded=graded,
        decided=not truncated,
    )


class OpenAIAPI(SDKLane):
    """``openai`` × ``api``: Responses API (``instructions`` = SKILL.md) or Chat Completions
    (a ``system`` message), per ``api``."""

    name, surface = "openai", "api"
    keys = ("OPENAI_API_KEY",)

    def __init__(
        self, *, base_url: str | None = None, api_key: str | None = None, api: str = "responses"
    ) -> None:
        if api not in ("responses", "chat"):
            raise ValueError("api must be 'responses' or 'chat'")
        super().__init__(base_url=base_url, api_key=api_key)
        self.api = api
        self.channel = "responses_format" if api == "responses" else "json_schema"
        self.compatible = (self.client.base_url.host or "") != OPENAI_HOST

    @staticmethod
    def sdk() -> tuple[Any, type[Exception]]:
        import openai

        return openai.OpenAI, openai.OpenAIError

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        if self.api == "responses":
            return {"api": "responses", "max_output_tokens": max_tokens}
        out: dict[str, Any] = {"api": "chat", "max_completion_tokens": max_tokens}
        if self.compatible:
            out["max_tokens"] = max_tokens
        return out

    def attempt(self, call: Call) -> Reply:
        graded = call.schema is not None
        if self.api == "responses":
            create = self.client.responses.with_raw_response.create
            obj, body = self.post(create, build_responses(call), call, hint_404=HINT_404)
            return self.kept(read_response(obj, graded=graded), body)
        create = self.client.chat.completions.with_raw_response.create
        obj, body = self.post(create, build_chat(call, compatible=self.compatible), call)
        return self.kept(read_chat(obj, graded=graded), body)
