"""The providers' batch lanes: Anthropic Message Batches and the OpenAI Batch API.

A round larger than one batch's documented size is split. Anthropic's spooled body is posted
through the SDK client's ``post`` (``batches.create(requests=...)`` would hold the requests three
times over); OpenAI's input file is uploaded from the spool.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Generator, Iterable, Iterator
from contextlib import ExitStack
from typing import Any, cast

from driftproof._json import JSONFault, loads_strict, member_object
from driftproof.run.batch import BatchLane, BatchStatus, Outcome, Result, Spool
from driftproof.run.providers import cli
from driftproof.run.providers._sdk import SDKLane, error_object, reply_error
from driftproof.run.providers._sdk import said as error_words
from driftproof.run.providers.anthropic_api import AnthropicAPI, build_request, read_message
from driftproof.run.providers.base import HTML_PAGE, AttemptError, Provider, Request, not_json
from driftproof.run.providers.openai_api import (
    OpenAIAPI,
    build_chat,
    build_responses,
    choice_error,
    read_chat,
    read_response,
)

#: Anthropic error ``type`` → the HTTP status the Messages API gives it (API reference, "Errors").
ANTHROPIC_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

#: Message Batches result types of a request that was not processed (retried) → what happened.
_NOT_PROCESSED = {"expired": "ended", "canceled": "was cancelled"}

#: Seconds the batch list is read back past the journaled time of a creation: that time is this
#: machine's clock and a batch's the provider's, so a clock ahead by less than a day still finds it.
CLOCK_MARGIN = 24 * 3600.0

#: The OpenAI Batch API's ``status`` values of a batch that has ended (its files are read).
OPENAI_BATCH_ENDED = ("completed", "failed", "expired", "cancelled")

#: What each batch of the OpenAI batch list must give: its id, time, input file and state.
_LISTED = (("id", str), ("created_at", int), ("input_file_id", str), ("status", str))


def jsonl_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a JSON Lines body given in ``chunks``, cut at each line feed byte only.

    A carriage return before it stays with its line (JSON reads it as white space); a last
    line with no line end is yielded too. Not a text reader's line ends: U+2028, U+2029 and
    U+0085 may stand unescaped inside a JSON string, so a line is never cut at them. Memory:
    one line, of at most :data:`.cli.OUTPUT_MAX_BYTES` (one reply's cap).

    Raises:
        AttemptError: a line is longer than the cap (the rest unread).
    """
    held: list[bytes] = []
    size = 0
    for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            _within(size + end - start)
            held.append(chunk[start:end])
            yield b"".join(held)
            held, size, start = [], 0, end + 1
        if start < len(chunk):
            size = _within(size + len(chunk) - start)
            held.append(chunk[start:])
    if held:
        yield b"".join(held)


def _within(size: int) -> int:
    """``size`` (bytes of one line) if within one reply's cap; else :class:`AttemptError`."""
    if size > cli.OUTPUT_MAX_BYTES:
        raise AttemptError(
            f"a line of the batch's results is longer than {cli.cap_words()}, the most one reply"
            " may take; the rest unread"
        )
    return size


