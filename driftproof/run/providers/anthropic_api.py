"""``anthropic`` × ``api``: the Messages API through the official ``anthropic`` SDK.

SDK retries are off (``max_retries=0``) so that every attempt is the runner's own, counted
when made; the base URL is the SDK's (``ANTHROPIC_BASE_URL``) unless given.
"""

from __future__ import annotations

from typing import Any

import anthropic

from driftproof.run.providers._sdk import sdk_error
from driftproof.run.providers.base import Provider, Reply

__all__ = ["AnthropicAPI"]


class AnthropicAPI(Provider):
    """``anthropic`` × ``api``: Messages API, SKILL.md as the ``system`` parameter."""

    name, surface = "anthropic", "api"

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None) -> None:
        self.client = anthropic.Anthropic(base_url=base_url, api_key=api_key, max_retries=0)
        self.service = str(self.client.base_url).rstrip("/")

    def request(self, *, model: str, system: str | None, prompt: str, max_tokens: int) -> dict[str, Any]:
        """The Messages API request body of one call (also a Message Batches request's ``params``)."""
        kw: dict[str, Any] = {"system": system} if system else {}
        return {"model": model, "max_tokens": max_tokens, "messages": [{"role": "user", "content": prompt}], **kw}

    def reply(self, resp: Any) -> Reply:
        """A Messages API ``Message`` (an SDK object, as ``messages.create`` or a batch's succeeded
        result gives it) as a :class:`Reply`."""
        text = "".join(getattr(b, "text", "") for b in resp.content if getattr(b, "type", "") == "text")
        u = resp.usage
        return Reply(text, input_tokens=getattr(u, "input_tokens", None), output_tokens=getattr(u, "output_tokens", None),
                     reported_model=resp.model, serving_model=resp.model,
                     raw=resp.model_dump_json() if self.keep_raw else None)

    def call(self, *, model: str, system: str | None, prompt: str, timeout: float, max_tokens: int) -> Reply:
        try:
            resp = self.client.messages.create(**self.request(model=model, system=system, prompt=prompt,
                                                              max_tokens=max_tokens), timeout=timeout)
        except anthropic.AnthropicError as exc:
            raise sdk_error(exc, timeout) from exc
        return self.reply(resp)

    def close(self) -> None:
        self.client.close()
