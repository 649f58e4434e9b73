"""The seal (D-12): sha256 over the RFC 8785 canonical JSON of a receipt, ``seal`` left out.

A writer seals; every reader recomputes the hash and refuses a mismatch, naming the file.
Canonical bytes come from the standard library's C encoder where they are RFC 8785's
(:func:`_c_encoded`), else from the ``rfc8785`` library (the reference the tests hold it to).
A receipt whose cases are held apart is hashed member by member, joined as RFC 8785 joins an
object's members (sorted names, ``,`` and ``:``, no spaces).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import rfc8785

from driftproof.errors import SealError

SEAL_ALGORITHM: Final = "sha256-rfc8785"


#: Digits as ``0``, and ``+-:,[`` (before a number's digits or exponent) as a byte UTF-8 never has.
_SHAPES: Final = bytes.maketrans(b"123456789+-:,[", b"0" * 9 + b"\xff" * 5)
#: An integral float's end (``.0`` then ``,``, ``]``, ``}`` or the end), searched by its literal.
_INTEGRAL_END: Final = re.compile(rb"\.0(?=[,\]}]|\Z)")


def _c_encoded(value: Any) -> bytes | None:
    """RFC 8785's bytes for ``value`` by the C encoder, or None wherever they might differ."""
    try:
        text = json.dumps(
            value, ensure_ascii=False, allow_nan=False, separators=(",", ":"), sort_keys=True
        )
        data = text.encode("utf-8")  # a lone surrogate raises
    except (ValueError, TypeError, RecursionError):  # the library's words (or its deeper reach)
        return None
    # integral floats (1.0, -0.0) are rewritten below; where anything else may differ, even
    # inside a string, the library encodes: a false alarm costs time, never a byte
    if len(data) != len(text) and len(text.encode("utf-16-le")) != 2 * len(text):
        return None  # a character beyond U+FFFF
    shapes = b"\xff" + data.translate(_SHAPES)  # a lone number starts as one after ``:``
    if b"0e\xff0" in shapes or b"\xff" + b"0" * 16 in shapes:
        return None  # an exponent, or an integer of 16 digits or more
    plain = data.replace(b"\\\\", b"\0\0").replace(b'\\"', b"\0\0")  # escapes masked
    out: list[bytes] = []
    copied = counted = quotes = 0
    for m in _INTEGRAL_END.finditer(plain):
        quotes += plain.count(b'"', counted, m.start())
        counted = m.start()
        if quotes % 2 == 0:  # outside strings, ``.0`` then a delimiter ends an integral float
            start = m.start()
            while start and plain[start - 1] in b"-0123456789":
                start -= 1
            whole = data[start : m.start()]
            out += (data[copied:start], b"0" if whole in (b"0", b"-0") else whole)
            copied = m.end()
    return b"".join(out) + data[copied:] if out else data


def _canonical(value: Any) -> bytes:
    fast = _c_encoded(value)
    if fast is not None:
        return fast
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
