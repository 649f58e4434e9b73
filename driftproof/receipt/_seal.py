"""Sealing (D-12): sha256 over the RFC 8785 canonical JSON, ``seal`` member removed.

A writer seals; every reader recomputes the hash and refuses a mismatch, naming
the file. Canonicalisation is the ``rfc8785`` library's (Trail of Bits), not ours.

Speed (issue 19): the library is pure Python (about 0.27 s for a 1 MB receipt, more than
all other checks together). :func:`canonical_bytes` therefore lets the standard library's
C encoder write the same text and hands only the parts where the two could differ to the
library itself: every number with a fraction or an exponent is rewritten by ``rfc8785``'s
own number serialiser (both start from ``float.__repr__``), and a document with a member
name at or above U+E000 (where UTF-16 order can differ from code point order), an integer
outside ±(2**53 - 1), NaN, an infinity or a non-UTF-8 string goes to ``rfc8785.dumps`` whole.
Strings are escaped by the same rule in both (RFC 8785 3.2.2.2). A property test compares
the two on arbitrary JSON values.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import rfc8785

from driftproof.errors import ReceiptError, SealError
from driftproof.receipt._model import CURRENT_VERSION, Receipt

__all__ = ["SEAL_ALGORITHM", "atomic_write", "canonical_bytes", "compute_seal", "seal_document", "sealed_bytes",
           "verify_seal", "write_receipt"]

SEAL_ALGORITHM = "sha256-rfc8785"


def canonical_bytes(document: dict[str, Any]) -> bytes:
    """RFC 8785 canonical JSON of ``document`` without its ``seal`` member.

    Args:
        document: a receipt as plain JSON data.

    Returns:
        The canonical UTF-8 bytes that the seal hashes.

    Raises:
        ValueError: the document holds a value JSON cannot carry (NaN, infinity).
    """
    body = {k: v for k, v in document.items() if k != "seal"}
    fast = _fast_canonical(body)
    if fast is not None:
        return fast
    try:
        return rfc8785.dumps(body)
    except (rfc8785.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"cannot canonicalise receipt: {exc}") from exc


#: One match: a run of JSON text holding no number that needs a look (strings whole, short
#: integers, punctuation, literals), then optionally a number token that does (any number with
#: a fraction or an exponent, or an integer of 16 digits or more). Strings are skipped whole,
#: so digits inside them are never touched.
_TOKENS = re.compile(r'((?:"[^"\\]*(?:\\.[^"\\]*)*"|[^"0-9-]+|-?[0-9]{1,15}(?![0-9.eE]))*)'
                     r'(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)?')
#: Characters where UTF-16 code unit order and code point order can disagree (RFC 8785 3.2.3).
_ORDER_RISK = re.compile("[\ue000-\U0010ffff]")
_SAFE = 2**53 - 1


class _Slow(Exception):
    pass


def _number(m: re.Match[str]) -> str:
    tok = m.group(2)
    return m.group(1) if tok is None else m.group(1) + _number_form(tok)


@lru_cache(maxsize=4096)
def _number_form(token: str) -> str:
    if "." in token or "e" in token or "E" in token:
        # ``token`` is float.__repr__ of the value (what json.dumps writes), so float(token) is
        # the value itself; rfc8785 gives its ECMA-262 form (RFC 8785 3.2.2.3).
        return rfc8785.dumps(float(token)).decode("ascii")
    if abs(int(token)) > _SAFE:
        raise _Slow  # the library refuses it (I-JSON)
    return token


def _keys_at_risk(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if any(_ORDER_RISK.search(k) for k in v if isinstance(k, str)):
                return True
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


def _fast_canonical(body: dict[str, Any]) -> bytes | None:
    """RFC 8785 bytes through the C JSON encoder, or ``None`` where only ``rfc8785`` may decide.

    Member names are JSON text (``str``), as in every document read from JSON or dumped by the
    model; a non-``str`` name would be written as the text json gives it.
    """
    try:
        text = json.dumps(body, ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"))
    except (ValueError, TypeError):
        return None
    if _ORDER_RISK.search(text) and _keys_at_risk(body):
        return None
    try:
        return _TOKENS.sub(_number, text).encode("utf-8")
    except (_Slow, UnicodeEncodeError):
        return None


def compute_seal(document: dict[str, Any]) -> str:
    """Lowercase hex sha256 of :func:`canonical_bytes` (D-12)."""
    return hashlib.sha256(canonical_bytes(document)).hexdigest()


def seal_document(document: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of ``document`` with a fresh ``seal`` member (D-12)."""
    sealed = {k: v for k, v in document.items() if k != "seal"}
    sealed["seal"] = {"algorithm": SEAL_ALGORITHM, "sha256": compute_seal(sealed)}
    return sealed


