"""The one narrow interface every provider × surface lane implements, and its errors.

A provider answers one prompt per :meth:`Provider.call` (one endpoint attempt: an API
request or a CLI invocation, method "A runner attempt ..."); the scheduler counts attempts,
retries and timeouts around it. A failed attempt raises :class:`AttemptError`:
``retryable`` attempts are retried (twice, after 5 s and 20 s), others make the draw lost,
and ``fatal`` ones (bad key, unknown model) stop the run, since every call would fail.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from typing import Any

from driftproof.run.capture import Capture

__all__ = ["AttemptError", "Provider", "Reply", "classify_status", "printed_version", "run_process"]


@dataclass
class Reply:
    """One answered attempt.

    Attributes:
        text: the reply text (untrusted).
        input_tokens / output_tokens: usage the endpoint reported, ``None`` when not reported.
        reported_model: the model id the reply reported (dates kept), ``None`` when none.
        serving_model: the model the reply named as serving it, ``None`` when none.
        cost_usd: cost the harness reported for this call (``claude -p``), else ``None``.
        capture: capture mode files: what was read back from the working directory.
        other_models: calls the harness made on other models: ``{model, input, output}``.
        handoff: set when another model gave the answer (the run then stops).
        raw: the raw output, kept with ``--keep-transcripts``.
    """

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    reported_model: str | None = None
    serving_model: str | None = None
    cost_usd: float | None = None
    capture: Capture | None = None
    other_models: list[dict[str, Any]] = field(default_factory=list)
    handoff: str | None = None
    raw: str | None = None


class AttemptError(Exception):
    """One attempt failed; ``reason`` is recorded on the lost draw or judge sample."""

    def __init__(self, reason: str, *, retryable: bool = True, fatal: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason[:1000]
        self.retryable = retryable and not fatal
        self.fatal = fatal


class Provider:
    """Base of every lane. Subclasses set the class attributes and implement :meth:`call`.

    Attributes:
        name: ``anthropic`` | ``openai`` | ``stub`` (receipt ``run.provider``).
        surface: ``api`` | ``cli`` | ``None`` for the stub.
        harness_name: ``claude-code`` | ``codex`` on the CLI surface, else ``None``.
        capture: ``text`` | ``files`` (receipt ``run.capture``).
        makes_endpoint_attempts: False only for the stub, which makes none.
        service: the address calls use (base URL), ``None`` for CLIs and the stub.
        keep_raw: whether replies carry their raw output (set for ``--keep-transcripts``).
    """

    name: str = ""
    surface: str | None = None
    harness_name: str | None = None
    capture: str = "text"
    makes_endpoint_attempts: bool = True
    service: str | None = None
    keep_raw: bool = False

    def start(self) -> str | None:
        """Prepare the lane; return the harness version its binary printed (CLI), else ``None``."""
        return None

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        """The sampling settings this lane sends, as recorded for the judge."""
        return {"max_tokens": max_tokens}

    def call(self, *, model: str, system: str | None, prompt: str, timeout: float, max_tokens: int) -> Reply:
        """Make one attempt. Raises :class:`AttemptError`."""
        raise NotImplementedError

    def close(self) -> None:
        """Release clients; default does nothing."""


def classify_status(status: int | None, message: str) -> AttemptError:
    """An HTTP status as an attempt error: 408/409/429/5xx retried; 401/403/404 fatal; other 4xx lost."""
    msg = f"HTTP {status}: {message}" if status else message
    if status in (401, 403, 404):
        return AttemptError(msg, retryable=False, fatal=True)
    if status is None or status in (408, 409, 429) or status >= 500:
        return AttemptError(msg, retryable=True)
    return AttemptError(msg, retryable=False)


_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?[\w.+-]*")


def printed_version(output: str) -> str:
    """The version a harness binary printed (``2.1.288 (Claude Code)`` → ``2.1.288``)."""
    m = _VERSION.search(output)
    if m:
        return m.group(0)[:100]
    first = output.strip().splitlines()[0] if output.strip() else ""
    return first[:100]


def run_process(argv: list[str], *, stdin: str, cwd: str, timeout: float, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run one CLI invocation in its own process group; on timeout kill the group.

    Raises:
        AttemptError: timeout (retryable) or the binary cannot be started (fatal).
    """
    import os
    import signal

    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=env, text=True, encoding="utf-8", errors="replace",
                                start_new_session=True)
    except OSError as exc:
        raise AttemptError(f"cannot start {argv[0]}: {exc.strerror or exc}", fatal=True) from exc
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise AttemptError(f"timed out after {timeout:g} s") from None
    return proc.returncode, out, err
