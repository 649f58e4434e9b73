"""A loopback fake of both providers' batch APIs (imported as ``batch_fake``), spoken to through
the official SDKs: the shapes follow the API references and the SDKs' own types.

Anthropic Message Batches (``anthropic.types.messages``):
  POST /v1/messages/batches {"requests": [{"custom_id", "params"}]} → MessageBatch
  GET  /v1/messages/batches/{id} → MessageBatch (processing_status
       in_progress|canceling|ended; request_counts {processing, succeeded, errored, canceled,
       expired}; results_url once ended)
  GET  /v1/messages/batches/{id}/results → JSONL of MessageBatchIndividualResponse
       {"custom_id", "result": {"type": succeeded|errored|canceled|expired, …}}
  POST /v1/messages/batches/{id}/cancel → MessageBatch (canceling)
OpenAI Batch API (``openai.types.Batch``, ``FileObject``):
  POST /v1/files (multipart, purpose=batch) → FileObject
  POST /v1/batches {input_file_id, endpoint, completion_window} → Batch (validating)
  GET  /v1/batches/{id} → Batch (validating|in_progress|finalizing|completed|expired|
       cancelling|cancelled|failed; request_counts {total, completed, failed};
       output_file_id, error_file_id once ended)
  POST /v1/batches/{id}/cancel → Batch (cancelling)
  GET  /v1/batches?limit=&after= → {"object": "list", "data": [Batch, newest first], "first_id",
       "last_id", "has_more"}
  GET  /v1/files/{id}/content → the output or error JSONL: {"id", "custom_id", "response":
       {"status_code", "request_id", "body"}, "error"}

Answers and judge replies are the scripted ones of :mod:`run_helpers`. ``Script`` decides
faults per custom id, how many polls a batch takes, whether it ever ends, and can hold a
retrieve or a results stream half-way (for the kill tests).
"""

from __future__ import annotations

import email.parser
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from batch_fake_state import BatchScript, FakeState, _Batch

__all__ = ["BatchLoopback", "BatchScript", "FakeState"]