def result_line(
    bid: str, line: bytes, where: str, outcome: Callable[[str, str, dict[str, Any]], Outcome]
) -> tuple[str | None, Outcome]:
    """One line of batch ``bid``'s results as (custom id, ``outcome(bid, id, object)``), or why not.

    A line that is not UTF-8 (RFC 8259 §8.1), no JSON object, or whose custom id is not one
    piece of text, names no request: ``(None, AttemptError)`` naming ``where``. A line that
    gives any other member name twice is read as an interactive reply is (D-19): not at all,
    ``(custom id, AttemptError)``, transient, so the request is sent again in a follow-up
    batch. The custom id is ``None`` only beside an :class:`AttemptError`.

    Raises:
        AttemptError: the line opens a web page (:data:`.base.HTML_PAGE`): what answered the
            read is no results file, fatal as for a call (:func:`.base.not_json`).
    """
    try:
        raw = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, AttemptError(f"{where} is not UTF-8 text (byte {line[exc.start]:#04x})")
    if HTML_PAGE.match(raw):  # a proxy's page: no request of the batch is answered in it
        raise not_json(raw, ValueError("a web page"))
    try:
        obj, fault = loads_strict(raw, allow_nan=True), None
    except JSONFault as exc:
        try:  # the last of each name, and the top object's pairs, to find the request named
            obj, pairs = json.loads(raw), json.loads(raw, object_pairs_hook=lambda p: p)
        except (ValueError, RecursionError):
            obj = pairs = None
        if isinstance(obj, dict) and sum(k == "custom_id" for k, _ in pairs) > 1:
            return None, AttemptError(f"{where} names no request (its custom id is given twice)")
        fault = exc
    if not isinstance(obj, dict):  # it names no request: one left without a result says so
        return None, AttemptError(f"{where} is not a result (a JSON object)")
    cid = obj.get("custom_id")
    if not isinstance(cid, str):
        return None, AttemptError(f"{where} names no request")
    if fault is not None:
        return cid, AttemptError(f"batch {bid}: the result is not JSON ({fault}): {raw[:200]!r}")
    return cid, outcome(bid, cid, obj)


class _SDKBatches(BatchLane):
    """A batch API called through its lane's SDK, each reply read as a call's."""

    def _sdk(self, fn: Any, *args: Any, **kw: Any) -> Any:
        """``fn(*args, **kw)``; the SDKs' errors, the deadline and a 200 no JSON read as a call's.

        A reply with an ``error`` member (a gateway's error with status 200), or whose ``id`` is
        not text, is a failed attempt quoting it (:meth:`._sdk.SDKLane.failed` for the errors).
        """
        lane = cast(SDKLane, self.lane)
        try:
            out = fn(*args, **kw)
        except json.JSONDecodeError as exc:  # a 200 under a JSON content type, its body no JSON
            raise not_json(exc.doc, exc) from exc
        except Exception as exc:
            sdk = type(exc).__module__.split(".")[0] in ("anthropic", "openai")
            if sdk or isinstance(exc, TimeoutError):
                raise lane.failed(exc, self.call_timeout) from exc
            raise
        lane.reached = True
        if isinstance(out, str):  # a 200 not JSON, its text as the SDKs return it: as a call's
            raise not_json(out, ValueError("not a JSON content type"))
        if (err := getattr(out, "error", None)) is not None:  # no batch type has an ``error``
            why = f"the reply is an error with status 200, not an answer: {error_words(err)}"
            raise AttemptError(why)
        if not isinstance(getattr(out, "id", ""), str):  # a batch or file with no id
            raise AttemptError(
                f"the reply names no batch or file: {out.to_json(indent=None)[:200]}"
            )
        return out

    @staticmethod
    def _state(batch: Any, state: Any, states: tuple[str, ...]) -> str:
        """``state`` if one of the ``states`` the batch API documents; else AttemptError, quoted."""
        if state not in states:
            quoted = batch.to_json(indent=None)[:200]
            raise AttemptError(f"the reply gives the batch no state its API documents: {quoted}")
        return cast(str, state)

    def _call(self, make: Callable[[Any], Awaitable[Any]]) -> Any:
        """``make(async client)`` awaited within :attr:`call_timeout`. Raises AttemptError."""
        return self._sdk(cast(SDKLane, self.lane).deadline, make, self.call_timeout)


