"""A receipt as the site build holds it: its name, exact bytes, file and model.

The bytes are read once; the model is parsed from those bytes (validated: bounds, schema,
seal, model) the first time a page needs it, so the bytes validated are the bytes published
and summed (issue 15). A receipt whose pages come from the render cache is never parsed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from driftproof.receipt import Receipt

__all__ = ["LoadedReceipt", "ReceiptSummary", "summarise"]


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
        """The summary as compact JSON (kept in the render cache)."""
        return json.dumps(asdict(self), sort_keys=True).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> ReceiptSummary:
        """A summary read back from :meth:`to_json`.

        Raises:
            ValueError: ``data`` is not one.
        """
        try:
            return cls(**json.loads(data))
        except TypeError as exc:
            raise ValueError(str(exc)) from None


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


class LoadedReceipt:
    """A receipt as published: its name (path under ``receipts/`` without ``.json``), its
    model (parsed from ``raw`` when first asked for, if not given), its exact bytes and, when
    read from disk, its path."""

    __slots__ = ("_receipt", "_summary", "name", "path", "raw", "sha256")

    def __init__(
        self,
        name: str,
        receipt: Receipt | None,
        raw: bytes,
        path: Path | None = None,
        *,
        summary: ReceiptSummary | None = None,
    ) -> None:
        self.name, self.raw, self.path = name, raw, path
        self._receipt = receipt
        self._summary = summary
        self.sha256 = hashlib.sha256(raw).hexdigest()

    @property
    def receipt(self) -> Receipt:
        """The validated model of :attr:`raw`, parsed once.

        Raises:
            ReceiptError: the bytes are not a valid receipt (names the file and field).
        """
        if self._receipt is None:
            from driftproof.receipt import parse_receipt

            self._receipt = parse_receipt(self.raw, str(self.path or self.name))
        return self._receipt

    @property
    def summary(self) -> ReceiptSummary:
        """The figures the index pages show (:class:`ReceiptSummary`)."""
        if self._summary is None:
            self._summary = summarise(self.receipt)
        return self._summary

    def __repr__(self) -> str:
        return f"LoadedReceipt({self.name!r}, sha256={self.sha256[:12]}…)"