def make_handler(state: FakeState) -> type[BaseHTTPRequestHandler]:
    s = state.script

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, code: int, obj: Any, what: str = "") -> None:
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self._write(data, what)

        def _write(self, data: bytes, what: str) -> None:
            """``data``, trickled one byte at a time when ``what`` is in ``trickle``."""
            if what not in s.trickle:
                self.wfile.write(data)
                return
            with s.lock:
                s.trickled += 1
            for i in range(len(data)):  # until the client hangs up or the fake closes
                if s.release.wait(s.trickle_gap):
                    return
                try:
                    self.wfile.write(data[i : i + 1])
                except OSError:
                    return

        def _count(self, what: str) -> None:
            with s.lock:
                s.calls[what] += 1

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("content-length", 0)))

        def do_POST(self) -> None:
            raw = self._body()
            p = self.path.split("?")[0]
            what = "create"
            if p in ("/v1/messages/batches", "/v1/batches") and self._failed(s.fail_create):
                return
            if p.endswith("/cancel") and self._failed(s.fail_cancel):
                return
            with s.lock:
                if p == "/v1/messages/batches":
                    reqs = [(r["custom_id"], r["params"]) for r in json.loads(raw)["requests"]]
                    b = _Batch(state.new_id("msgbatch_"), "anthropic", reqs, None, None)
                elif p == "/v1/files":
                    ctype = self.headers["content-type"]
                    msg = email.parser.BytesParser().parsebytes(
                        b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + raw
                    )
                    parts = {
                        part.get_param("name", header="content-disposition"): part.get_payload(
                            decode=True
                        )
                        for part in msg.get_payload()
                    }
                    fid = state.new_id("file-")
                    state.files[fid] = parts["file"]
                    s.calls["upload"] += 1
                    self._send(
                        200,
                        {
                            "id": fid,
                            "object": "file",
                            "bytes": len(parts["file"]),
                            "created_at": 0,
                            "filename": "batch.jsonl",
                            "purpose": parts["purpose"].decode(),
                            "status": "processed",
                        },
                    )
                    return
                elif p == "/v1/batches":
                    body = json.loads(raw)
                    lines = [
                        json.loads(x)
                        for x in state.files[body["input_file_id"]].splitlines()
                        if x.strip()
                    ]
                    assert all(
                        x["url"] == body["endpoint"] and x["method"] == "POST" for x in lines
                    )
                    reqs = [(x["custom_id"], x["body"]) for x in lines]
                    b = _Batch(
                        state.new_id("batch_"),
                        "openai",
                        reqs,
                        body["endpoint"],
                        body["input_file_id"],
                    )
                elif p.endswith("/cancel"):
                    b = state.batches[p.split("/")[-2]]
                    b.cancelled, what = True, "cancel"
                    s.calls["cancel"] += 1
                else:
                    self._send(
                        404, {"type": "error", "error": {"type": "not_found_error", "message": p}}
                    )
                    return
                if what == "create":
                    b.number = len(s.batch_ids) + 1
                    ids = [cid for cid, _ in b.requests]
                    assert len(set(ids)) == len(ids), "custom ids must be unique within a batch"
                    state.batches[b.id] = b
                    s.calls["create"] += 1
                    s.submitted.extend(ids)
                    s.batch_ids.append(b.id)
                doc = state.anthropic_doc(b) if b.kind == "anthropic" else state.openai_doc(b)
                drop = what == "create" and s.drop_create > 0
                s.drop_create -= drop
            if drop:
                self.close_connection = True
                return
            self._send(200, doc, what)  # a trickled reply holds no lock

        def do_GET(self) -> None:
            p = self.path.split("?")[0]
            parts = p.strip("/").split("/")
            if p.startswith("/v1/files/") and p.endswith("/content"):
                if self._failed(s.fail_results):
                    return
                self._stream(state.files[parts[2]].splitlines(keepends=True), "application/jsonl")
                return
            if p.startswith("/v1/messages/batches/") and p.endswith("/results"):
                b = state.batches[parts[3]]
                self._count("results")
                with s.lock:
                    drop, s.drop_results = s.drop_results > 0, max(0, s.drop_results - 1)
                if drop:
                    self.close_connection = True
                    return
                if self._failed(s.fail_results):
                    return
                self._stream(state.anthropic_results(b), "application/binary")
                return
            if p == "/v1/batches":
                self._list()
                return
            bid = parts[-1]
            self._count("retrieve")
            if s.hold_retrieve:
                s.release.wait(60)
                return
            with s.lock:
                b = state.batches[bid]
                b.asked += not b.ended
                s.calls["poll"] += not b.ended
                fault = s.fail_ended if b.ended else s.fail_retrieve(b.asked)
            if self._failed(fault):
                return
            with s.lock:
                state.advance(b)
                doc = state.anthropic_doc(b) if b.kind == "anthropic" else state.openai_doc(b)
            self._send(200, doc, "retrieve")

        def _failed(self, fault: str | None) -> bool:
            """Answer with ``fault`` (see ``BatchScript.fail_retrieve``); whether there was one."""
            if fault == "reset":
                self.close_connection = True
            elif fault in ("500", "error200"):  # error200: the same error body, status 200
                error = {"type": "api_error", "message": "Internal server error"}
                self._send(500 if fault == "500" else 200, {"type": "error", "error": error})
            elif fault == "400":  # a refusal: nothing was made
                error = {"type": "invalid_request_error", "message": "requests: too many"}
                self._send(400, {"type": "error", "error": error})
            elif fault in ("empty200", "state200"):  # status 200: no batch; a state none documents
                paused = {"id": "b", "processing_status": "paused", "status": "paused"}
                self._send(200, paused if fault == "state200" else {})
            elif fault is not None:  # "html", "page200", "text200", "json200"
                page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
                page = b"upstream connect error" if fault == "text200" else page
                page = b'{"id": "msgbatch_' if fault == "json200" else page
                page = b"" if fault == "blank200" else page
                self.send_response(502 if fault == "html" else 200)
                kind = {"text200": "text/plain", "json200": "application/json"}
                kind["blank200"] = "application/octet-stream"  # no line at all
                self.send_header("content-type", kind.get(fault, "text/html"))
                self.send_header("content-length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)
            return fault is not None

        def _list(self) -> None:
            """The OpenAI batch list, newest first, in pages of ``limit`` after the id ``after``."""
            q = dict(x.split("=", 1) for x in self.path.partition("?")[2].split("&") if x)
            self._count("list")
            if s.fail_list != "items200" and self._failed(s.fail_list):
                return
            with s.lock:
                made = [b for b in reversed(state.batches.values()) if b.kind == "openai"]
                ids = [b.id for b in made]
                start = ids.index(q["after"]) + 1 if "after" in q else 0
                page = made[start : start + int(q.get("limit", 20))]
                data = [state.openai_doc(b) for b in page]
            if s.fail_list == "items200":  # each batch without its input file and time
                data = [{k: d[k] for k in ("id", "object", "status")} for d in data]
            more = start + len(page) < len(made)
            first, last = (data[0]["id"], data[-1]["id"]) if data else (None, None)
            doc = {"object": "list", "data": data, "first_id": first, "last_id": last}
            self._send(200, doc | {"has_more": more}, "list")

        def _stream(self, lines: list[bytes], ctype: str) -> None:
            with s.lock:
                short, s.short_results = s.short_results > 0, max(0, s.short_results - 1)
            lines = lines[:-2] if short else lines
            self.send_response(200)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(sum(len(x) for x in lines)))
            self.end_headers()
            if "results" in s.trickle:
                self._write(b"".join(lines), "results")
                return
            for k, line in enumerate(lines):
                if s.hold_results_after is not None and k == s.hold_results_after:
                    self.wfile.flush()
                    s.release.wait(60)
                    return
                self.wfile.write(line)
            self.wfile.flush()

    return Handler


class _Server(ThreadingHTTPServer):
    """Keeps every exception a handler raised (``errors``): the client sees only a dropped
    connection, which the batch engine reads as a broken stream, so a fake that cannot answer
    must fail the test that used it, not look like a network fault."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.errors: list[str] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys
        import traceback

        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            # the client went away (a SIGKILL test kills it mid-request): not the fake's fault
            return
        self.errors.append(traceback.format_exc())


class BatchLoopback:
    """The fake on ``http://127.0.0.1:<port>`` (Anthropic base URL ``url``, OpenAI
    ``url + "/v1"``). ``errors``: tracebacks of the handler exceptions (the ``fake`` fixture
    asserts there are none)."""

    def __init__(self) -> None:
        self.script = BatchScript()
        # the handler needs the state, which needs the port: a placeholder until then
        self.server = _Server(("127.0.0.1", 0), BaseHTTPRequestHandler)
        self.errors = self.server.errors
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.state = FakeState(self.script, self.url)
        self.server.RequestHandlerClass = make_handler(self.state)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.script.release.set()
        self.server.shutdown()
        self.server.server_close()
