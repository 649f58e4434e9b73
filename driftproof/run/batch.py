"""The providers' batch APIs as one narrow transport: the shared types, base lane and journal."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, cast

from pydantic import BaseModel, Field, model_validator

from driftproof.errors import RefusalError
from driftproof.run.jsonl import (
    append,
    checked,
    json_line,
    json_records,
    strict_reader,
    unlink_own,
    whole_lines,
)
from driftproof.run.providers.base import AttemptError, Provider, Reply

#: A request's result: the reply, or why it did not succeed.
Outcome = Reply | AttemptError
#: One line of a batch's results: the custom id it names (or ``None``), its outcome, its part.
Result = tuple[str | None, Outcome, str]


@dataclass
class BatchStatus:
    """One batch as its provider last reported it.

    ``state`` is the provider's raw status; ``ended``: no request will change any more; ``counts``
    are its ``request_counts`` given as numbers; ``failed`` holds OpenAI's errors when the input
    file was refused; ``files`` are OpenAI's output and error file ids, each by the part of the
    results it holds (``"output file"``, ``"error file"``).
    """

    id: str
    state: str
    ended: bool
    counts: dict[str, int] = field(default_factory=dict)
    failed: str | None = None
    files: dict[str, str] = field(default_factory=dict)


class Spool:
    """A batch's requests in an anonymous temporary file (none left if killed), sent in chunks.

    Framed as ``head``, lines joined by ``sep``, ``tail``; ``size`` counts each request with one
    separator byte, as the size limit weighs it.
    """

    def __init__(self, head: bytes, sep: bytes, tail: bytes) -> None:
        """Open the temporary file and write ``head``."""
        self.file: IO[bytes] = tempfile.TemporaryFile(prefix="driftproof-batch-")
        self.file.write(head)
        self.sep, self.tail = sep, tail
        self.count = self.size = 0

    @staticmethod
    def line(entry: dict[str, Any]) -> bytes:
        """One request as its JSON line (UTF-8)."""
        return json.dumps(entry, ensure_ascii=False).encode("utf-8")

    def add(self, line: bytes) -> None:
        """Append one request's line (from :meth:`line`)."""
        if self.count:
            self.file.write(self.sep)
        self.file.write(line)
        self.count += 1
        self.size += len(line) + 1

    def body(self) -> IO[bytes]:
        """The framed file, from its start (the HTTP client reads it in chunks)."""
        self.file.write(self.tail)
        self.file.flush()
        self.file.seek(0)
        return self.file

    def close(self) -> None:
        """Close (and so delete) the temporary file."""
        self.file.close()


