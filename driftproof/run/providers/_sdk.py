"""Helpers of the API lanes: the SDK lane base, SDK errors, reply members read without trust."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import threading
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import CancelledError, Future
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from driftproof._json import JSONFault, loads_strict, member_str
from driftproof.receipt._bounds import JSON_SAFE_INTEGER
from driftproof.run.base_url import strip_credentials
from driftproof.run.providers.base import (
    AttemptError,
    Call,
    Halted,
    MissingCredentials,
    Provider,
    classify_status,
    draw_fault,
    not_json,
)

T = TypeVar("T")

#: The name of the grading tool (Messages) and of the grade's JSON schema (OpenAI).
GRADE_TOOL = "record_grade"

#: LM Studio's answer, with status 200, to a path it does not serve (a base URL without /v1, or
#: a version without the Responses API): ``{"error": "Unexpected endpoint or method. (POST …)"}``.
NO_ROUTE = "Unexpected endpoint or method."

#: A LiteLLM proxy's count of the fallbacks it made before the reply it sends ("Number of
#: fallback attempts made", its docs' retry and fallback headers): a reply after one came from
#: another model group, and its body names the requested model all the same since v1.81.7
#: (BerriAI/litellm#22709, #28241).
FALLBACK_HEADER = "x-litellm-attempted-fallbacks"


def fell_back(headers: Any) -> str | None:
    """Why a reply with HTTP ``headers`` came from another model than the one asked, else ``None``.

    Any :data:`FALLBACK_HEADER` value but ``0`` says so (one that is no count too: fail closed).
    """
    try:
        said = headers.get(FALLBACK_HEADER)
    except AttributeError:
        return None
    if said is None or str(said).strip() == "0":
        return None
    return (
        f"a LiteLLM proxy says it fell back to another model before this reply ({FALLBACK_HEADER}:"
        f" {str(said)[:40]!r}), whatever model the reply names"
    )


def sdk_error(exc: Exception, timeout: float, *, hint_404: str | None = None) -> AttemptError:
    """An SDK exception as an attempt error.

    Timeouts (the SDK's, or the deadline's :class:`TimeoutError`) and connection failures (a body
    that cannot be decoded or was broken off among them, named so) are transient; a status is
    worded and classed by :func:`reply_error` with ``hint_404`` and ``retry-after`` (a redirect,
    never followed, naming where it points); a body past the cap (or compressed: fatal,
    :class:`._capped.ReplyRefused`) and anything else is lost without a retry.
    """
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if name == "APITimeoutError" or isinstance(exc, TimeoutError):
        return AttemptError(f"timed out after {timeout:g} s")
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        body = getattr(exc, "body", None)
        out = reply_error(
            status,
            body,
            str(getattr(exc, "message", exc))[:300],
            sent_json=isinstance(body, str) and _sent_json(response),
            retry_after=retry_after_seconds(getattr(response, "headers", None)),
            hint_404=hint_404,
        )
        if 300 <= status < 400:  # never followed (SDKLane): said where it points
            where = str(getattr(response, "headers", {}).get("location", "no place named"))[:300]
            out.reason = (
                f"{out.reason}; the server redirects to {where}, and a run follows no redirect: "
                "check the base URL"
            )
        return out
    if name == "APIConnectionError":
        cause = exc.__cause__  # the SDK's "Connection error." wraps what went wrong
        if type(cause).__name__ == "ReplyRefused":  # compressed or past the cap (SDKLane's)
            return AttemptError(str(cause), retryable=False, fatal=getattr(cause, "fatal", False))
        if type(cause).__name__ == "DecodingError" and str(cause):  # httpx: Content-Encoding
            return AttemptError(f"the reply's body could not be decoded: {str(cause)[:300]}")
        cut = type(cause).__name__ == "RemoteProtocolError" and str(cause)  # a body cut short
        return AttemptError(f"connection failed: {str(cause if cut else exc)[:300]}")
    return AttemptError(f"{name}: {str(exc)[:300]}", retryable=False)


def reply_error(
    status: int,
    body: Any,
    fallback: str,
    *,
    sent_json: bool = True,
    retry_after: float | None = None,
    hint_404: str | None = None,
    label: str | None = None,
) -> AttemptError:
    """An error reply of HTTP ``status`` with ``body`` as an attempt error, in the sender's words.

    Interactive or a batch's result, the words are :func:`said` of its :func:`error_object`,
    else a string body (named as no JSON unless ``sent_json``), else the body as JSON (300
    characters), else ``fallback``. ``hint_404`` is added to a 404 that is not an unknown model;
    ``retry_after`` (seconds) is kept. Classed by :func:`.base.classify_status`, an
    ``overloaded_error`` transient whatever its status. ``label`` replaces ``HTTP <status>``
    where no HTTP reply carried the status (an Anthropic batch result's ``errored``).
    """
    err = error_object(body)
    if member_str(err, "message") is not None:
        message = said(err)
    elif isinstance(body, str) and body.strip() and sent_json:
        message = " ".join(body.split())[:300]  # an error member that is a string
    elif isinstance(body, str) and body.strip():  # a body that is no JSON: a proxy's page
        message = f"the reply is not JSON: {' '.join(body.split())[:300]!r}"
    elif body is not None:  # JSON with no message string: quoted as JSON, as sent
        message = json.dumps(body, ensure_ascii=False)[:300]
    else:
        message = fallback
    if status == 404 and hint_404 and err.get("code") != "model_not_found":
        message = f"{message}; {hint_404}"
    reason = None if label is None else f"{label}: {message}"
    fault = draw_fault(err)
    out = classify_status(status, message, retry_after=retry_after, reason=reason, fault=fault)
    if err.get("type") == "overloaded_error" and not out.retryable:  # whatever its status
        return AttemptError(out.reason, status=status)
    return out


def error_object(body: Any) -> dict[str, Any]:
    """The error object of an error reply, from the SDK's ``body``; ``{}`` when there is none.

    The SDK gives an object body's ``error`` member, else the body: an object (OpenAI's error,
    or one wrapping it again in ``error``), a list whose first item is the error or wraps it in
    ``error`` (Gemini's and Vertex AI's OpenAI endpoints: ``[{"error": {"code", "message",
    "status"}}]``), or an object whose ``errors`` list holds it (Cloudflare's API envelope:
    ``{"success": false, "errors": [{"code", "message"}]}``).
    """
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]
    if not isinstance(body, dict):
        return {}
    inner = body.get("error")
    if isinstance(inner, dict):
        return inner
    errors = body.get("errors")
    if member_str(body, "message") is None and isinstance(errors, list) and errors:
        return errors[0] if isinstance(errors[0], dict) else body
    return body


def _sent_json(response: Any) -> bool:
    """Whether the body of ``response`` (an httpx response, or ``None``) is JSON."""
    try:
        loads_strict(str(response.text), allow_nan=True)
    except (AttributeError, JSONFault):
        return False
    return True


def said(err: Any) -> str:
    """A reply's ``error`` member in the sender's words: ``<type>: <message>`` (300 characters).

    An error with no ``message`` string is quoted as JSON (200 characters); a ``type`` of the
    string ``"None"`` (a LiteLLM proxy's for an error it has no type for) names no type.
    """
    message, kind = member_str(err, "message"), member_str(err, "type")
    kind = None if kind == "None" else kind
    return (f"{kind}: " if kind else "") + (message[:300] if message else json.dumps(err)[:200])


def late_thought(holds: str, kinds: list[str], reasoning: str = "thinking") -> str:
    """Why a reply holding reasoning after its answer is not read (D-19); ``holds`` says where.

    ``kinds``: its parts' types in order, the first ten named; ``reasoning``: the parts' name.
    """
    found = ", ".join(kinds[:10]) + (", …" if len(kinds) > 10 else "")
    why = f"{holds} ({found}), not {reasoning} followed by the answer"
    return f"{why}, so there is nothing to grade"


def refused(exc: BaseException) -> bool:
    """Whether ``exc`` or an exception it was raised from or during is a refused connection."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, ConnectionRefusedError):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def count(v: Any) -> int | None:
    """A token count from 0 to 2**53 - 1 (D-12: larger cannot be sealed), else ``None``."""
    ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= JSON_SAFE_INTEGER
    return v if ok else None


def anthropic_input(u: dict[str, Any]) -> tuple[int | None, int | None, int | None]:
    """(billed input, cache reads, cache writes) of an Anthropic ``usage`` object, in tokens.

    The billed input is ``input_tokens`` plus both cache parts (Messages API and ``claude -p``
    alike); ``None`` when the input is no :func:`count` or a cache part is given but is none.
    """
    inp, cr, cc = (
        count(u.get(k))
        for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    parts = (u.get("cache_read_input_tokens"), u.get("cache_creation_input_tokens"))
    bad = any(v is not None and count(v) is None for v in parts)  # a part but no count: no total
    return (None if inp is None or bad else count(inp + (cr or 0) + (cc or 0))), cr, cc


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date) asks; None if unread."""
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
        ra = headers.get("retry-after")
        if ra is None:
            return None
        try:
            return max(0.0, float(ra))
        except (TypeError, ValueError):
            when = parsedate_to_datetime(str(ra))
    except (AttributeError, TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class SDKLane(Provider):
    """Base of the API lanes over an official SDK client.

    The key (any of :attr:`keys`, or ``api_key``) is checked when built
    (:class:`MissingCredentials`); the SDK's retries are off (every attempt is the runner's,
    counted), no redirect is followed and no body read past :mod:`._capped`'s cap;
    :attr:`service` is the base URL, credentials stripped. Calls go through the async client on
    the lane's own event loop (:meth:`deadline`) so each can be cut off at its deadline: the
    SDK's ``timeout`` counts from each byte received, which a trickling server never meets.
    """

    keys: tuple[str, ...] = ()
    #: the SDK's module, client class and error base, imported only when a lane is built
    sdk: tuple[str, str, str]

    def __init__(self, *, base_url: str | None = None, api_key: str | None = None) -> None:
        if not (api_key or any(os.environ.get(v) for v in self.keys)):
            raise MissingCredentials(self.keys[0], f"{self.name} {self.surface}")
        module = importlib.import_module(self.sdk[0])
        self._errors: type[Exception] = getattr(module, self.sdk[2])
        client_class = getattr(module, self.sdk[1])
        sync, asynchronous = module.DefaultHttpxClient, module.DefaultAsyncHttpxClient
        from driftproof.run.providers._capped import HEADERS, capped, capped_sync  # httpx2

        http = {"follow_redirects": False, "headers": HEADERS}  # each body uncompressed, capped
        self.client = client_class(
            base_url=base_url,
            api_key=api_key,
            max_retries=0,
            http_client=sync(**http, event_hooks={"response": [capped_sync]}),
        )
        self.service = strip_credentials(str(self.client.base_url))
        self._async_class = getattr(module, "Async" + self.sdk[1])
        self._async_args = {"base_url": str(self.client.base_url), "api_key": api_key}
        self._async_http = lambda: asynchronous(**http, event_hooks={"response": [capped]})
        self._lock = threading.Lock()
        self._loop: tuple[asyncio.AbstractEventLoop, Any] | None = None
        self._closed = False
        self._end: weakref.finalize[Any, SDKLane] | None = None
        #: whether any attempt got an answer (an HTTP status): a refused connection before that
        #: stops the run (nothing listens at the base URL), after it is retried (a restart)
        self.reached = False

    def _running(self) -> tuple[asyncio.AbstractEventLoop, Any]:
        """The lane's event loop and async client, started on first use, ended at :meth:`close`."""
        with self._lock:
            if self._closed:  # a draw still running after the run stopped: no new call
                raise Halted()
            if self._loop is None:
                loop = asyncio.new_event_loop()
                name = f"driftproof-{self.name}-api"
                threading.Thread(target=_serve, args=(loop,), name=name, daemon=True).start()
                client = self._async_class(
                    **self._async_args, max_retries=0, http_client=self._async_http()
                )
                self._loop = (loop, client)
                self._end = weakref.finalize(self, _end, *self._loop)
                self._end.atexit = False  # at exit the daemon thread just ends
            return self._loop

    def deadline(self, make: Callable[[Any], Awaitable[T]], timeout: float) -> T:
        """What ``make(client)`` awaits on the lane's loop, cut off ``timeout`` s after it starts.

        Raises:
            Halted: :meth:`close` ended the loop under it (the run is stopping); an unfinished
                draw, not journaled, drawn again on resume.
            TimeoutError: the deadline passed. The SDK's errors come as they are.
        """
        loop, client = self._running()

        async def whole() -> T:
            return await asyncio.wait_for(make(client), timeout)

        try:
            return asyncio.run_coroutine_threadsafe(whole(), loop).result()
        except CancelledError:
            raise Halted() from None

    def post(
        self,
        create: Callable[[Any], Callable[..., Awaitable[Any]]],
        req: dict[str, Any],
        call: Call,
        *,
        hint_404: str | None = None,
    ) -> tuple[dict[str, Any], str, str | None]:
        """One attempt: ``req`` sent by the ``with_raw_response.create`` that ``create`` picks.

        Cut off ``call.timeout`` seconds after it starts. Returns the body as a JSON object and as
        text, and why another model answered (:func:`fell_back`) or ``None``. Raises
        :class:`AttemptError`: as :func:`sdk_error` classes the SDK's error or the deadline; lost
        for a status other than 200; transient for a body not text in its encoding (its
        Content-Type's charset, else UTF-8), no JSON object, or an error (an ``error`` member not
        null, or vLLM's and SGLang's ``object`` ``error``); fatal for :data:`NO_ROUTE`
        (``hint_404`` named), a web page (:func:`.base.not_json`) or a refused connection.
        """
        try:  # the raw response: its JSON is read as the API sent it, no model built from it
            sent = self.deadline(lambda c: create(c)(**req, timeout=call.timeout), call.timeout)
            handoff = fell_back(getattr(sent.http_response, "headers", None))
        except (self._errors, TimeoutError) as exc:
            raise self.failed(exc, call.timeout, hint_404=hint_404) from exc
        self.reached = True
        if (status := sent.http_response.status_code) != 200:  # 206, 202, 203: as a batch's line
            raise reply_error(status, None, "a status other than 200 OK is not read as an answer")
        raw, encoding = bytes(sent.http_response.content), sent.http_response.encoding or "utf-8"
        try:  # strict: the client's own reading makes a byte not of its encoding U+FFFD unsaid
            body = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            why = f"an invalid byte at offset {exc.start:,}: {raw[exc.start : exc.start + 40]!r}"
            raise AttemptError(f"the reply is not {encoding} text ({why})") from exc
        try:  # strict: a member name given twice (two grades) is no reply to read
            obj = loads_strict(body, allow_nan=True)
        except JSONFault as exc:
            raise not_json(body, exc, getattr(sent.http_response, "headers", {})) from exc
        if not isinstance(obj, dict):
            raise AttemptError(f"the reply is not a JSON object: {body[:200]!r}")
        err = obj.get("error")
        if err is None and obj.get("object") == "error":  # vLLM's and SGLang's ErrorResponse
            err = obj
        if err is not None:  # a gateway's failure sent with status 200, whatever else it holds
            why = f"the reply is an error with status 200, not an answer: {said(err)}"
            if isinstance(err, str) and err.startswith(NO_ROUTE):  # every call would fail too
                hint = hint_404 or "check that the base URL ends in /v1"
                raise AttemptError(f"{why}: the server has no such endpoint; {hint}", fatal=True)
            raise AttemptError(why)
        return obj, body, handoff

    def failed(
        self, exc: Exception, timeout: float, *, hint_404: str | None = None
    ) -> AttemptError:
        """:func:`sdk_error` of ``exc`` for a call to this lane's base URL (attempt or batch call).

        A refused connection is fatal, naming the base URL, until a call of this lane has been
        answered with an HTTP status (:attr:`reached`); after that it is transient (a restart).
        """
        out = sdk_error(exc, timeout, hint_404=hint_404)
        if out.status is None and not self.reached and refused(exc):
            return AttemptError(
                f"{out.reason} (base URL {self.service}): it refuses connections and no "
                "call to it has been answered in this run",
                fatal=True,
            )
        self.reached = self.reached or out.status is not None
        return out

    def close(self) -> None:
        """Close both clients and end the lane's event loop."""
        self.client.close()
        with self._lock:
            end, self._loop, self._end, self._closed = self._end, None, None, True
        closed = end() if end is not None else None  # None: it has ended already
        if closed is not None:
            closed.result()


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """Run ``loop`` until stopped, then close it."""
    loop.run_forever()
    loop.close()


def _end(loop: asyncio.AbstractEventLoop, client: Any) -> Future[None]:
    """Cancel the attempts in flight on ``loop``, close ``client``, then stop ``loop``.

    From any thread, without waiting: each cancelled attempt's caller gets a
    :class:`~concurrent.futures.CancelledError`, never left waiting.
    """

    async def shutdown() -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # each caller told, then the stop
        await client.close()

    closed = asyncio.run_coroutine_threadsafe(shutdown(), loop)
    closed.add_done_callback(lambda _: loop.call_soon_threadsafe(loop.stop))
    return closed