class AnthropicBatches(_SDKBatches):
    """Message Batches: ``messages.batches.create/retrieve/cancel/results``."""

    provider, max_requests, max_bytes = "anthropic", 100_000, 256 * 1024 * 1024
    frame = (b'{"requests":[', b",", b"]}")  # a JSON object's ``requests`` array
    lane: AnthropicAPI

    def request(self, kw: dict[str, Any]) -> dict[str, Any]:
        """The Messages request body of one call (see :meth:`BatchLane.request`)."""
        return build_request(Request(**kw))

    def entry(self, custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """A Message Batches request: ``{custom_id, params}``."""
        return {"custom_id": custom_id, "params": body}

    def create(self, spool: Spool | None, file_id: str | None) -> str:
        """Create a Message Batch from ``spool``; return its id."""
        from anthropic.types.messages import MessageBatch  # the SDK loads with a lane, not before

        if spool is None:
            raise ValueError("an Anthropic batch is created from its requests")
        # the route and reply type of messages.batches.create, with the body streamed from the
        # spool (see the module doc); JSON is the client's default content type
        batch = self._sdk(
            self.lane.client.post,
            "/v1/messages/batches",
            content=spool.body(),
            cast_to=MessageBatch,
        )
        return str(batch.id)

    def status(self, batch_id: str) -> BatchStatus:
        """The Message Batch's state (see :meth:`BatchLane.status`)."""
        b = self._call(lambda c: c.messages.batches.retrieve(batch_id))
        state = self._state(b, b.processing_status, ("in_progress", "canceling", "ended"))
        return BatchStatus(
            b.id,
            state,
            state == "ended",
            {  # the counts given (a reply in the documented state may give none)
                k: n
                for k in ("processing", "succeeded", "errored", "canceled", "expired")
                if isinstance(n := getattr(b.request_counts, k, None), int)
            },
        )

    def cancel(self, batch_id: str) -> None:
        """Cancel the Message Batch (see :meth:`BatchLane.cancel`)."""
        self._call(lambda c: c.messages.batches.cancel(batch_id))

    def results(self, status: BatchStatus) -> Generator[Result, None, None]:
        """The batch's results (see :meth:`BatchLane.results`), read by :func:`result_line`."""
        from anthropic._decoders.jsonl import JSONLDecoder  # the SDK's results stream

        bid = status.id
        # messages.batches.results, its fetch of the batch made as a poll's (the SDK's own
        # takes a web page for the batch); the SDK's stream, its lines read here: its own
        # decoder keeps the last of a member name given twice and reads no line past one
        # that is not JSON
        url = self._call(lambda c: c.messages.batches.retrieve(bid)).results_url
        if not isinstance(url, str) or not url:
            raise AttemptError(f"batch {bid} names no place to read its results from")
        accept = {"headers": {"Accept": "application/binary"}}
        stream = self._sdk(
            self.lane.client.get, url, cast_to=JSONLDecoder[Any], stream=True, options=accept
        )
        try:
            lines = jsonl_lines(stream.http_response.iter_bytes())
            for n, raw in enumerate(lines, start=1):
                if raw.strip():
                    where = f"line {n} of its results"
                    yield *result_line(bid, raw, where, self._result), "results"
        finally:
            stream.close()

    def _result(self, bid: str, cid: str, line: dict[str, Any]) -> Outcome:
        return self._outcome(bid, cid, member_object(line, "result"))

    def _outcome(self, bid: str, cid: str, r: dict[str, Any]) -> Outcome:
        kind = r.get("type")
        if kind == "succeeded" and isinstance(msg := r.get("message"), dict):
            return self.lane.kept(read_message(msg, graded=cid.startswith("j")), msg)
        if kind == "errored":  # its error is the error body an interactive call would get
            etype = error_object(r.get("error")).get("type")
            status = ANTHROPIC_ERROR_STATUS.get(etype, 500) if isinstance(etype, str) else 500
            # no HTTP reply carried the status: the result's own word, errored, stands for it
            no_error = "with no error given"
            return reply_error(status, r.get("error"), no_error, label=f"batch {bid}: errored")
        if kind in _NOT_PROCESSED:
            why = f"the batch {_NOT_PROCESSED[kind]} before this request was processed"
            return AttemptError(f"batch {bid}: {kind}: {why}")
        return AttemptError(f"batch {bid}: unknown result type {str(kind)[:50]!r}", retryable=False)


class OpenAIBatches(_SDKBatches):
    """The OpenAI Batch API: a batch input file, the batch, its output and error files."""

    provider, max_requests, max_bytes, uploads = "openai", 50_000, 200 * 1024 * 1024, True
    frame = (b"", b"\n", b"\n")  # JSON lines
    #: the API reference: the output file holds "the outputs of successfully executed requests",
    #: which ``completed`` counts; the error file holds those "with errors" and ``failed`` counts
    #: those "that have failed": whether an expired or cancelled request is one of either it does
    #: not say, so the error file is held to a count only with the output file, both together
    counted_in = {"output file": "completed"}
    lane: OpenAIAPI

    @property
    def endpoint(self) -> str:
        """The Batch API ``endpoint`` (and each line's ``url``) of the lane's API shape."""
        return "/v1/responses" if self.lane.api == "responses" else "/v1/chat/completions"

    def request(self, kw: dict[str, Any]) -> dict[str, Any]:
        """The Responses or Chat request body of one call (see :meth:`BatchLane.request`)."""
        if self.lane.api == "responses":
            return build_responses(Request(**kw))
        return build_chat(Request(**kw), budget_param=self.lane.budget_param)

    def entry(self, custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """A Batch API input line: ``{custom_id, method, url, body}``."""
        return {"custom_id": custom_id, "method": "POST", "url": self.endpoint, "body": body}

    def upload(self, spool: Spool) -> str | None:
        """Upload the requests as a batch input file; return its id."""
        f = self._sdk(
            self.lane.client.files.create, file=("batch.jsonl", spool.body()), purpose="batch"
        )
        return str(f.id)

    def create(self, spool: Spool | None, file_id: str | None) -> str:
        """Create the batch from the uploaded ``file_id``; return its id."""
        return self._sdk(
            self.lane.client.batches.create,
            input_file_id=file_id,
            endpoint=self.endpoint,
            completion_window="24h",
        ).id

    def status(self, batch_id: str) -> BatchStatus:
        """The batch's state (see :meth:`BatchLane.status`)."""
        b = self._call(lambda c: c.batches.retrieve(batch_id))
        running = ("validating", "in_progress", "finalizing", "cancelling")
        self._state(b, b.status, (*running, *OPENAI_BATCH_ENDED))
        rc, kinds = b.request_counts, ("total", "completed", "failed")  # those given, as numbers
        counts = {k: n for k in kinds if isinstance(n := getattr(rc, k, None), int)}
        failed = None
        if b.status == "failed":
            errs = (b.errors.data if b.errors is not None else None) or []
            failed = "; ".join(
                f"{e.code}: {e.message}" + (f" (line {e.line})" if e.line else "") for e in errs
            )[:900]
        files = {"output file": b.output_file_id, "error file": b.error_file_id}
        return BatchStatus(
            b.id,
            b.status,
            b.status in OPENAI_BATCH_ENDED,
            counts,
            failed,
            {k: f for k, f in files.items() if f},
        )

    def cancel(self, batch_id: str) -> None:
        """Cancel the batch (see :meth:`BatchLane.cancel`)."""
        self._call(lambda c: c.batches.cancel(batch_id))

    def made_from(self, file_id: str, since: float) -> list[tuple[str, str]]:
        """The batches made from ``file_id`` (see :meth:`BatchLane.made_from`), newest first.

        The list is paged newest first until a batch created before ``since`` less
        :data:`CLOCK_MARGIN`, or its end; each page within :attr:`call_timeout`.
        """
        found: list[tuple[str, str]] = []
        after: dict[str, str] = {}  # the next page's ``after``, set in place for the call below
        while True:
            page = self._call(lambda c: c.batches.list(limit=100, **after))
            data = page.data if isinstance(page.has_more, bool) else None
            if not isinstance(data, list) or any(
                not isinstance(getattr(b, k, None), t) for b in data for k, t in _LISTED
            ):  # a batch not told apart could be the one made, and be made again
                quoted = page.to_json(indent=None)[:200]
                raise AttemptError(f"the reply is not a page of the batch list: {quoted}")
            for b in data:
                if b.created_at < since - CLOCK_MARGIN:
                    return found
                if b.input_file_id == file_id:
                    found.append((b.id, b.status))
            if not page.has_more or not data:
                return found
            after["after"] = data[-1].id

    def results(self, status: BatchStatus) -> Generator[Result, None, None]:
        """The batch's results, from its output and error files (see :meth:`BatchLane.results`)."""
        bid = status.id
        if status.failed is not None:
            return  # no request ran; every one is answered "no result" with the provider's errors
        for part, fid in status.files.items():
            with ExitStack() as held:  # sent on entering: its errors are worded as a call's
                content = self.lane.client.files.with_streaming_response.content(fid)
                resp = self._sdk(held.enter_context, content)
                for n, raw in enumerate(jsonl_lines(resp.iter_bytes()), start=1):
                    if raw.strip():
                        where = f"line {n} of its file {fid}"
                        yield *result_line(bid, raw, where, self._outcome), part

    def _outcome(self, bid: str, cid: str, obj: dict[str, Any]) -> Outcome:
        resp, err = obj.get("response"), obj.get("error")
        said = (
            f"{err.get('code', 'error')}: {err.get('message', '')}"
            if isinstance(err, dict)
            else f"error: {'' if err is None else err}"
        )[:300]
        if err is not None and isinstance(resp, dict) and resp.get("status_code") == 200:
            return AttemptError(  # the API reference gives an answer or an error, not both
                f"batch {bid}: its result line holds an answer and an error ({said}); which "
                "one stands cannot be told"
            )
        if (
            isinstance(resp, dict)
            and resp.get("status_code") == 200
            and isinstance(resp.get("body"), dict)
        ):
            if (failed := _failed_body(bid, resp["body"], self.lane.api)) is not None:
                return failed
            graded = cid.startswith("j")
            reply = (
                read_response(resp["body"], graded=graded)
                if self.lane.api == "responses"
                else read_chat(resp["body"], graded=graded, compatible=self.lane.compatible)
            )
            return self.lane.kept(reply, resp["body"])
        if isinstance(resp, dict) and isinstance(resp.get("status_code"), int):
            # worded and classed as an interactive reply's; no body: the line's error
            exc = reply_error(resp["status_code"], resp.get("body"), "" if err is None else said)
            exc.reason = f"batch {bid}: {exc.reason}"
            return exc
        return AttemptError(f"batch {bid}: {said}")


def _failed_body(bid: str, body: dict[str, Any], api: str) -> AttemptError | None:
    """The failed attempt a 200 result ``body`` of batch ``bid`` is, as it would be interactively.

    A body whose ``error`` is not null (a failed Responses ``response``, a gateway's error) or,
    on Chat, whose first choice holds one (:func:`.openai_api.choice_error`): transient, quoted.
    """
    err = body.get("error")
    if err is not None:
        why = f"the reply is an error with status 200, not an answer: {error_words(err)}"
        return AttemptError(f"batch {bid}: {why}")
    failed = choice_error(body) if api == "chat" else None
    if failed is not None:
        failed.reason = f"batch {bid}: {failed.reason}"
    return failed


def batch_lane(lane: Provider) -> BatchLane:
    """The batch API of ``lane``; :class:`ValueError` when it has none (CLI, offline)."""
    # (the lane classes import their SDK only when a lane starts)
    if isinstance(lane, AnthropicAPI) and lane.surface == "api":
        return AnthropicBatches(lane)
    if isinstance(lane, OpenAIAPI) and lane.surface == "api":
        return OpenAIBatches(lane)
    raise ValueError(
        f"--batch needs an API lane (anthropic or openai, --surface api); {lane.name}"
        f"{'/' + lane.surface if lane.surface else ''} has no batch API"
    )
