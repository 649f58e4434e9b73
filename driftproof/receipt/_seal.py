"""Sealing (D-12): sha256 over the RFC 8785 canonical JSON, ``seal`` member removed.

A writer seals; every reader recomputes the hash and refuses a mismatch, naming
the file. Canonicalisation is the ``rfc8785`` library's (Trail of Bits), not ours.

The seal's canonical bytes come from the library whole, though it is pure Python (about
0.27 s for a 1 MB receipt): canonical JSON is a library's job, not ours (a faster hand-made
encoder was tried and taken out for that reason).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Final

import rfc8785

from driftproof._json import escape
from driftproof.errors import ReceiptError, SealError
from driftproof.receipt._model import CURRENT_VERSION, Receipt, ReceiptBody, Seal

__all__ = [
    "SAFE_INTEGER_MAX",
    "SEAL_ALGORITHM",
    "atomic_write",
    "canonical_bytes",
    "compute_seal",
    "seal_document",
    "seal_receipt",
    "sealed_bytes",
    "unsealable_values",
    "verify_seal",
    "write_receipt",
]

SEAL_ALGORITHM: Final = "sha256-rfc8785"


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
    try:
        return rfc8785.dumps(body)
    except (rfc8785.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"cannot canonicalise receipt: {exc}") from exc


def compute_seal(document: dict[str, Any]) -> str:
    """Lowercase hex sha256 of :func:`canonical_bytes` (D-12)."""
    return hashlib.sha256(canonical_bytes(document)).hexdigest()


def seal_document(document: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of ``document`` with a fresh ``seal`` member (D-12)."""
    sealed = {k: v for k, v in document.items() if k != "seal"}
    sealed["seal"] = {"algorithm": SEAL_ALGORITHM, "sha256": compute_seal(sealed)}
    return sealed


def seal_receipt(body: ReceiptBody) -> Receipt:
    """``body`` sealed (D-12): the :class:`Receipt` whose seal covers the body's JSON data
    (:meth:`~driftproof.receipt.ReceiptBody.to_json_dict`). The body is not re-validated.

    Raises:
        ValueError: the body holds a value RFC 8785 cannot canonicalise (NaN, infinity).
    """
    seal = Seal(algorithm=SEAL_ALGORITHM, sha256=compute_seal(body.to_json_dict()))
    members = {name: getattr(body, name) for name in ReceiptBody.model_fields}
    return Receipt.model_construct(body.model_fields_set | {"seal"}, **members, seal=seal)


def verify_seal(document: dict[str, Any], file: str | Path) -> None:
    """Refuse a receipt whose seal does not match its content.

    Raises:
        SealError: the seal is missing, of an unknown algorithm, or does not match;
            the message names the file and both hashes.
    """
    seal = document.get("seal")
    if not isinstance(seal, dict) or not isinstance(seal.get("sha256"), str):
        raise SealError.at(
            file,
            "/seal",
            "expected a seal object with a sha256 member; the receipt is unsealed",
        )
    if seal.get("algorithm") != SEAL_ALGORITHM:
        raise SealError.at(
            file, "/seal/algorithm", f"expected {SEAL_ALGORITHM!r}, found {seal.get('algorithm')!r}"
        )
    try:
        actual = compute_seal(document)
    except ValueError as exc:
        raise SealError.at(
            file, "", f"expected content RFC 8785 can canonicalise: {str(exc)[:200]}"
        ) from None
    if actual != seal["sha256"]:
        raise SealError.at(
            file,
            "/seal/sha256",
            f"seal mismatch: the receipt's content hashes to {actual}, "
            f"the seal says {seal['sha256']}; the file was changed after it was sealed",
        )


def complete_document(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` read through the current :class:`~driftproof.receipt.ReceiptBody` model
    and dumped again: every field the current version has is present, a field a writer did not
    set is ``None`` (D-13), and a misspelt or mistyped member fails here, before anything is
    sealed or written.

    Raises:
        pydantic.ValidationError: the document does not fit the current model.
    """
    body = {k: v for k, v in document.items() if k != "seal"}
    return ReceiptBody.model_validate(body).to_json_dict()


def write_receipt(document: ReceiptBody | dict[str, Any], path: str | Path) -> Path:
    """Seal ``document`` (a built :class:`ReceiptBody`, or the same as JSON data) and write it
    atomically to ``path`` (never half-written).

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


def sealed_bytes(
    document: ReceiptBody | dict[str, Any], path: str | Path = "<receipt>"
) -> tuple[dict[str, Any], bytes]:
    """``document`` serialised from the model, sealed, and the exact bytes :func:`write_receipt`
    writes (UTF-8 JSON, sorted keys, two-space indentation, final newline). A built
    :class:`ReceiptBody` is serialised as it is; JSON data is read through the model first
    (:func:`complete_document`), so both write the same bytes.

    Returns:
        (the sealed document, its file bytes).

    Raises:
        ReceiptError: the document does not declare the current schema version (D-11).
        pydantic.ValidationError: the document does not fit the current model.
    """
    if isinstance(document, ReceiptBody):
        document = document.to_json_dict()
        document.pop("seal", None)
        completed = True
    else:
        completed = False
    if document.get("schema_version") != CURRENT_VERSION:
        raise ReceiptError.at(
            path,
            "/schema_version",
            f"expected {CURRENT_VERSION!r} (writers write the current "
            f"schema version only), found {document.get('schema_version')!r}",
        )
    for pointer, problem in unsealable_values(document)[:1]:
        raise ReceiptError.at(path, pointer, problem)
    sealed = seal_document(document if completed else complete_document(document))
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
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:  # a full disk: name the file
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise


#: The largest integer RFC 8785 (D-12) and I-JSON (RFC 7493) hold exactly: 2**53 - 1.
SAFE_INTEGER_MAX = 2**53 - 1


def unsealable_values(document: Any, pointer: str = "") -> list[tuple[str, str]]:
    """Every number in ``document`` that RFC 8785 cannot canonicalise, so no seal can cover it
    (D-12): NaN, an infinity (``1e400`` parses as one), or an integer beyond ±(2**53 - 1).

    Returns:
        ``[(JSON pointer, what was expected and found)]`` in document order; empty when every
        number can be sealed.
    """
    out: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [(pointer, document)]
    while stack:
        at, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((f"{at}/{escape(k)}", v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((f"{at}/{i}", v) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, bool) or node is None or isinstance(node, str):
            continue
        elif isinstance(node, float) and node != node or node in (float("inf"), float("-inf")):
            out.append((at, f"expected a finite number (RFC 8785), found {node!r}"))
        elif isinstance(node, int) and abs(node) > SAFE_INTEGER_MAX:
            out.append(
                (
                    at,
                    f"expected an integer within ±(2**53 - 1) (RFC 8785), found one of "
                    f"{len(str(abs(node)))} digits",
                )
            )
    return out
