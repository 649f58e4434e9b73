"""The batch journal ``<receipt>.batches``: JSON Lines, each line written whole.

``file`` (an OpenAI input file, after upload), ``batch`` (after the provider returned its id;
``created`` in Unix seconds), ``cancel``, ``out`` (one result as streamed; fsync'd every
:data:`SYNC_EVERY` lines and when read) and ``read`` (all results journaled); all but ``out``
are fsync'd before anything waits on them.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from driftproof.errors import RefusalError
from driftproof.run.batch import Outcome
from driftproof.run.journal import json_line, json_records
from driftproof.run.providers.base import AttemptError, Reply

#: Results journaled between two fsyncs while a batch is read.
SYNC_EVERY = 2000
#: What an ``out`` line keeps of an :class:`AttemptError`.
_ERROR_MEMBERS = ("reason", "retryable", "fatal", "status")


def batch_journal_path(receipt_path: str | Path) -> Path:
    """Where the batch journal of a run writing ``receipt_path`` lives."""
    p = Path(receipt_path)
    return p.with_name(p.name + ".batches")


def outcome_doc(o: Outcome) -> dict[str, Any]:
    """A result as its ``out`` line holds it: ``{"reply": {...}}`` or ``{"error": {...}}``."""
    if isinstance(o, Reply):
        return {
            "reply": {k: v for k, v in dataclasses.asdict(o).items() if v not in (None, [], {})}
        }
    return {"error": {k: getattr(o, k) for k in _ERROR_MEMBERS}}


def outcome_from_doc(doc: dict[str, Any]) -> Outcome:
    """The result an ``out`` line holds (the inverse of :func:`outcome_doc`)."""
    if "reply" in doc:
        names = {f.name for f in dataclasses.fields(Reply)}
        return Reply(**{k: v for k, v in doc["reply"].items() if k in names})
    e = doc["error"]
    return AttemptError(
        e["reason"], retryable=e["retryable"], fatal=e["fatal"], status=e.get("status")
    )


class BatchJournal:
    """The batch journal (see the module doc). Not thread-safe: the batch engine is one thread."""

    def __init__(self, path: Path, *, resumed_run: bool) -> None:
        """Open the journal at ``path``, reading what it holds when the run resumes.

        Raises:
            RefusalError: a batch journal is there but its run journal is not.
        """
        self.path = path
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.cancelled: set[str] = set()
        self.read: set[str] = set()
        self.outs: list[tuple[str, str, dict[str, Any]]] = []
        if path.exists():
            if not resumed_run:
                raise RefusalError(
                    f"{path}: a batch journal without its run journal; remove it to start afresh "
                    "(its batches are not polled again)"
                )
            self._load()
            self.fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        else:
            self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        self._unsynced = 0

    def _load(self) -> None:
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        for rec in json_records(self.path, lines[:-1], what="batch journal"):
            if "file" in rec:
                self.files[rec["file"]["id"]] = rec["file"]
            elif "batch" in rec:
                b = rec["batch"]
                self.batches[b["id"]] = b
                self.order.append(b["id"])
            elif "cancel" in rec:
                self.cancelled.add(rec["cancel"])
            elif "read" in rec:
                self.read.add(rec["read"])
            elif "out" in rec:
                o = rec["out"]
                self.outs.append((o["batch"], o["id"], o))
        if lines[-1]:  # a line cut short by a kill
            os.truncate(self.path, len(raw) - len(lines[-1]))

    def _write(self, obj: dict[str, Any], *, sync: bool) -> None:
        os.write(self.fd, json_line(obj))
        self._unsynced += 1
        if sync or self._unsynced >= SYNC_EVERY:
            self.sync()

    def sync(self) -> None:
        """Flush what was written to disk."""
        if self._unsynced:
            os.fsync(self.fd)
            self._unsynced = 0

    def file(self, rec: dict[str, Any]) -> None:
        """Journal an uploaded input file (synced)."""
        self.files[rec["id"]] = rec
        self._write({"file": rec}, sync=True)

    def batch(self, rec: dict[str, Any]) -> None:
        """Journal a created batch (synced)."""
        self.batches[rec["id"]] = rec
        self.order.append(rec["id"])
        self._write({"batch": rec}, sync=True)

    def cancel(self, batch_id: str) -> None:
        """Journal that a batch was cancelled (synced)."""
        self.cancelled.add(batch_id)
        self._write({"cancel": batch_id}, sync=True)

    def out(self, batch_id: str, custom_id: str, outcome: Outcome) -> None:
        """Journal one result read from a batch."""
        self._write(
            {"out": {"id": custom_id, "batch": batch_id, **outcome_doc(outcome)}}, sync=False
        )

    def mark_read(self, batch_id: str) -> None:
        """Journal that every result of a batch was read (synced)."""
        self.read.add(batch_id)
        self._write({"read": batch_id}, sync=True)

    def attempts(self) -> int:
        """Requests submitted, all batches together: one endpoint attempt each."""
        return sum(len(b["ids"]) for b in self.batches.values())

    def close(self) -> None:
        """Close the journal file, keeping it on disk."""
        os.close(self.fd)

    def remove(self) -> None:
        """Close and delete the journal file."""
        self.close()
        self.path.unlink(missing_ok=True)
