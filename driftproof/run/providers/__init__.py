"""Provider registry: (provider, surface) → lane. See :mod:`.base` for the interface."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from driftproof.wording import OFFLINE

if TYPE_CHECKING:
    from driftproof.run.providers.base import Provider

__all__ = ["LANES", "make_provider"]

#: (provider, surface) → "module:Class"; the stub has no surface.
LANES: dict[tuple[str, str | None], str] = {
    ("anthropic", "api"): "anthropic_api:AnthropicAPI",
    ("openai", "api"): "openai_api:OpenAIAPI",
    ("anthropic", "cli"): "claude_cli:ClaudeCLI",
    ("openai", "cli"): "codex_cli:CodexCLI",
    ("stub", None): "simulated:StubProvider",
    ("simulated", None): "simulated:SimulatedProvider",
}


def make_provider(provider: str, surface: str | None, **options: Any) -> Provider:
    """Build the lane for ``provider`` × ``surface``; ``None`` options are left out.

    Options: ``base_url``, ``api_key``, ``api``, ``budget_param`` (API lanes); ``capture``,
    ``binary`` (CLI lanes); ``seed``, ``base``, ``effects``, ``spread``, ``judge_spread``,
    ``lose`` (simulated).

    Raises:
        ValueError: an unknown lane.
        TypeError: an option the lane does not take.
        MissingCredentials: an API lane's key is not set (before any call or write; exit 2).
    """
    import importlib

    key = (provider, None if provider in OFFLINE else surface)
    if key not in LANES:
        raise ValueError(
            f"unknown provider/surface {provider}/{surface}; known: "
            + ", ".join(f"{p}/{s or '-'}" for p, s in LANES)
        )
    module, cls = LANES[key].split(":")
    klass = getattr(importlib.import_module(f"driftproof.run.providers.{module}"), cls)
    return klass(**{k: v for k, v in options.items() if v is not None})
