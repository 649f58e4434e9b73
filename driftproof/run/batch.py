"""The providers' batch APIs as one narrow transport: the shared types and the base lane.

Batch mode is a transport only: every request body is built, and every result read, by the lanes'
own functions, from the same raw JSON, so a batched answer (its stop reason, refusal, usage with
cache parts, the judge's structured decision) means exactly what an interactive one does. The
providers' batch lanes are in :mod:`.batch_lanes`.

Requests are streamed: a batch's requests are written, one JSON line each as they are made, to
an anonymous temporary file (a :class:`Spool`, framed as the provider takes them), and the HTTP
body is read from it in chunks. Results are streamed line by line and never held whole.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import IO, Any

from driftproof.run.providers._sdk import sdk_error
from driftproof.run.providers.base import AttemptError, Provider, Reply

__all__ = ["BatchLane", "BatchStatus", "Outcome", "Spool"]

#: A request's result: the reply, or why it did not succeed.
Outcome = Reply | AttemptError


@dataclass
class BatchStatus:
    """One batch as its provider last reported it.

    Attributes:
        id: the batch id.
        state: the provider's raw status (Anthropic ``in_progress|canceling|ended``; OpenAI
            ``validating|in_progress|finalizing|completed|failed|expired|cancelling|cancelled``).
        ended: no request of it will change any more; its results can be read.
        counts: the provider's own ``request_counts`` figures, as it names them.
        failed: OpenAI ``failed`` (the input file was refused): the provider's errors, else
            ``None``.
        files: OpenAI: the output and error file ids to read the results from.
    """

    id: str
    state: str
    ended: bool
    counts: dict[str, int] = field(default_factory=dict)
    failed: str | None = None
    files: tuple[str, ...] = ()


class Spool:
    """The requests of one batch, spooled to an anonymous temporary file.

    The file leaves nothing behind when closed, or when the process is killed. The requests are
    framed as the provider takes them: ``head``, the request lines joined by ``sep``, ``tail``.

    Attributes:
        count: requests written.
        size: their bytes, each counted with one separator byte (what the size limit weighs).
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

    Attributes:
        provider: ``anthropic`` | ``openai``.
        max_requests / max_bytes: the documented size of one batch.
        uploads: whether requests go up as a file first (OpenAI), whose id is journaled.
    """

    provider = ""
    max_requests = 0
    max_bytes = 0
    uploads = False

    def __init__(self, lane: Provider) -> None:
        """The batch API over ``lane``, whose request builders it reuses."""
        self.lane = lane

    def request(self, kw: dict[str, Any]) -> dict[str, Any]:
        """The request body of one call.

        From the keyword arguments the draw maker passed to the lane's ``call`` (``timeout``
        dropped); ``schema`` set for a judge sample.
        """
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
        """Create the batch; return its id.

        From ``spool`` (Anthropic) or the uploaded ``file_id`` (OpenAI). Raises
        :class:`AttemptError`.
        """
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

    def _sdk(self, fn: Any, *args: Any, **kw: Any) -> Any:
        try:
            return fn(*args, **kw)
        except Exception as exc:  # the SDKs' errors, as the plain lanes read them
            if type(exc).__module__.split(".")[0] in ("anthropic", "openai"):
                raise sdk_error(exc, 60.0) from exc
            raise