def verify_seal(document: dict[str, Any], file: str | Path) -> None:
    """Refuse a receipt whose seal does not match its content.

    Raises:
        SealError: the seal is missing, of an unknown algorithm, or does not match;
            the message names the file and both hashes.
    """
    seal = document.get("seal")
    if not isinstance(seal, dict) or not isinstance(seal.get("sha256"), str):
        raise SealError.at(file, "/seal", "expected a seal object with a sha256 member (D-12); the receipt is unsealed")
    if seal.get("algorithm") != SEAL_ALGORITHM:
        raise SealError.at(file, "/seal/algorithm", f"expected {SEAL_ALGORITHM!r}, found {seal.get('algorithm')!r}")
    try:
        actual = compute_seal(document)
    except ValueError as exc:
        raise SealError.at(file, "", f"expected content RFC 8785 can canonicalise: {str(exc)[:200]}") from None
    if actual != seal["sha256"]:
        raise SealError.at(
            file,
            "/seal/sha256",
            f"seal mismatch: the receipt's content hashes to {actual}, the seal says {seal['sha256']}; "
            "the file was changed after it was sealed",
        )


def complete_document(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` read through the current :class:`~driftproof.receipt.Receipt` model and
    dumped again: every field the current version has is present, a field a writer did not
    set is ``None`` (D-13), and a misspelt or mistyped member fails here, before anything is
    sealed or written.

    Raises:
        pydantic.ValidationError: the document does not fit the current model.
    """
    body = {k: v for k, v in document.items() if k != "seal"}
    model = Receipt.model_validate({**body, "seal": {"algorithm": SEAL_ALGORITHM, "sha256": "0" * 64}})
    out = model.to_json_dict()
    out.pop("seal", None)
    return out


def write_receipt(document: dict[str, Any], path: str | Path) -> Path:
    """Seal ``document`` and write it atomically to ``path`` (never half-written).

    The file is UTF-8 JSON with sorted keys and two-space indentation, so the same
    receipt always writes the same bytes.

    Returns:
        The path written.

    Raises:
        ReceiptError: the document does not declare the current schema version; writers
            write the current version only (D-11), so a receipt read from an older version
            is never written back under its old number.
    """
    path = Path(path)
    _sealed, data = sealed_bytes(document, path)
    atomic_write(path, data)
    return path


def sealed_bytes(document: dict[str, Any], path: str | Path = "<receipt>") -> tuple[dict[str, Any], bytes]:
    """``document`` completed through the model, sealed, and the exact bytes
    :func:`write_receipt` writes (UTF-8 JSON, sorted keys, two-space indentation, final newline).

    Returns:
        (the sealed document, its file bytes).

    Raises:
        ReceiptError: the document does not declare the current schema version (D-11).
        pydantic.ValidationError: the document does not fit the current model.
    """
    if document.get("schema_version") != CURRENT_VERSION:
        raise ReceiptError.at(path, "/schema_version", f"expected {CURRENT_VERSION!r} (writers write the current "
                              f"schema version only, D-11), found {document.get('schema_version')!r}")
    sealed = seal_document(complete_document(document))
    text = json.dumps(sealed, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    return sealed, text.encode("utf-8")


def atomic_write(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it and ``os.replace``:
    readers see the old file or the whole new one, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
