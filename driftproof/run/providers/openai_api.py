"""``openai`` × ``api``: the Responses or Chat Completions API through the official ``openai`` SDK.

SDK retries are off (``max_retries=0``) so that every attempt is the runner's own, counted
when made; the base URL is the SDK's (``OPENAI_BASE_URL``) unless given.
"""

from __future__ import annotations

from typing import Any

import openai

from driftproof.run.providers._sdk import sdk_error
from driftproof.run.providers.base import Provider, Reply

__all__ = ["OpenAIAPI"]


class OpenAIAPI(Provider):
    """``openai`` × ``api``: Responses API (``instructions`` = SKILL.md) or Chat Completions
    (a ``system`` message), per ``api``."""

    name, surface = "openai", "api"

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None, api: str = "responses") -> None:
        if api not in ("responses", "chat"):
            raise ValueError("api must be 'responses' or 'chat'")
        self.api = api
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        self.service = str(self.client.base_url).rstrip("/")

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        key = "max_output_tokens" if self.api == "responses" else "max_completion_tokens"
        return {"api": self.api, key: max_tokens}

    @property
    def endpoint(self) -> str:
        """The API path a request goes to (a Batch API ``endpoint``/``url``)."""
        return "/v1/responses" if self.api == "responses" else "/v1/chat/completions"

    def request(self, *, model: str, system: str | None, prompt: str, max_tokens: int) -> dict[str, Any]:
        """The request body of one call (also a Batch API input line's ``body``)."""
        if self.api == "responses":
            kw: dict[str, Any] = {"instructions": system} if system else {}
            return {"model": model, "input": prompt, "max_output_tokens": max_tokens, **kw}
        msgs: list[dict[str, str]] = ([{"role": "system", "content": system}] if system else [])
        msgs.append({"role": "user", "content": prompt})
        return {"model": model, "messages": msgs, "max_completion_tokens": max_tokens}

    def reply_from_body(self, body: dict[str, Any]) -> Reply:
        """A response body as the API returns it (a Batch API output line's ``response.body``) as a
        :class:`Reply`, read through the SDK's own types."""
        from openai.types.chat import ChatCompletion
        from openai.types.responses import Response

        return self.reply((Response if self.api == "responses" else ChatCompletion).construct(**body))

    def reply(self, r: Any) -> Reply:
        """An SDK ``Response`` or ``ChatCompletion`` as a :class:`Reply`."""
        u = r.usage
        if self.api == "responses":
            return Reply(r.output_text or "", input_tokens=getattr(u, "input_tokens", None),
                         output_tokens=getattr(u, "output_tokens", None), reported_model=r.model,
                         serving_model=r.model, raw=r.model_dump_json() if self.keep_raw else None)
        text = (r.choices[0].message.content or "") if r.choices else ""
        return Reply(text, input_tokens=getattr(u, "prompt_tokens", None), output_tokens=getattr(u, "completion_tokens", None),
                     reported_model=r.model, serving_model=r.model,
                     raw=r.model_dump_json() if self.keep_raw else None)

    def call(self, *, model: str, system: str | None, prompt: str, timeout: float, max_tokens: int) -> Reply:
        body = self.request(model=model, system=system, prompt=prompt, max_tokens=max_tokens)
        try:
            if self.api == "responses":
                r: Any = self.client.responses.create(**body, timeout=timeout)
            else:
                r = self.client.chat.completions.create(**body, timeout=timeout)
        except openai.OpenAIError as exc:
            raise sdk_error(exc, timeout) from exc
        return self.reply(r)

    def close(self) -> None:
        self.client.close()
