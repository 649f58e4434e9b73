"""A receipt as the site build holds it: a small summary, never the whole evidence (issue 19).

A site of 10,000 receipts of 1 MB each cannot hold every receipt's model, or even its bytes,
at once. The build therefore keeps, per receipt, only

* its name, the sha256 of its bytes and the file it was read from;
* its exact bytes: held in memory when all the receipts together are small
  (:data:`driftproof.site.publish.HOLD_BYTES`), else read again from the file when needed
  and checked against its sha256, so the bytes published are the bytes checked (issue 15);
  a :class:`Spool` (a private, content-addressed folder) can hold them instead;
* a :class:`ReceiptSummary`: the figures the index pages need (skill, level, model, number
  of cases, seal), made by the worker that checked the receipt and kept in the build cache
  by the bytes' sha256, so a receipt already checked is neither parsed nor checked again.

:attr:`LoadedReceipt.receipt` parses the model again from the bytes read back when a page
needs the evidence; the generator asks for it once per receipt, renders that receipt's pages
and lets it go, so at most one receipt's evidence is held at a time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import weakref
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from driftproof.errors import ReceiptError

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

__all__ = ["LoadedReceipt", "ReceiptSummary", "Spool", "summarise"]


@dataclass(frozen=True)
class ReceiptSummary:
    """What the index pages, the reports' receipt lists and ``report.json`` show of a receipt
    (all strings as shown; ``cases`` is a count)."""

    skill: str
    level: str
    model: str
    cases: int
    seal: str
    #: made by the demo's simulated provider (run or judge): the public site refuses it (issue 16)
    simulated: bool

    def to_json(self) -> bytes:
        """The summary as compact JSON (a build cache entry)."""
        return json.dumps(asdict(self), sort_keys=True).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> ReceiptSummary | None:
        """A summary read back from :meth:`to_json`, or ``None`` when the entry is not one."""
        try:
            return cls(**json.loads(data))
        except (ValueError, TypeError):
            return None


def summarise(r: Receipt) -> ReceiptSummary:
    """The :class:`ReceiptSummary` of a checked receipt."""
    return ReceiptSummary(
        skill=r.skill.name,
        level=r.verification_level,
        model=r.run.model or "not recorded",
        cases=len(r.cases),
        seal=r.seal.sha256,
        simulated=r.run.provider == "simulated"
        or (r.judge is not None and r.judge.provider == "simulated"),
    )


class Spool:
    """Receipt bytes by their sha256 (hex), in ``folder`` (created when first written).

    ``folder=None``: a private temporary folder, removed when the spool is garbage-collected.
    Entries are written atomically and never changed (the name is the content's hash).
    """

    def __init__(self, folder: Path | None = None, *, beside: Path | None = None) -> None:
        if folder is None:
            # beside the site when given: the same file system, so entries are hard links
            folder = Path(tempfile.mkdtemp(prefix=".driftproof-spool-", dir=beside))
            weakref.finalize(self, shutil.rmtree, str(folder), True)
        self.folder = Path(folder)

    def path(self, sha256: str) -> Path:
        """Where the bytes whose sha256 is ``sha256`` are kept."""
        return self.folder / sha256[:2] / sha256

    def put(self, sha256: str, data: bytes, source: Path | None = None) -> None:
        """Keep ``data`` (whose sha256 is ``sha256``, read from ``source``).

        A hard link to ``source`` when the file system allows it (no copy; :meth:`get` checks
        the hash, so a file later changed in place is refused, never published), else a copy.
        """
        from driftproof.receipt._seal import atomic_write

        p = self.path(sha256)
        if p.exists():
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        if source is not None:
            try:
                os.link(source, p, follow_symlinks=False)
                return
            except OSError:
                pass
        atomic_write(p, data)

    def get(self, sha256: str, file: str) -> bytes:
        """The bytes kept under ``sha256``, checked against it.

        Raises:
            ReceiptError: the entry is missing or its bytes no longer hash to ``sha256``
                (names ``file``, the receipt they were read from).
        """
        try:
            data = self.path(sha256).read_bytes()
        except OSError as exc:
            raise ReceiptError.at(file, "", f"the build's copy was lost: {exc.strerror}") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ReceiptError.at(file, "", "the build's copy of the receipt changed")
        return data


class LoadedReceipt:
    """A receipt as published: its name (path under ``receipts/`` without ``.json``), its
    model, its exact bytes and, when read from disk, its path.

    Made either whole, ``LoadedReceipt(name, receipt, raw, path)`` (tests, the demo), or by the
    site build from a summary: ``LoadedReceipt(name, path=p, sha256=s, spool=sp,
    summary=sm)``, holding no evidence; :attr:`raw` then reads the bytes back (spool or file) and
    :attr:`receipt` parses them again (the bytes passed every check when they were read).
    """

    __slots__ = ("_raw", "_receipt", "_spool", "_summary", "name", "path", "sha256")

    def __init__(
        self,
        name: str,
        receipt: Receipt | None = None,
        raw: bytes | None = None,
        path: Path | None = None,
        *,
        sha256: str | None = None,
        spool: Spool | None = None,
        summary: ReceiptSummary | None = None,
    ) -> None:
        if raw is None and (sha256 is None or (spool is None and path is None)):
            raise TypeError("a LoadedReceipt needs its bytes, or their sha256 and a spool or path")
        self.name = name
        self.path = path
        self._receipt = receipt
        self._raw = raw
        self._spool = spool
        self._summary = summary
        self.sha256 = sha256 or hashlib.sha256(raw or b"").hexdigest()

    @property
    def raw(self) -> bytes:
        """The file's exact bytes (read from the spool, else the file, when not held).

        Raises:
            ReceiptError: the bytes read back no longer hash to :attr:`sha256` (never published).
        """
        if self._raw is not None:
            return self._raw
        if self._spool is not None:
            return self._spool.get(self.sha256, str(self.path or self.name))
        assert self.path is not None  # __init__ refuses a receipt with neither
        data = self.path.read_bytes()
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise ReceiptError.at(
                self.path, "", "expected the file to stay unchanged while the site is built"
            )
        return data

    @property
    def receipt(self) -> Receipt:
        """The validated model; parsed again from :attr:`raw` when not held (not kept)."""
        if self._receipt is not None:
            return self._receipt
        from driftproof.receipt import parse_receipt

        # known_valid: these exact bytes passed every check when the build read them
        return parse_receipt(self.raw, str(self.path or self.name), known_valid=True)

    @property
    def spool(self) -> Spool | None:
        """The spool holding the bytes (``None``: held in memory, or read from the file)."""
        return self._spool if self._raw is None and self._receipt is None else None

    @property
    def on_disk(self) -> bool:
        """Whether neither the bytes nor the model are held: they are read back when needed
        (from the spool, else the file, checked against :attr:`sha256`)."""
        return (
            self._raw is None
            and self._receipt is None
            and (self._spool is not None or self.path is not None)
        )

    @property
    def summary(self) -> ReceiptSummary:
        """The figures the index pages show (:class:`ReceiptSummary`)."""
        if self._summary is None:
            self._summary = summarise(self.receipt)
        return self._summary

    def holding(self, receipt: Receipt) -> LoadedReceipt:
        """This receipt with its model held (for rendering its pages), same bytes and summary."""
        if self._receipt is not None:
            return self
        return LoadedReceipt(
            self.name,
            receipt,
            self._raw,
            self.path,
            sha256=self.sha256,
            spool=self._spool,
            summary=self._summary,
        )

    def __repr__(self) -> str:
        return f"LoadedReceipt({self.name!r}, sha256={self.sha256[:12]}…)"
