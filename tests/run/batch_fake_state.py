"""The state of the loopback batch fake (:mod:`batch_fake`): what it was scripted to do
(:class:`BatchScript`), the batches it holds and how they move on, and the documents and result
lines it answers with, in the shapes of the API references and the SDKs' own types."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from run_helpers import _ok, _texts, answer_for, is_judge_prompt, judge_reply

#: A prompt past the model's context window, in Anthropic's words (HTTP 400).
TOO_LONG = "prompt is too long: 215000 tokens > 200000 maximum"


class BatchScript:
    """What the fake does.

    Attributes:
        fault: custom id → ``None`` (answer), ``"errored"`` (overloaded_error / HTTP 500),
            ``"invalid"`` (invalid_request_error / HTTP 400), ``"too_long"`` (the same,
            :data:`TOO_LONG`), ``"expired"``, ``"canceled"``;
            asked once per request.
        polls_to_end: retrieves a batch answers in_progress before it ends.
        never_end: batches stay in progress until cancelled; ``kept_on_cancel`` of their
            requests (in order) have finished by then and keep their results.
        never_end_first: only the first this many batches created never end.
        hold_retrieve: set → every retrieve hangs (the client is waiting on a poll).
        fail_retrieve: the n-th retrieve (from 1, counted in ``calls["poll"]``) of a batch that
            has not ended → ``None`` (answered), ``"500"`` (the provider's JSON error, HTTP
            500; ``"error200"``, status 200), ``"empty200"`` (``{}``, status 200), ``"state200"``
            (a batch in a state no API documents, status 200), ``"html"`` (a proxy's HTML page,
            HTTP 502; ``"page200"``, status 200),
            ``"text200"`` (a plain text body, status 200), ``"json200"`` (a body cut short
            under a JSON content type, status 200), ``"blank200"`` (an empty body, status 200)
            or ``"reset"`` (the connection closed
            with no response); a failed one moves no batch on.
        fail_ended: the same fault for every retrieve of a batch that has ended (the one the
            Anthropic SDK makes before it reads the results), or ``None``.
        fail_create: the same fault for every batch creation (no batch is made), ``"400"``
            (the provider's refusal, invalid_request_error, HTTP 400), or ``None``.
        fail_cancel: the same fault for every cancel (the batch is not cancelled), or ``None``.
        fail_list: the same fault for every page of the OpenAI batch list, or ``"items200"``
            (its batches without their input file and time), or ``None``.
        fail_results: the same fault for every results read (Anthropic's results, an OpenAI
            output or error file's content), or ``None``.
        hold_results_after: a results stream stops after this many lines and hangs.
        short_results: this many results reads (Anthropic's results, an OpenAI output or error
            file's content) leave out their last two lines, the body whole as sent.
        empty_output: an OpenAI batch none of whose requests succeeded names an output file all
            the same, empty (its error file holds the requests' errors).
        drop_results: this many results requests are answered by closing the connection
            without a response (the SDK raises ``APIConnectionError``).
        drop_create: this many batch creations are made, then answered by closing the
            connection without a response (the batch exists; the SDK raises
            ``APIConnectionError``).
        fail_validation: OpenAI batches end ``failed`` with this error message.
        trickle: the calls (``retrieve``, ``cancel``, ``results``: a results stream or an
            OpenAI file's content) whose body is sent one byte every ``trickle_gap`` seconds
            (counted in ``trickled``), as the answers' loopback trickles a reply.
    """

    def __init__(self) -> None:
        self.fault: Callable[[str], str | None] = lambda cid: None
        self.polls_to_end = 0
        self.never_end = False
        self.never_end_first = 0
        self.kept_on_cancel = 0
        self.hold_retrieve = False
        self.fail_retrieve: Callable[[int], str | None] = lambda n: None
        self.fail_ended: str | None = None
        self.fail_create: str | None = None
        self.fail_cancel: str | None = None
        self.fail_list: str | None = None
        self.fail_results: str | None = None
        self.hold_results_after: int | None = None
        self.short_results = 0
        self.empty_output = False
        self.drop_results = 0
        self.drop_create = 0
        self.fail_validation: str | None = None
        self.trickle: set[str] = set()
        self.trickle_gap = 0.25
        self.trickled = 0
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.submitted: list[str] = []  # every custom id of every created batch, in order
        self.batch_ids: list[str] = []


class _Batch:
    def __init__(
        self,
        bid: str,
        kind: str,
        requests: list[tuple[str, dict[str, Any]]],
        endpoint: str | None,
        file_id: str | None,
    ) -> None:
        self.id, self.kind, self.requests, self.endpoint, self.input_file_id = (
            bid,
            kind,
            requests,
            endpoint,
            file_id,
        )
        self.created = int(time.time())
        self.polls = 0
        self.asked = 0  # retrieves while not ended, answered or not
        self.number = 0
        self.cancelled = False
        self.ended = False
        self.outcomes: list[tuple[str, str | None]] | None = None  # (custom id, fault) once ended
        self.output_file_id: str | None = None
        self.error_file_id: str | None = None


class FakeState:
    def __init__(self, script: BatchScript, base: str) -> None:
        self.script, self.base = script, base
        self.batches: dict[str, _Batch] = {}
        self.files: dict[str, bytes] = {}
        self.n = 0

    def new_id(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n:06d}"

    # -- processing -----------------------------------------------------------------------
    def advance(self, b: _Batch) -> None:
        """One retrieve: the batch moves on, and ends when its polls are done (or it was
        cancelled)."""
        s = self.script
        b.polls += 1
        if b.ended:
            return
        never = s.never_end or b.number <= s.never_end_first
        if b.cancelled or (not never and b.polls > s.polls_to_end):
            b.ended = True
            kept = s.kept_on_cancel if b.cancelled and never else len(b.requests)
            b.outcomes = [
                (cid, s.fault(cid) if k < kept else "canceled")
                for k, (cid, _) in enumerate(b.requests)
            ]
            if b.kind == "openai":
                self._openai_files(b)

    def reply_text(self, path: str, body: dict[str, Any]) -> str:
        system, prompt = _texts(path, body)
        return judge_reply(prompt) if is_judge_prompt(prompt) else answer_for(system, prompt)

    def _openai_files(self, b: _Batch) -> None:
        out, err = [], []
        bodies = dict(b.requests)
        for cid, fault in b.outcomes or []:
            rid = self.new_id("batch_req_")
            if fault is None:
                body = bodies[cid]
                path = b.endpoint or "/v1/responses"
                line = {
                    "id": rid,
                    "custom_id": cid,
                    "response": {
                        "status_code": 200,
                        "request_id": rid,
                        "body": _ok(
                            path, body.get("model", "?"), self.reply_text(path, body), body
                        ),
                    },
                    "error": None,
                }
                out.append(line)
            elif fault in ("errored", "invalid", "too_long"):
                code = 500 if fault == "errored" else 400
                err.append(
                    {
                        "id": rid,
                        "custom_id": cid,
                        "response": {
                            "status_code": code,
                            "request_id": rid,
                            "body": {
                                "error": {
                                    "message": "The server had an error"
                                    if code == 500
                                    else TOO_LONG
                                    if fault == "too_long"
                                    else "Invalid 'max_tokens'",
                                    "type": "server_error"
                                    if code == 500
                                    else "invalid_request_error",
                                    "param": None,
                                    "code": None,
                                }
                            },
                        },
                        "error": None,
                    }
                )
            elif fault == "expired":
                err.append(
                    {
                        "id": rid,
                        "custom_id": cid,
                        "response": None,
                        "error": {
                            "code": "batch_expired",
                            "message": "This request could not be executed before the "
                            "completion window expired.",
                        },
                    }
                )
            # cancelled requests that never ran are in neither file
        for lines, attr in ((out, "output_file_id"), (err, "error_file_id")):
            if lines or (attr == "output_file_id" and self.script.empty_output):
                fid = self.new_id("file-out")
                self.files[fid] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                setattr(b, attr, fid)

    # -- documents ------------------------------------------------------------------------
    def anthropic_doc(self, b: _Batch) -> dict[str, Any]:
        ts = "2026-11-30T12:00:00Z"
        counts = {
            "processing": len(b.requests),
            "succeeded": 0,
            "errored": 0,
            "canceled": 0,
            "expired": 0,
        }
        if b.ended:
            counts["processing"] = 0
            for _, f in b.outcomes or []:
                key = {
                    None: "succeeded",
                    "errored": "errored",
                    "invalid": "errored",
                    "too_long": "errored",
                }.get(f, f)
                counts[key] += 1
        status = "ended" if b.ended else ("canceling" if b.cancelled else "in_progress")
        return {
            "id": b.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "created_at": ts,
            "expires_at": "2026-12-01T12:00:00Z",
            "archived_at": None,
            "cancel_initiated_at": ts if b.cancelled else None,
            "ended_at": ts if b.ended else None,
            "results_url": f"{self.base}/v1/messages/batches/{b.id}/results" if b.ended else None,
        }

    def openai_doc(self, b: _Batch) -> dict[str, Any]:
        s = self.script
        if b.ended and s.fail_validation:
            status = "failed"
        elif b.ended:
            status = "cancelled" if b.cancelled else "completed"
        elif b.cancelled:
            status = "cancelling"
        else:
            status = "validating" if b.polls == 0 else "in_progress"
        done = sum(1 for _, f in b.outcomes or [] if f is None) if status != "failed" else 0
        failed = (
            sum(
                1 for _, f in b.outcomes or [] if f in ("errored", "invalid", "too_long", "expired")
            )
            if status != "failed"
            else 0
        )
        return {
            "id": b.id,
            "object": "batch",
            "endpoint": b.endpoint,
            "input_file_id": b.input_file_id,
            "completion_window": "24h",
            "status": status,
            "created_at": b.created,
            "output_file_id": b.output_file_id if status != "failed" else None,
            "error_file_id": b.error_file_id if status != "failed" else None,
            "errors": {
                "object": "list",
                "data": [
                    {
                        "code": "invalid_request",
                        "message": s.fail_validation,
                        "line": 1,
                        "param": "body",
                    }
                ],
            }
            if status == "failed"
            else None,
            "request_counts": {"total": len(b.requests), "completed": done, "failed": failed},
            "metadata": None,
        }

    def anthropic_results(self, b: _Batch) -> list[bytes]:
        bodies = dict(b.requests)
        lines = []
        for cid, f in b.outcomes or []:
            if f is None:
                body = bodies[cid]
                res: dict[str, Any] = {
                    "type": "succeeded",
                    "message": _ok(
                        "/v1/messages",
                        body.get("model", "?"),
                        self.reply_text("/v1/messages", body),
                        body,
                    ),
                }
            elif f in ("errored", "invalid", "too_long"):
                kind = "overloaded_error" if f == "errored" else "invalid_request_error"
                said = TOO_LONG if f == "too_long" else f"scripted {kind}"
                res = {
                    "type": "errored",
                    "error": {"type": "error", "error": {"type": kind, "message": said}},
                }
            else:
                res = {"type": f}
            lines.append((json.dumps({"custom_id": cid, "result": res}) + "\n").encode())
        return lines