class BatchLane:
    """One provider's batch API over one answering lane.

    ``max_requests`` / ``max_bytes`` are the documented size of one batch; ``frame`` is its
    :class:`Spool`'s head, separator and tail; ``uploads``: requests go up as a file first
    (OpenAI), whose id is journaled; ``counted_in`` maps a part of the results to the count
    (of :attr:`BatchStatus.counts`) of requests whose lines its API reference puts in it.
    """

    provider = ""
    max_requests = max_bytes = 0
    frame = (b"", b"", b"")
    uploads = False
    counted_in: dict[str, str] = {}
    #: Seconds a status or cancel call may take in all
    #: (:meth:`~driftproof.run.providers._sdk.SDKLane.deadline`): a server sending a byte now and
    #: then cannot hold a poll open. Results are streamed on the sync client, read timeout only.
    call_timeout = 60.0

    def __init__(self, lane: Provider) -> None:
        """The batch API over ``lane``, whose request builders it reuses."""
        self.lane = lane

    def request(self, kw: dict[str, Any]) -> dict[str, Any]:
        """The body of one call from the draw maker's ``call`` keywords (``timeout`` dropped)."""
        raise NotImplementedError

    def entry(self, custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """One request of a batch, as the provider wants it."""
        raise NotImplementedError

    def spool(self) -> Spool:
        """An empty :class:`Spool` framed for this provider."""
        return Spool(*self.frame)

    def upload(self, spool: Spool) -> str | None:
        """Upload the requests (OpenAI input file); return the file id, or ``None`` (Anthropic)."""
        return None

    def create(self, spool: Spool | None, file_id: str | None) -> str:
        """Create the batch from ``spool`` or ``file_id``; its id. Raises :class:`AttemptError`."""
        raise NotImplementedError

    def status(self, batch_id: str) -> BatchStatus:
        """The batch's state now. Raises :class:`AttemptError`."""
        raise NotImplementedError

    def made_from(self, file_id: str, since: float) -> list[tuple[str, str]]:
        """(id, status) of the batches made from the input file ``file_id`` (a lane that uploads).

        Those created before ``since`` (Unix seconds), less a day for clocks apart, are not
        looked at. Raises :class:`AttemptError`.
        """
        raise NotImplementedError

    def cancel(self, batch_id: str) -> None:
        """Ask the provider to cancel the batch. Raises :class:`AttemptError`."""
        raise NotImplementedError

    def results(self, status: BatchStatus) -> Generator[Result, None, None]:
        """Every result of an ended batch, streamed line by line: (custom id, outcome, part).

        A line that names no request is ``(None, AttemptError, part)``, its reason saying which
        line; ``part`` is the part of the results the line is in (see :attr:`counted_in`).
        """
        raise NotImplementedError


#: Results journaled between two fsyncs while a batch is read.
SYNC_EVERY = 2000
#: A reply's members at their defaults, which a journaled reply leaves out (its text never).
_REPLY_DEFAULTS = {**dataclasses.asdict(Reply("")), "text": None}


def batch_journal_path(receipt_path: str | Path) -> Path:
    """Where the batch journal of a run writing ``receipt_path`` lives."""
    p = Path(receipt_path)
    return p.with_name(p.name + ".batches")


class _Error(BaseModel):
    """What an ``out`` line keeps of an :class:`AttemptError`."""

    reason: str
    retryable: bool
    fatal: bool
    status: int | None = None


class _Out(BaseModel):
    """One result as :meth:`BatchJournal.out` wrote it: its reply, or its error's members."""

    id: str
    batch: str
    reply: Reply | None = None
    error: _Error | None = None

    @model_validator(mode="after")
    def _one(self) -> _Out:
        if (self.reply is None) == (self.error is None):
            raise ValueError("expected either a reply or an error")
        return self

    def outcome(self) -> Outcome:
        """The reply, or the :class:`AttemptError` the error's members make."""
        if (e := self.error) is None:
            return cast(Reply, self.reply)
        return AttemptError(e.reason, retryable=e.retryable, fatal=e.fatal, status=e.status)


class _Sent(BaseModel):
    """A batch's requests, once uploaded (OpenAI's input file) or created."""

    id: str
    lane: Literal["answer", "judge"]
    ids: list[str]


class _Batch(_Sent):
    file_id: str | None
    created: float = Field(allow_inf_nan=False)


class _Creating(BaseModel):
    """A batch about to be created: its requests' :func:`ids_digest`, input file, when asked."""

    lane: Literal["answer", "judge"]
    digest: str = Field(pattern="^[0-9a-f]{64}$")
    n: int = Field(ge=1)
    file_id: str | None
    at: str = Field(pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")
    created: float = Field(allow_inf_nan=False)


def ids_digest(ids: list[str]) -> str:
    """SHA-256 (hex) of a batch's custom ids, each followed by a line feed, in order."""
    return hashlib.sha256("".join(f"{i}\n" for i in ids).encode("utf-8")).hexdigest()


#: What a refusal calls the batch journal.
WHAT = "batch journal"
#: Each kind of a batch journal line (in the order a line is read as one of them): its reader.
_KINDS = {
    "file": strict_reader(_Sent),
    "creating": strict_reader(_Creating),
    "batch": strict_reader(_Batch),
    **dict.fromkeys(("dropped", "named", "cancel", "stopped", "read"), strict_reader(str)),
    "out": strict_reader(_Out),
}


def _check_mark(path: Path, first: bytes, mark: str) -> None:
    """Refuse a batch journal whose line 1 is not ``{"run": mark}``: another run's, or none."""
    try:
        ok = json.loads(first) == {"run": mark}
    except (ValueError, RecursionError):
        ok = False
    if not ok:
        raise RefusalError(
            f"{path}: line 1 is not the mark of this run ({json.dumps({'run': mark})}, from its "
            "run journal); the batch journal is another run's: cancel any batch of it still open "
            "(the provider's batch list shows them; they are billed), then remove it to go on"
        )


class BatchJournal:
    """The batch journal ``<receipt>.batches``: JSON Lines, each line written whole; one thread.

    ``file`` (an OpenAI input file, after upload), ``creating`` (before a batch is created:
    :class:`_Creating`), ``batch`` (after the provider returned its id; ``created`` in Unix
    seconds), ``dropped`` (the digest of a ``creating`` that made no batch), ``named`` (the digest
    of a ``creating`` the run has named to the user as a batch perhaps made), ``cancel``,
    ``stopped`` (a batch whose results, no line naming a request, stopped the run), ``out`` (one
    result as streamed; fsync'd every :data:`SYNC_EVERY` lines and when read) and ``read`` (all
    results journaled); all but ``out`` are fsync'd before anything waits on them. ``creating``
    holds each creation no ``batch`` or ``dropped`` line followed, by digest; ``named`` the
    digests of those named. Line 1 is ``{"run": MARK}``, the run journal's mark, if given.
    """

    def __init__(self, path: Path, *, resumed_run: bool, mark: str | None = None) -> None:
        """Open the journal at ``path``, reading what it holds when the run resumes.

        ``mark`` is the run journal's :attr:`~driftproof.run.journal.Journal.mark`: a new batch
        journal begins with it, and one read on resume must begin with it.

        Raises:
            RefusalError: a batch journal is there but its run journal is not, or it begins
                with no mark or another run's (its results would be graded as this run's); or a
                line (by file and line) is damaged, records a batch twice, names a request its
                input file does not hold or a batch no earlier line creates, or is a result for
                a request its batch did not send.
        """
        self.path = path
        self.files: dict[str, dict[str, Any]] = {}
        self.creating: dict[str, dict[str, Any]] = {}
        self.named: set[str] = set()
        self.batches: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.cancelled: set[str] = set()
        self.stopped: set[str] = set()
        self.read: set[str] = set()
        self.outs: list[tuple[str, str, Outcome]] = []
        #: batch id → custom id → :meth:`digest` of its result journaled, till the batch is read
        self.kept: dict[str, dict[str, bytes]] = {}
        #: (line, request ids) of each ``file`` and ``batch`` record read from the file
        self.loaded: list[tuple[int, list[str]]] = []
        self._sent: dict[str, set[str]] = {}  # batch id → its request ids, as read
        self._unsynced = 0
        self._lock = threading.Lock()
        if not path.exists():
            self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
            if mark is not None:
                self._write({"run": mark}, sync=True)
            return
        if not resumed_run:
            raise RefusalError(
                f"{path}: a batch journal without its run journal; remove it to start afresh "
                "(its batches are not polled again)"
            )
        with whole_lines(path) as lines:
            fresh = mark is not None and not any(x.strip() for x in lines)  # killed at its start
            if mark is not None and not fresh:
                _check_mark(path, lines[0], mark)
            for n, rec in json_records(path, lines, what=WHAT):
                if n == 1 and set(rec) == {"run"}:
                    continue  # the run's mark, checked above
                kind = next(iter(rec), None) if len(rec) == 1 else None
                if kind not in _KINDS:
                    raise RefusalError(
                        f"{path}: line {n} is no record of a {WHAT} (expected one member, one of "
                        f"{', '.join(_KINDS)}); the {WHAT} is damaged"
                    )
                at = f"/{kind}"
                valid = checked(_KINDS[kind], rec[kind], path, n, at, kind="a record", what=WHAT)
                if why := self._unknown(kind, valid):
                    raise RefusalError(f"{path}: line {n} {why}; the {WHAT} is damaged")
                if kind in ("file", "batch"):
                    self.loaded.append((n, valid.ids))
                if kind == "batch":
                    self._sent[valid.id] = set(valid.ids)
                if kind == "out":
                    self.outs.append((valid.batch, valid.id, valid.outcome()))
                    self.kept.setdefault(valid.batch, {})[valid.id] = self.digest(rec[kind])
                else:
                    self._keep(kind, rec[kind])
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        if fresh:
            self._write({"run": mark}, sync=True)

    def _unknown(self, kind: str, v: Any) -> str | None:
        """Why record ``v`` of ``kind``, read from the file, names what no earlier line made."""
        if kind == "batch" and v.id in self.batches:
            return f"records batch {v.id!r} a second time"
        if kind == "batch" and v.file_id is not None:
            held = set(self.files.get(v.file_id, {}).get("ids", ()))
            if unsent := next((i for i in v.ids if i not in held), None):
                return (
                    f"names request {unsent[:80]!r}, which the run never sent (no earlier line "
                    f"uploads it in file {v.file_id[:80]!r})"
                )
        if kind == "creating" and v.file_id is not None and v.file_id not in self.files:
            return f"creates a batch from file {v.file_id[:80]!r}, which no earlier line uploads"
        if kind == "dropped" and v not in self.creating:
            return "drops a batch creation no earlier line begins"
        if kind == "named" and v not in self.creating:
            return "names a batch creation no earlier line begins"
        named = v.batch if kind == "out" else v if kind in ("read", "cancel", "stopped") else None
        if named is not None and named not in self.batches:
            return f"names batch {named[:80]!r}, which no earlier line creates"
        if kind == "out" and v.id not in self._sent[v.batch]:
            return (
                f"holds a result for request {v.id[:80]!r}, which batch {v.batch[:80]!r} did "
                "not send"
            )
        return None

    def _keep(self, kind: str, rec: Any) -> None:
        """Hold one record other than ``out``, as read or written."""
        if kind == "file":
            self.files[rec["id"]] = rec
        elif kind == "creating":
            self.creating[rec["digest"]] = rec
        elif kind == "dropped":
            self.creating.pop(rec, None)
        elif kind == "named":
            self.named.add(rec)
        elif kind == "batch":
            self.batches[rec["id"]] = rec
            self.order.append(rec["id"])
            self.creating.pop(ids_digest(rec["ids"]), None)
        elif kind in ("cancel", "stopped"):
            (self.cancelled if kind == "cancel" else self.stopped).add(rec)
        else:
            self.read.add(rec)
            self.kept.pop(rec, None)  # a batch wholly read is not read again

    def record(self, kind: str, rec: Any) -> None:
        """Journal one record other than ``out``, synced.

        ``dropped`` and ``named`` are a digest; ``cancel``, ``stopped`` and ``read`` a batch id.
        """
        self._keep(kind, rec)
        self._write({kind: rec}, sync=True)

    def _write(self, obj: dict[str, Any], *, sync: bool) -> None:
        with self._lock:  # a creation's own thread may write as the run closes the journal
            append(self.fd, json_line(obj), self.path)
            self._unsynced += 1
            if sync or self._unsynced >= SYNC_EVERY:
                self.sync()

    def sync(self) -> None:
        """Flush what was written to disk."""
        if self._unsynced:
            os.fsync(self.fd)
            self._unsynced = 0

    @staticmethod
    def doc(batch_id: str, custom_id: str, outcome: Outcome) -> dict[str, Any]:
        """The ``out`` record of one result read from a batch: its ``reply``, or its ``error``."""
        doc: dict[str, Any] = {"id": custom_id, "batch": batch_id}
        if isinstance(outcome, Reply):
            # a member equal to its default is left out; any other ({} or [] included) is kept
            doc["reply"] = {
                k: v for k, v in dataclasses.asdict(outcome).items() if v != _REPLY_DEFAULTS[k]
            }
        else:
            doc["error"] = {k: getattr(outcome, k) for k in _Error.model_fields}
        return doc

    @staticmethod
    def digest(doc: dict[str, Any]) -> bytes:
        """SHA-256 of an ``out`` record as its journal line; one read back has the one written."""
        return hashlib.sha256(json_line(doc)).digest()

    def out(self, batch_id: str, custom_id: str, outcome: Outcome) -> None:
        """Journal one result (:meth:`doc`), keeping its :meth:`digest` in :attr:`kept`."""
        doc = self.doc(batch_id, custom_id, outcome)
        self.kept.setdefault(batch_id, {})[custom_id] = self.digest(doc)
        self._write({"out": doc}, sync=False)

    def attempts(self) -> int:
        """Requests submitted, all batches together: one endpoint attempt each."""
        return sum(len(b["ids"]) for b in self.batches.values())

    def close(self) -> None:
        """Close the journal file, keeping it on disk, once; a later write fails, reaching none."""
        with self._lock:  # the number may be given to another file at once
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1

    def remove(self) -> None:
        """Delete the journal file (its name, while it holds it) and close it."""
        unlink_own(self.path, self.fd)
        self.close()
