"""The one narrow interface every provider × surface lane implements, and its errors.

A provider answers one prompt per :meth:`Provider.call` (one endpoint attempt: an API
request or a CLI invocation, method "A runner attempt ..."); the scheduler counts attempts,
retries and timeouts around it. A failed attempt raises :class:`AttemptError` with its class:

* ``transient``: 408, 409, 429, 5xx, 529 and ``overloaded_error`` in every shape (HTTP
  status, SDK exception, CLI envelope, non-zero exit with JSON on stdout), timeouts and
  connection failures: retried with jittered exponential back-off that honours the
  server's ``retry-after`` / ``retry-after-ms`` up to a cap (:mod:`..scheduler`);
* ``fatal``: 400, 401, 403, 404 and 422 (and a CLI envelope carrying them, a bad key, an
  unknown model): every further call would fail too, so the run stops at once, keeps its
  journal and exits non-zero.

A request a retry cannot fix but that says nothing about the other calls (another 4xx, an
unreadable reply) loses the draw without a retry (``retryable=False``, class ``fatal``).

Request building and reply parsing are plain functions per lane (a :class:`Request` in, a
request body out; a reply body in, a :class:`Reply` out), so the batch transport can reuse them
unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from driftproof.errors import ProviderError
from driftproof.run.capture import Capture
from driftproof.run.endings import TRANSIENT, ending_reason, lost_class
from driftproof.run.reply_text import mixed_reasoning_at

__all__ = [
    "AttemptError",
    "Call",
    "DrawId",
    "FATAL_STATUSES",
    "MissingCredentials",
    "Provider",
    "Reply",
    "Request",
    "classify_status",
]

#: HTTP statuses that stop the run: the request or the account is wrong.
FATAL_STATUSES = frozenset({400, 401, 403, 404, 422})
#: HTTP statuses retried: timeout, conflict, rate limit, server errors, Anthropic's 529 overloaded.
TRANSIENT_STATUSES = frozenset({408, 409, 429, 529})


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
        stop_reason: the provider's stop reason as it said it (``end_turn``, ``max_tokens``,
            ``refusal``, ``stop``, ``length``, ``incomplete:max_output_tokens`` ...), else ``None``.
        lane: the key of the lane's endings table (:data:`driftproof.run.endings.LANES`);
            ``None`` for the offline lanes, whose replies are always complete.
        ending: the reply's ending as that table names it (D-19), ``None`` when it said none.
        reasoning: the reasoning kept apart from the answer (thinking blocks, reasoning fields, a
            leading ``<think>`` block, non-final Responses items), ``None`` when there was none;
            never graded, checked or shown to the judge (D-19).
        refusal: ``{"text", "category"}`` when the model refused, else ``None``.
        cache_read / cache_creation: of ``input_tokens``, tokens read from / written to the
            provider's prompt cache (``input_tokens`` is the total as billed).
        reasoning_output: of ``output_tokens``, reasoning tokens (OpenAI), else ``None``.
        decision: the grader's structured decision (a tool call's input, a strict JSON-schema
            reply), when the lane graded through a structured channel; ``None`` otherwise.
        channel: how ``decision`` (or the free text) came back: ``tool_call`` |
            ``json_schema`` | ``responses_format`` | ``cli_json_schema`` | ``final_verdict``.
        harness_events: ``{type, subtype}`` of the events a CLI printed beside its result.
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
    stop_reason: str | None = None
    lane: str | None = None
    ending: str | None = None
    reasoning: str | None = None
    refusal: dict[str, Any] | None = None
    cache_read: int | None = None
    cache_creation: int | None = None
    reasoning_output: int | None = None
    decision: Any = None
    channel: str | None = None
    harness_events: list[dict[str, Any]] | None = None

    def ending_class(self, budget: int | None) -> str | None:
        """The class of a reply whose ending is not complete, ``None`` when it is complete.

        A grading call (``channel`` set) is held to the judge's table (D-19). ``budget`` is
        the output budget the call requested (tokens), which a Chat ``length`` is read
        against; a reply whose answer still holds a ``<think>`` or ``</think>`` tag is
        ``reasoning_mixed``.
        """
        if self.lane is None:
            return None
        cls = lost_class(
            self.lane,
            self.ending,
            judge=self.channel is not None,
            output_tokens=self.output_tokens,
            budget=budget,
        )
        if cls is None and mixed_reasoning_at(self.text) is not None:
            return "reasoning_mixed"
        return cls


class AttemptError(Exception):
    """One attempt failed; ``reason`` is recorded on the lost draw or judge sample.

    Attributes:
        reason: what failed, at most 1,000 characters (untrusted text from the endpoint).
        retryable: a retry may succeed (class ``transient``).
        fatal: every further call would fail too: the run stops.
        status: the HTTP status (or the one a CLI envelope carried), else ``None``.
        retry_after: seconds the server asked to wait (``retry-after`` / ``retry-after-ms``).
        kind: the lost-draw kind when the attempts end on this error (``error``, or an ending
            class such as ``server_abort``).
        reply: what the failed attempt did report (usage, cost), kept on the lost draw.
    """

    def __init__(
        self,
        reason: str,
        *,
        retryable: bool = True,
        fatal: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        kind: str = "error",
        reply: Reply | None = None,
    ) -> None:
        """Keep the reason (cut to 1,000 characters), class, status, wait and reply."""
        super().__init__(reason)
        self.kind, self.reply = kind, reply
        self.reason = reason[:1000]
        self.retryable = retryable and not fatal
        self.fatal = fatal
        self.status = status if isinstance(status, int) and 100 <= status <= 999 else None
        self.retry_after = retry_after

    @property
    def error_class(self) -> str:
        """``transient`` (a retry may succeed) or ``fatal`` (a retry cannot)."""
        return "transient" if self.retryable else "fatal"


class MissingCredentials(ProviderError):
    """The lane's credential variable is not set; ``variable`` names it.

    Raised when the lane is built, before the first call and before anything is written (exit
    2).
    """

    def __init__(self, variable: str, lane: str) -> None:
        """Name the unset ``variable`` and the ``lane`` that needs it."""
        super().__init__(
            f"{variable} is not set; the {lane} lane needs it (set it in the environment)"
        )
        self.variable = variable


@dataclass(frozen=True)
class DrawId:
    """What identifies one attempt of one call of a run.

    The case id, the arm, the draw index, the attempt (from 0) and, for a judge call, the judge
    sample's index. A lane that draws at random seeds from this, never from how many calls this
    process made, so that a resumed run makes the draws an uninterrupted one would have.
    """

    case: str
    arm: str
    index: int
    attempt: int = 0
    sample: int | None = None


@dataclass(frozen=True)
class Request:
    """What a lane's request builder reads: a :class:`Call` but its timeout.

    The batch transport builds request bodies from these too.

    Attributes:
        model: the model id asked for.
        system: the system prompt, ``None`` for none (the baseline arm).
        prompt: the user prompt (a case's prompt, or the judge's instructions and answer).
        max_tokens: the output budget of the reply (tokens).
        schema: the grading decision's JSON Schema for a judge call, else ``None``.
        draw: what identifies this attempt (:class:`DrawId`), ``None`` outside a run.
    """

    model: str
    system: str | None
    prompt: str
    max_tokens: int
    schema: dict[str, Any] | None = None
    draw: DrawId | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Call(Request):
    """One attempt's request, as :meth:`Provider.call` received it.

    The :class:`Request` and ``timeout``, the seconds the attempt may take (keyword only).
    """

    timeout: float = field(kw_only=True)


class Provider:
    """Base of every lane.

    Subclasses set the class attributes and implement :meth:`attempt` (the one signature of
    :meth:`call` lives here).

    Attributes:
        name: ``anthropic`` | ``openai`` | ``stub`` (receipt ``run.provider``).
        surface: ``api`` | ``cli`` | ``None`` for the stub.
        harness_name: ``claude-code`` | ``codex`` on the CLI surface, else ``None``.
        capture: ``text`` | ``files`` (receipt ``run.capture``).
        makes_endpoint_attempts: False only for the stub, which makes none.
        service: the address calls use (base URL), ``None`` for CLIs and the stub.
        keep_raw: whether replies carry their raw output (set for ``--keep-transcripts``).
        channel: the grading channel this lane uses when called with a decision ``schema``.
    """

    name: str = ""
    surface: str | None = None
    harness_name: str | None = None
    capture: str = "text"
    makes_endpoint_attempts: bool = True
    service: str | None = None
    keep_raw: bool = False
    #: how this lane returns a grade (receipt ``judge.channel``)
    channel: str = "final_verdict"
    #: whether the lane sends the output budget (``max_tokens``); CLIs and the stub do not
    sends_budget: bool = True

    def start(self) -> str | None:
        """Prepare the lane; return the harness version its binary printed (CLI), else ``None``."""
        return None

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        """The sampling settings this lane sends, as recorded for the judge."""
        return {"max_tokens": max_tokens}

    def call(
        self,
        *,
        model: str,
        system: str | None,
        prompt: str,
        timeout: float,
        max_tokens: int,
        schema: dict[str, Any] | None = None,
        draw: DrawId | None = None,
    ) -> Reply:
        """Make one attempt.

        With ``schema`` (a grading call) return the grader's decision through the lane's
        structured channel; ``draw`` identifies the attempt.

        Raises:
            AttemptError: the attempt failed, or its reply ended in a class a retry may cure
                (:data:`~driftproof.run.endings.TRANSIENT`: transient, of that kind, the reply's
                usage kept).
        """
        reply = self.attempt(
            Call(model, system, prompt, max_tokens, schema, timeout=timeout, draw=draw)
        )
        cls = reply.ending_class(max_tokens)
        if cls in TRANSIENT:
            raise AttemptError(ending_reason(cls, reply.ending), kind=cls, reply=reply)
        return reply

    def attempt(self, call: Call) -> Reply:
        """The lane's one attempt at ``call`` (see :meth:`call`). Raises :class:`AttemptError`."""
        raise NotImplementedError

    def close(self) -> None:
        """Release clients; default does nothing."""


def classify_status(
    status: int | None, message: str, *, retry_after: float | None = None
) -> AttemptError:
    """An HTTP status as an attempt error.

    408/409/429/5xx/529 (and no status at all, or ``overloaded_error`` in the message) are
    transient; 400/401/403/404/422 are fatal and stop the run; any other 4xx loses the draw
    without a retry.
    """
    msg = f"HTTP {status}: {message}" if status else message
    if status in FATAL_STATUSES:
        return AttemptError(msg, retryable=False, fatal=True, status=status)
    if (
        status is None
        or status in TRANSIENT_STATUSES
        or status >= 500
        or "overloaded_error" in message
    ):
        return AttemptError(msg, retryable=True, status=status, retry_after=retry_after)
    return AttemptError(msg, retryable=False, status=status)
