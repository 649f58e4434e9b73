"""The interface every provider × surface lane implements, and its errors.

:meth:`Provider.call` makes one endpoint attempt; the scheduler retries around it. Request
builders and reply readers are plain functions per lane, which the batch transport reuses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from driftproof.errors import ProviderError
from driftproof.run.capture import Capture
from driftproof.run.endings import TRANSIENT, ending_reason, lost_class
from driftproof.run.reply_text import mixed_reasoning_at

#: HTTP statuses that stop the run: the request or the account is wrong (402: the account has
#: no credit left, DeepSeek's "Insufficient Balance", OpenRouter's "Insufficient credits").
FATAL_STATUSES = frozenset({400, 401, 402, 403, 404, 422})
#: HTTP statuses retried: timeout, conflict, rate limit, server errors, Anthropic's 529
#: overloaded; and Groq's 498 when it says ``capacity_exceeded`` (its flex tier at capacity, "try
#: again later"; elsewhere 498 can mean an invalid token, which no retry mends).
TRANSIENT_STATUSES = frozenset({408, 409, 429, 529})
#: An error's words for a prompt longer than the model's context window (Anthropic "prompt is too
#: long", or "input length and `max_tokens` exceed context limit" for a prompt and output budget
#: past it; OpenAI "context_length_exceeded", vLLM "maximum context length", llama.cpp "exceeds
#: the available context size", codex "exceeds the context window"; Hugging Face TGI's and
#: Together's "`inputs` tokens + `max_new_tokens` must be <= …" and "`inputs` must have less than
#: … tokens", LM Studio's "Trying to keep the first … tokens when context the overflows"): that
#: prompt's draw is lost, the run goes on.
CONTEXT_WINDOW = re.compile(
    r"prompt is too long|context_length_exceeded|maximum context length"
    r"|exceeds (?:the|model) context window"
    r"|exceed context limit|exceeds the available context size"
    r"|longer than the model's context length|input token count.{0,20} exceeds the maximum number"
    r"|`inputs` tokens \+ `max_new_tokens` must be <=|`inputs` must have less than \d+ tokens"
    r"|tokens when context the overflows",
    re.I,
)
#: Statuses an error reading as :data:`CONTEXT_WINDOW` comes with: 400, TGI's 422 (its input
#: validation errors), and Anthropic's 413 "Request size exceeds model context window"
#: (anthropics/claude-code#6368).
CONTEXT_WINDOW_STATUSES = frozenset({400, 413, 422})
#: The start of a body that is an HTML page, not an API's reply (a proxy's sign-in or error page,
#: a gateway's web app): sent with status 200, every call gets it. White space, an XML
#: declaration and comments may come first; ``<html>``, ``<head>`` and ``<body>`` may be left out.
HTML_PAGE = re.compile(
    r"\s*(?:<\?xml[^>]*>\s*)?(?:<!--(?:(?!-->).)*-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
    re.I | re.S,
)
#: An error's words for a prompt or a generation a content filter stopped (Azure OpenAI's "The
#: response was filtered due to the prompt triggering Azure OpenAI's content management policy",
#: LiteLLM's ``litellm.ContentPolicyViolationError``): that draw is lost, the run goes on.
CONTENT_FILTERED = re.compile(r"content management policy|ContentPolicyViolationError", re.I)
#: A 400's ``code`` (or its ``innererror``'s) naming one draw's fault, never the request's or the
#: account's → the lost-draw kind: Azure OpenAI's content filter (``content_filter``,
#: ``ResponsibleAIPolicyViolation``); Groq's failed generations (a call the model made unasked,
#: ``tool_use_failed``; a grade not matching its schema, ``json_validate_failed``); a prompt past
#: the context window, which Groq names by its code alone (``context_length_exceeded``, its
#: message "Please reduce the length of the messages or completion.").
DRAW_FAULT_CODES = {
    "context_length_exceeded": "context_window",
    "content_filter": "content_filter",
    "ResponsibleAIPolicyViolation": "content_filter",
    "tool_use_failed": "tool_call",
    "json_validate_failed": "error",
}


@dataclass
class Reply:
    """One answered attempt; counts are tokens as the endpoint reported them, ``None`` when not.

    ``input_tokens`` is the billed total (``cache_read`` / ``cache_creation`` are parts of it),
    ``reasoning_output`` part of ``output_tokens``. ``ending`` is the reply's ending on ``lane``, a
    key of :data:`~driftproof.run.endings.ENDING_TABLES` (``None``: offline, always complete; D-19).
    ``reasoning`` is never graded, checked or shown to the judge (D-19). ``decision`` and
    ``channel``: a grading call's structured decision and how it came back (``Provider.channel``).
    ``handoff``: another model answered (the run stops); ``unread``: why the answer or grade cannot
    be read (lost draw, invalid sample); ``other_models``: ``{model, input, output}`` of a harness's
    calls on other models; ``raw`` is kept with ``--keep-transcripts``.
    """

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    reported_model: str | None = None
    """The model id the reply reported, dates kept."""
    serving_model: str | None = None
    """The model the reply named as serving it (a harness: the one it answered with)."""
    cost_usd: float | None = None
    """The call's cost as the lane reported it (a harness's own figure), USD."""
    capture: Capture | None = None
    """What the grader is shown from a harness's working directory (capture mode files)."""
    other_models: list[dict[str, Any]] = field(default_factory=list)
    handoff: str | None = None
    unread: str | None = None
    raw: str | None = None
    stop_reason: str | None = None
    """The endpoint's own stop reason, recorded as it came (the first 64 characters)."""
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
        """The lost class of an ending that is not complete (D-19), ``None`` when complete.

        A grading call (``channel`` set) is held to the judge's table; ``budget`` (tokens) is what
        a Chat ``length`` is read against; a think tag left in the answer of a complete or
        ``truncated`` reply (a suite may accept the latter) is ``reasoning_mixed``.
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
        if cls in (None, "truncated") and mixed_reasoning_at(self.text) is not None:
            return "reasoning_mixed"
        return cls


#: A snapshot's date by its length: Anthropic's YYYYMMDD, OpenAI's YYYY-MM-DD and older MMDD.
_SNAPSHOT_DATES = {8: "%Y%m%d", 10: "%Y-%m-%d", 4: "%m%d"}


def same_model(requested: str, reported: str) -> bool:
    """Whether a reply reporting ``reported`` answered for ``requested`` (run and regrade).

    Only the id itself, or a dated snapshot of it for the undated alias (``gpt-4-0613``,
    ``gpt-5-mini-2025-08-07``); never a shorter or longer id, nor a made-up date.
    """
    if reported == requested:
        return True
    suffix = reported.removeprefix(requested + "-")
    form = _SNAPSHOT_DATES.get(len(suffix))
    if suffix == reported or form is None or not suffix.replace("-", "").isascii():
        return False
    try:
        return datetime.strptime(suffix, form).strftime(form) == suffix
    except ValueError:
        return False


class Halted(Exception):
    """Raised in a draw when the run is stopping: the draw is not finished, so not journaled."""


class AttemptError(Exception):
    """One attempt failed; ``reason`` (at most 1,000 characters, untrusted) goes on the lost draw.

    ``retryable``: a retry may succeed; ``fatal``: the run stops; ``status``: the HTTP status (or
    a CLI envelope's); ``retry_after``: seconds the server asked to wait; ``kind``: the lost-draw
    kind (``error`` or an ending class); ``reply``: what the attempt reported (usage, cost).
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
    """The lane's credential ``variable`` is not set; raised before anything is written (exit 2)."""

    def __init__(self, variable: str, lane: str, other: str | None = None) -> None:
        """Name the unset ``variable``, the ``lane`` that needs it, and ``other`` way, if any."""
        how = "set it in the environment" + (f", or choose another {other}" if other else "")
        super().__init__(f"{variable} is not set; the {lane} lane needs it ({how})")
        self.variable = variable


@dataclass(frozen=True)
class DrawId:
    """One attempt: case, arm, draw index, attempt (from 0), judge sample.

    A random lane seeds from this, so a resumed run makes the draws an uninterrupted one would.
    """

    case: str
    arm: str
    index: int
    attempt: int = 0
    sample: int | None = None


@dataclass(frozen=True)
class Request:
    """What a lane's request builder reads (the batch transport's too).

    ``system`` is ``None`` for the baseline arm; ``max_tokens`` is the output budget in tokens;
    ``schema`` is a judge call's decision schema; ``draw`` is ``None`` outside a run.
    """

    model: str
    system: str | None
    prompt: str
    max_tokens: int
    schema: dict[str, Any] | None = None
    draw: DrawId | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Call(Request):
    """One attempt's request: the :class:`Request` and ``timeout`` in seconds."""

    timeout: float = field(kw_only=True)


class Provider:
    """Base of every lane; subclasses set the class attributes and implement :meth:`attempt`.

    ``name``, ``surface`` (``api`` | ``cli`` | ``None`` offline), ``capture`` and ``service`` (the
    base URL) are the receipt's; ``keep_raw`` is set by ``--keep-transcripts``.
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
    #: the key of its endings table (:data:`~driftproof.run.endings.ENDING_TABLES`); ``None``
    #: offline, where no reply carries an ending
    endings: str | None = None

    def start(self) -> str | None:
        """Prepare the lane; return the harness version its binary printed (CLI), else ``None``."""
        return None

    def sampling(self, max_tokens: int) -> dict[str, Any]:
        """The sampling settings this lane sends, as recorded for the judge (none if no budget)."""
        return {"max_tokens": max_tokens} if self.sends_budget else {}

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
        """Make one attempt; with ``schema`` (a grading call) through the lane's structured channel.

        Raises:
            AttemptError: the attempt failed, or its reply ended in a class in
                :data:`~driftproof.run.endings.TRANSIENT` (transient, the reply's usage kept).
        """
        reply = self.attempt(
            Call(model, system, prompt, max_tokens, schema, timeout=timeout, draw=draw)
        )
        if (failed := transient_ending(reply, max_tokens)) is not None:
            raise failed
        return reply

    def attempt(self, call: Call) -> Reply:
        """The lane's one attempt at ``call`` (see :meth:`call`). Raises :class:`AttemptError`."""
        raise NotImplementedError

    def kept(self, reply: Reply, body: str | dict[str, Any]) -> Reply:
        """``reply`` carrying ``body`` (JSON text, or an object written as JSON) if ``keep_raw``."""
        if self.keep_raw:
            reply.raw = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        return reply

    def close(self) -> None:
        """Release clients; default does nothing."""


def transient_ending(reply: Reply, budget: int | None) -> AttemptError | None:
    """A transient error of the ending's class when it is in :data:`.endings.TRANSIENT`, else None.

    The error keeps ``reply`` (its usage); ``budget`` is the call's output budget in tokens (D-19).
    """
    cls = reply.ending_class(budget)
    if cls not in TRANSIENT:
        return None
    return AttemptError(ending_reason(cls, reply.ending), kind=cls, reply=reply)


def not_json(body: str, why: Exception, headers: Any = None) -> AttemptError:
    """The failed attempt a reply ``body`` with status 200 that is no JSON (``why``) is.

    An HTML page (:data:`HTML_PAGE`, or a body starting with ``<`` after white space whose
    Content-Type in ``headers``, a mapping, is ``text/html``) is fatal, quoting its first 200
    characters (each run of whitespace one space, escaped); any other body is transient,
    quoting its first 200.
    """
    kind = str((headers or {}).get("content-type") or "")
    html = kind.split(";")[0].strip().lower() == "text/html"
    if HTML_PAGE.match(body) or (html and body.lstrip().startswith("<")):  # a page for people
        page = f"a web page with status 200, not an answer: {' '.join(body.split())[:200]!r}"
        fix = "no call can succeed: check the base URL and any proxy in front of it"
        return AttemptError(f"the reply is {page}; {fix}", fatal=True)
    return AttemptError(f"the reply is not JSON ({why}): {body[:200]!r}")


def draw_fault(err: Any) -> str | None:
    """The :data:`DRAW_FAULT_CODES` code an error object ``err`` names, else ``None``.

    Read from its ``code``, its ``innererror``'s, or a LiteLLM proxy's
    ``provider_specific_fields.innererror``'s; another Groq error holding a ``failed_generation``
    (the model's output that failed: a non-empty string) is ``failed_generation``.
    """
    if not isinstance(err, dict):
        return None
    extra = err.get("provider_specific_fields")
    inners = [err.get("innererror"), extra.get("innererror") if isinstance(extra, dict) else None]
    codes = [err.get("code")] + [i.get("code") for i in inners if isinstance(i, dict)]
    found = next((c for c in codes if isinstance(c, str) and c in DRAW_FAULT_CODES), None)
    failed = err.get("failed_generation")  # the output that failed; null names none
    return found or ("failed_generation" if isinstance(failed, str) and failed else None)


def classify_status(
    status: int | None,
    message: str,
    *,
    retry_after: float | None = None,
    reason: str | None = None,
    reply: Reply | None = None,
    fault: str | None = None,
) -> AttemptError:
    """An HTTP status as an attempt error.

    408/409/429/5xx/529, Groq's 498 capacity_exceeded, no status, or ``overloaded_error`` in the
    message: transient; a 400 (or 413 or 422) whose message reads as :data:`CONTEXT_WINDOW`, a
    400 whose message reads as :data:`CONTENT_FILTERED`, or whose error object names ``fault``
    (:func:`draw_fault`): that draw lost (the context window, the content filter, or as
    :data:`DRAW_FAULT_CODES` says; ``error`` for another failed generation), never retried, the
    run going on; other 400 and 401/402/403/404/422: fatal; any other 4xx loses the draw without
    a retry. ``reason`` replaces the recorded ``HTTP <status>: <message>`` (``fault``
    named after it); ``reply`` is kept on the error.
    """
    msg = reason or (f"HTTP {status}: {message}" if status else message)
    if status == 400 and fault is not None:  # this prompt or this generation only: lost
        kind = DRAW_FAULT_CODES.get(fault, "error")
        msg = msg if fault in msg else f"{msg} ({fault})"
        return AttemptError(msg, retryable=False, status=status, kind=kind, reply=reply)
    if status in CONTEXT_WINDOW_STATUSES and CONTEXT_WINDOW.search(message):  # this prompt only
        return AttemptError(msg, retryable=False, status=status, kind="context_window", reply=reply)
    if status == 400 and CONTENT_FILTERED.search(message):  # this prompt only: lost, not fatal
        return AttemptError(msg, retryable=False, status=status, kind="content_filter", reply=reply)
    if status in FATAL_STATUSES:
        return AttemptError(msg, retryable=False, fatal=True, status=status, reply=reply)
    retry = status is None or status in TRANSIENT_STATUSES or status >= 500
    retry = retry or (status == 498 and "capacity_exceeded" in message)
    if retry or "overloaded_error" in message:
        return AttemptError(msg, status=status, retry_after=retry_after, reply=reply)
    return AttemptError(msg, retryable=False, status=status, reply=reply)
