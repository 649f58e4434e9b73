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

    def call(self, *, model: str, system: str | None, prompt: str, timeout: float, max_tokens: int) -> Reply:
        try:
            if self.api == "responses":
                kw: dict[str, Any] = {"instructions": system} if system else {}
                r = self.client.responses.create(model=model, input=prompt, max_output_tokens=max_tokens,
                                                 timeout=timeout, **kw)
                u = r.usage
                return Reply(r.output_text or "", input_tokens=getattr(u, "input_tokens", None),
                             output_tokens=getattr(u, "output_tokens", None), reported_model=r.model,
                             serving_model=r.model, raw=r.model_dump_json() if self.keep_raw else None)
            msgs: list[dict[str, str]] = ([{"role": "system", "content": system}] if system else [])
            msgs.append({"role": "user", "content": prompt})
            c = self.client.chat.completions.create(model=model, messages=msgs, max_completion_tokens=max_tokens,
                                                    timeout=timeout)
        except openai.OpenAIError as exc:
            raise sdk_error(exc, timeout) from exc
        u = c.usage
        text = (c.choices[0].message.content or "") if c.choices else ""
        return Reply(text, input_tokens=getattr(u, "prompt_tokens", None), output_tokens=getattr(u, "completion_tokens", None),
                     reported_model=c.model, serving_model=c.model,
                     raw=c.model_dump_json() if self.keep_raw else None)

    def close(self) -> None:
        self.client.close()
