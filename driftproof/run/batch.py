"""The providers' batch APIs as one narrow transport: the shared types and the base lane.

Request bodies are built, and results read, by the lanes' own functions, so a batched answer
means what an interactive one does. Requests are spooled to an anonymous temporary file and
sent from it in chunks; results are streamed line by line, never held whole.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import IO, Any

from driftproof.run.providers._sdk import sdk_error
from driftproof.run.providers.base import AttemptError, Provider, Reply

#: A request's result: the reply, or why it did not succeed.
Outcome = Reply | AttemptError


@dataclass
class BatchStatus:
    """One batch as its provider last reported it.

    ``state`` is the provider's raw status; ``ended``: no request will change any more; ``counts``
    are its ``request_counts``; ``failed`` holds OpenAI's errors when the input file was refused;
    ``files`` are OpenAI's output and error file ids.
    """

    id: str
    state: str
    ended: bool
    counts: dict[str, int] = field(default_factory=dict)
    failed: str | None = None
    files: tuple[str, ...] = ()


class Spool:
    """The requests of one batch in an anonymous temporary file (none left if killed).

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

    ``max_requests`` / ``max_bytes`` are the documented size of one batch; ``uploads``: requests
    go up as a file first (OpenAI), whose id is journaled.
    """

    provider = ""
    max_requests = 0
    max_bytes = 0
    uploads = False

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
        raise NotImplementedError

    def upload(self, spool: Spool) -> str | None:
        """Upload the requests (OpenAI input file); return the file id, or ``None`` (Anthropic)."""
        return None

    def create(self, spool: Spool | None, file_id: str | None) -> str:
        """Create the batch from ``spool`` or ``file_id``; its id. Raises :class:`AttemptError`."""
        raise NotImplementedError

    def status(self, batch_id: str) -> BatchStatus:
        """The batch's state now. Raises :class:`AttemptError`."""
        raise NotImplementedError

    def cancel(self, batch_id: str) -> None:
        """Ask the provider to cancel the batch. Raises :class:`AttemptError`."""
        raise NotImplementedError

    def results(self, status: BatchStatus) -> Generator[tuple[str, Outcome], None, None]:
        """Every result of an ended batch, streamed: (custom id, outcome)."""
        raise NotImplementedError

    def kept(self, reply: Reply, body: dict[str, Any]) -> Reply:
        """``reply``, carrying its result ``body`` as JSON when the lane keeps raw output."""
        if self.lane.keep_raw:
            reply.raw = json.dumps(body, ensure_ascii=False)
        return reply

    def _sdk(self, fn: Any, *args: Any, **kw: Any) -> Any:
        try:
            return fn(*args, **kw)
        except Exception as exc:  # the SDKs' errors, as the plain lanes read them
            if type(exc).__module__.split(".")[0] in ("anthropic", "openai"):
                raise sdk_error(exc, 60.0) from exc
            raise
