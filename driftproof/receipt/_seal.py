"""The seal (D-12): sha256 over the RFC 8785 canonical JSON of a receipt, ``seal`` left out.

A writer seals; every reader recomputes the hash and refuses a mismatch, naming the file.
Canonical JSON is the ``rfc8785`` library's (Trail of Bits), never ours: a receipt whose cases
are held apart is hashed member by member, each member's bytes the library's, joined as
RFC 8785 joins an object's members (sorted names, ``,`` and ``:``, no spaces).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import rfc8785

from driftproof.errors import SealError

SEAL_ALGORITHM: Final = "sha256-rfc8785"


def _canonical(value: Any) -> bytes:
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"cannot canonicalise receipt: {exc}") from exc


def canonical_bytes(document: Mapping[str, Any]) -> bytes:
    """RFC 8785 canonical JSON of ``document`` without its ``seal`` member.

    Raises:
        ValueError: the document holds a value JSON cannot carry (NaN, infinity).
    """
    return _canonical({k: v for k, v in document.items() if k != "seal"})


def compute_seal(
    document: Mapping[str, Any], cases: Iterable[Mapping[str, Any]] | None = None
) -> str:
    """Lowercase hex sha256 of the receipt's canonical JSON without ``seal`` (D-12).

    Args:
        document: the receipt as JSON data.
        cases: the receipt's cases, when ``document`` holds them apart (its own ``cases``
            member is then ignored); they are hashed one at a time, as they come.

    Raises:
        ValueError: a value RFC 8785 cannot canonicalise (NaN, infinity).
    """
    if cases is None:
        return hashlib.sha256(canonical_bytes(document)).hexdigest()
    digest = hashlib.sha256(b"{")
    names = sorted({*document, "cases"} - {"seal"})  # ASCII names: RFC 8785's UTF-16 order
    for i, name in enumerate(names):
        digest.update(b"," * (i > 0) + _canonical(name) + b":")
        if name != "cases":
            digest.update(_canonical(document[name]))
            continue
        digest.update(b"[")
        for j, case in enumerate(cases):
            digest.update(b"," * (j > 0) + _canonical(case))
        digest.update(b"]")
    digest.update(b"}")
    return digest.hexdigest()


def verify_seal(document: Mapping[str, Any], file: str | Path) -> None:
    """Refuse a receipt whose seal does not match its content.

    Raises:
        SealError: the seal is missing, of an unknown algorithm, or does not match; the message
            names the file and both hashes.
    """
    seal = document.get("seal")
    if not isinstance(seal, dict) or not isinstance(seal.get("sha256"), str):
        raise SealError.at(
            file, "/seal", "expected a seal object with a sha256 member; the receipt is unsealed"
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
