"""Helpers shared by the API lanes: SDK errors as attempt errors."""

from __future__ import annotations

from driftproof.run.providers.base import AttemptError, classify_status

__all__ = ["sdk_error"]


def sdk_error(exc: Exception, timeout: float) -> AttemptError:
    """An SDK exception as an attempt error: timeouts and connection failures retried, HTTP
    statuses per :func:`classify_status`, anything else lost without retry."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if name == "APITimeoutError":
        return AttemptError(f"timed out after {timeout:g} s")
    if isinstance(status, int):
        return classify_status(status, str(getattr(exc, "message", exc))[:300])
    if name == "APIConnectionError":
        return AttemptError(f"connection failed: {str(exc)[:300]}")
    return AttemptError(f"{name}: {str(exc)[:300]}", retryable=False)
