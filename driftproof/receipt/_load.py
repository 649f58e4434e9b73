"""Reading receipts: the one load edge, in a fixed order.

size bound → strict JSON parse → bounds → known version (a ``$schema`` naming no other),
FORMAL refused → JSON Schema of the receipt's own ``schema_version`` (D-11) → seal (D-12) →
migration (D-13) → model → consistency (D-18). After this, the core trusts the types and
never re-checks.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from driftproof._json import JSONFault, decode_utf8, json_kind, loads_strict
from driftproof.errors import BoundsError, ReceiptError, UnknownVersionError
from driftproof.receipt import _bounds
from driftproof.receipt._bounds import check_json_bounds, quote, refuse
from driftproof.receipt._messages import model_found, schema_found
from driftproof.receipt._model import CURRENT_VERSION, Receipt
from driftproof.receipt._recompute import check_consistency
from driftproof.receipt._seal import verify_seal
from driftproof.receipt._versions import (
    compiled_validator_for,
    known_versions,
    migrate,
    version_key,
)


def _too_big(file: str | Path, found: object) -> BoundsError:
    return BoundsError.at(
        file, "", f"expected at most {_bounds.RECEIPT_MAX_BYTES} bytes, found {found}"
    )


def parse_receipt(data: bytes | str, file: str = "<receipt>") -> Receipt:
    """Parse and check a receipt held in memory (text is encoded as UTF-8 first).

    ``schema_version`` keeps the version the file declared.

    Raises:
        BoundsError: over a limit of :mod:`driftproof.receipt._bounds`.
        UnknownVersionError: ``schema_version`` missing or not a frozen version (D-11), or
            ``$schema`` the address of another version's schema.
        SealError: the seal is missing or does not match the content (D-12).
        ReceiptError: anything else; one :class:`~driftproof.errors.Problem` per place,
            each naming the file, the JSON pointer and what was expected.
    """
    if isinstance(data, str):  # a caller holding text: measure and parse it as UTF-8
        data = data.encode("utf-8", "surrogatepass")
    if len(data) > _bounds.RECEIPT_MAX_BYTES:
        raise _too_big(file, len(data))
    return _validate(_parse_json(data, file), file)


def _parse_json(data: bytes, file: str) -> Any:
    text = decode_utf8(data, "JSON", lambda message: ReceiptError.at(file, "", message))
    try:
        return loads_strict(text)
    except JSONFault as exc:
        if exc.too_deep:
            raise BoundsError.at(
                file, "", f"expected nesting of at most {_bounds.MAX_DEPTH} levels"
            ) from None
        raise ReceiptError.at(file, exc.pointer, exc.worded()) from None


def _validate(doc: Any, file: str) -> Receipt:
    """Check a parsed receipt: bounds, version, FORMAL refused, schema, seal, model, consistency."""
    check_json_bounds(doc, file)
    if not isinstance(doc, dict):
        raise ReceiptError.at(file, "", f"expected a JSON object, found {json_kind(doc)}")
    version, versions = doc.get("schema_version"), ", ".join(known_versions())
    if str(doc.get("format", "")).startswith("driftproof-suite/"):  # say what it is
        raise UnknownVersionError.at(
            file,
            "/format",
            f"expected a Driftproof receipt, found a suite ({quote(doc['format'])}): "
            "driftproof suite check reads it, and driftproof run measures it",
        )
    if "schema_version" not in doc:  # another tool's file: say what it is not
        raise UnknownVersionError.at(
            file, "", f"not a Driftproof receipt: it names no schema version (one of {versions})"
        )
    if not isinstance(version, str) or version not in known_versions():
        found = quote(version)
        if isinstance(version, int | float) and not isinstance(version, bool):  # 0.16, not "0.16"
            found = f"a number {found}, not text"
        raise UnknownVersionError.at(
            file,
            "/schema_version",
            f"expected one of {versions} (newest {CURRENT_VERSION}), found {found}"
            + _newer(version),
        )
    if doc.get("verification_level") == "FORMAL":
        raise ReceiptError.at(
            file,
            "/verification_level",
            "expected UNVERIFIED, DECLARED or TESTED; "
            "FORMAL is reserved and no receipt can claim it yet",
        )
    _check_schema_url(doc.get("$schema"), version, file)
    check_schema(doc, version, file)
    verify_seal(doc, file)
    current = migrate(doc)
    current["schema_version"] = version
    try:
        receipt = Receipt.model_validate(current)
    except ValidationError as exc:  # source_figures: the model reads it more strictly
        refuse(ReceiptError, file, model_found(exc))
        raise  # pragma: no cover - a refusal always names a place
    check_consistency(receipt, file)
    return receipt


#: The address a frozen schema is served at; the version it names is group 1.
_SCHEMA_URL = re.compile(r"https://driftproof\.dev/spec/([^/]*)/receipt\.schema\.json")


def _check_schema_url(named: object, version: str, file: str) -> None:
    """Refuse a ``$schema`` naming another version's frozen schema than ``schema_version``.

    Raises:
        UnknownVersionError: the receipt names two versions; which one it was written
            under cannot be told.
    """
    m = _SCHEMA_URL.fullmatch(named) if isinstance(named, str) else None
    if m is not None and m.group(1) != version:
        raise UnknownVersionError.at(
            file,
            "/$schema",
            f"expected the address of the version-{version} schema its schema_version names, "
            f"https://driftproof.dev/spec/{version}/receipt.schema.json, found {quote(named)}: "
            "the receipt names two versions",
        )


def check_schema(doc: dict[str, Any], version: str, file: str) -> None:
    """Refuse ``doc`` unless the frozen schema of ``version`` accepts it.

    The compiled validator decides; python-jsonschema only words a refusal (else the compiled
    validator's words are used).

    Raises:
        ReceiptError: one problem per place (at most ``MAX_PROBLEMS``), sorted by pointer.
    """
    if compiled_validator_for(version).is_valid(doc):
        return
    refuse(ReceiptError, file, schema_found(doc, version), f" (schema {version})")
    raise ReceiptError.at(file, "", f"expected a document schema {version} accepts")


def read_receipt(path: str | Path) -> Receipt:
    """Read, validate, verify and parse one receipt file (size checked before a byte is read).

    Raises:
        ReceiptError: (and subclasses) as :func:`read_receipt_json`, then as
            :func:`parse_receipt`.
    """
    return receipt_from_json(read_receipt_json(path), str(path))


def read_receipt_json(path: str | Path) -> Any:
    """The JSON value a receipt file holds, not yet checked as a receipt (the first two steps).

    Raises:
        ReceiptError: the file cannot be read, or is not strict UTF-8 JSON.
        BoundsError: it is larger than the receipt size bound, or nested too deep.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ReceiptError.at(path, "", f"cannot read: {exc.strerror}") from None
    if size > _bounds.RECEIPT_MAX_BYTES:
        raise _too_big(path, size)
    return _parse_json(read_bounded(path), str(path))


def receipt_from_json(doc: Any, file: str) -> Receipt:
    """Check the JSON value ``doc`` read from ``file`` as a receipt, as :func:`parse_receipt` does.

    Raises:
        ReceiptError: (and subclasses) as :func:`parse_receipt` after its JSON parse.
    """
    return _validate(doc, file)


def read_bounded(path: Path, *, regular_only: bool = False) -> bytes:
    """The bytes of the regular file at ``path``, at most one byte past the receipt size bound.

    Opened with ``O_NONBLOCK`` and checked before a byte is read, so a FIFO, socket or device
    is refused, never waited on. ``regular_only`` also refuses a symbolic link (``O_NOFOLLOW``:
    one swapped in after a walk).

    Raises:
        ReceiptError: the file cannot be read, or is not a regular file.
        BoundsError: it holds more than the receipt size bound.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    if regular_only:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder, FIFO or device: never read
            os.close(fd)
            raise ReceiptError.at(path, "", "expected a regular file")
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(_bounds.RECEIPT_MAX_BYTES + 1)
    except OSError as exc:  # a socket cannot be opened at all ("No such device or address")
        why = (
            "expected a regular file"
            if exc.errno == errno.ENXIO
            else f"cannot read: {exc.strerror}"
        )
        raise ReceiptError.at(path, "", why) from None
    if len(data) > _bounds.RECEIPT_MAX_BYTES:
        raise _too_big(path, "more")
    return data


def _newer(version: object) -> str:
    """Words for a version after :data:`CURRENT_VERSION` ("0.17"): a newer Driftproof wrote it."""
    parts = version.split(".") if isinstance(version, str) else []
    if len(parts) not in (2, 3) or not all(p.isdigit() and p.isascii() for p in parts):
        return ""
    if version_key(str(version)) <= version_key(CURRENT_VERSION):
        return ""
    return (
        "; a newer Driftproof wrote it: update Driftproof (or the commit the Action is pinned to) "
        "to read it"
    )
